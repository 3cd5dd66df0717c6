//! Names, once, the targets where large files go through the assembler (`.incbin` into an ELF
//! section): `cfg(bindery_incbin)`. Everywhere else they use `include_bytes!`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(bindery_incbin)");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let is_elf = matches!(
        os.as_str(),
        "linux"
            | "android"
            | "freebsd"
            | "netbsd"
            | "openbsd"
            | "dragonfly"
            | "illumos"
            | "solaris"
    );
    let is_supported_arch = matches!(
        arch.as_str(),
        "x86_64" | "x86" | "aarch64" | "arm" | "riscv64"
    );
    if is_elf && is_supported_arch {
        println!("cargo::rustc-cfg=bindery_incbin");
    }
}
