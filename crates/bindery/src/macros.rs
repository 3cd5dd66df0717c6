//! The macros generated code calls (`#[macro_export]`, so they live at the crate's root):
//! `__bindery_dev!`, a catalog's dev source or nothing, and `__bindery_incbin!`, a large file's
//! bytes through the assembler. Part of the generated-code contract.

/// A catalog's dev sources, one per folder: with the `dev` feature in builds with debug
/// assertions; none otherwise, when the folders' paths and the rules never reach the binary.
#[cfg(all(feature = "dev", debug_assertions))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_dev {
    ($({ root = $root:expr, prefix = $prefix:expr, rules = $rules:expr $(,)? }),* $(,)?) => {
        &[$($crate::__private_v8::DevSource {
            root: $root,
            prefix: $prefix,
            rules: $rules,
        }),*]
    };
}

/// A catalog's build rules without its folders: each folder's prefix and rules, its path
/// dropped (`root` is empty). With `overlay` and no dev mode, for an overlay to inherit; in a
/// debug build without `dev`, for a checked reference's compile error to name the rules
/// (`Catalog::asset`). A catalog is in dev mode only with `dev` and debug assertions (the arm
/// above); a release build without `overlay` holds none (the next arm).
#[cfg(all(
    any(feature = "overlay", debug_assertions),
    not(all(feature = "dev", debug_assertions))
))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_dev {
    ($({ root = $root:expr, prefix = $prefix:expr, rules = $rules:expr $(,)? }),* $(,)?) => {
        &[$($crate::__private_v8::DevSource {
            root: "",
            prefix: $prefix,
            rules: $rules,
        }),*]
    };
}

/// A catalog's dev sources in a release build without the `overlay` feature: none, so the
/// binary holds neither the folders nor the rules.
#[cfg(not(any(feature = "overlay", debug_assertions)))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_dev {
    ($($ignored:tt)*) => {
        &[]
    };
}

/// The bytes of a large file, placed in the binary by the assembler (`.incbin`) so that rustc
/// and LLVM never hold them: `$symbol` names them, `$path` is the absolute path, `$len` the
/// length codegen measured. Used where `build.rs` sets `cfg(bindery_incbin)` (ELF on x86,
/// x86_64, aarch64, arm, riscv64); elsewhere the fallback below uses `include_bytes!`.
#[cfg(bindery_incbin)]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_incbin {
    (symbol = $symbol:expr, path = $path:expr, len = $len:literal $(,)?) => {{
        mod incbin {
            ::core::arch::global_asm!(
                // One definition per symbol: catalogs of one crate that hold the same bytes name
                // the same symbol. Within one object file the first definition wins (`.ifndef`);
                // across the crate's object files each is a weak symbol in a COMDAT group of its
                // own name, of which the linker keeps one.
                ::core::concat!(".ifndef ", $symbol),
                ::core::concat!(
                    ".pushsection .rodata.",
                    $symbol,
                    ",\"aG\",%progbits,",
                    $symbol,
                    ",comdat"
                ),
                ".p2align 4",
                ::core::concat!(".weak ", $symbol),
                ::core::concat!(".hidden ", $symbol),
                ::core::concat!($symbol, ":"),
                // Local labels of the data's start and end (`2:`, `3:`; not of 0 and 1 only,
                // which Intel syntax reads as binary numbers).
                "2:",
                ::core::concat!(".incbin \"", $path, "\""),
                // Exactly `$len` bytes follow the symbol, or the build fails naming the file: a
                // file that grew or shrank since codegen measured it (a committed module's
                // source edited since) is never cut nor zero-padded under its old ETag. Both
                // checks are resolved when the assembler lays the section out (an `.if` on the
                // label difference is not absolute while parsing): fewer bytes make the `.space`
                // negative, more make the `.org` move back. The macro includes its own sealed
                // copy, which holds exactly the bytes measured.
                "3:",
                ::core::concat!(
                    ".space (3b - 2b) - ",
                    $len,
                    " /* bindery: ",
                    $path,
                    " is no longer ",
                    $len,
                    " bytes, as when its catalog was made; regenerate the catalog */"
                ),
                ::core::concat!(
                    ".org 2b + ",
                    $len,
                    " /* bindery: ",
                    $path,
                    " is no longer ",
                    $len,
                    " bytes, as when its catalog was made; regenerate the catalog */"
                ),
                ".popsection",
                ".endif",
            );
        }
        unsafe extern "C" {
            #[link_name = $symbol]
            static BYTES: [u8; $len];
        }
        // SAFETY: `BYTES` is defined by the `global_asm!` just above (or by the same expansion
        // elsewhere in this crate), in this crate's own object code, under a symbol named by
        // this crate's name and the BLAKE3 hash and length of its bytes, with hidden visibility
        // so nothing outside the crate can interpose another definition. Every definition of
        // the symbol therefore holds the same bytes, and the linker keeping any one of them (weak
        // symbols in COMDAT groups) keeps those bytes. The `.space`/`.org` checks make the build
        // fail unless the symbol spans exactly `$len` bytes of its own section, so the array
        // type is exact. The section is
        // allocated and not writable (`"a"`), so the bytes are read-only data for the whole life
        // of the program, and `u8` has neither invalid values nor alignment needs.
        let bytes: &'static [u8] = unsafe { &BYTES };
        bytes
    }};
}

/// The bytes of a large file: `include_bytes!` on targets without the assembler path.
#[cfg(not(bindery_incbin))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_incbin {
    (symbol = $symbol:expr, path = $path:expr, len = $len:literal $(,)?) => {
        ::core::include_bytes!($path)
    };
}

/// What a catalog needs of the runtime's features, asked by generated code: a catalog in `gzip`
/// mode needs `gzip` (to decompress on read), one with a bundler's manifest `vite` (its import
/// map's CSP hash). Without the feature, a compile error that names it: a module written by the
/// generator (built with every feature) meets a runtime built with fewer.
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_requires {
    (gzip) => {
        $crate::__bindery_requires_gzip!()
    };
    (vite) => {
        $crate::__bindery_requires_vite!()
    };
}

#[cfg(feature = "gzip")]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_requires_gzip {
    () => {};
}

#[cfg(not(feature = "gzip"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_requires_gzip {
    () => {
        ::core::compile_error!(
            "this catalog stores its files gzip (`mode = \"gzip\"`): turn on bindery's `gzip` \
             feature (features = [\"gzip\"])"
        );
    };
}

#[cfg(feature = "vite")]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_requires_vite {
    () => {};
}

#[cfg(not(feature = "vite"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __bindery_requires_vite {
    () => {
        ::core::compile_error!(
            "this catalog reads a bundler's manifest (`manifest = \"vite\"`): turn on bindery's \
             `vite` feature (features = [\"vite\"])"
        );
    };
}
