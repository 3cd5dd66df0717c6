//! The memory-to-file mapping of `bindery::zerocopy` in a user's crate, built both ways the
//! linker makes executables: position-independent (the default) and not (`-C
//! relocation-model=static`, an `ET_EXEC` loaded at its link address). Every file, small
//! (`include_bytes!`) and large (`.incbin`), is read back from the executable at the offset
//! `file_offset` gives and compared with `raw()`.

use crate::project::Project;

const MAIN: &str = r#"
use std::os::unix::fs::FileExt;

static SITE: bindery::Catalog = bindery::embed!("assets");

fn main() {
    assert!(bindery::zerocopy::is_available(), "zero-copy is available");
    let exe = std::fs::File::open("/proc/self/exe").expect("the executable");
    let mut header = [0u8; 18];
    exe.read_exact_at(&mut header, 0).expect("ELF header");
    let kind = match u16::from_le_bytes([header[16], header[17]]) {
        2 => "exec",
        3 => "dyn",
        _ => "other",
    };
    let mut checked = 0;
    for file in SITE.files() {
        let raw = file.raw().expect("static mode");
        let offset = bindery::zerocopy::file_offset(raw).expect("found in the executable");
        let mut read = vec![0u8; raw.len()];
        exe.read_exact_at(&mut read, offset).expect("read");
        assert!(read == raw, "{} at {offset:#x}", file.path());
        checked += 1;
    }
    let heap = vec![1u8; 64];
    assert!(bindery::zerocopy::file_offset(&heap).is_none());
    println!("{kind} {checked}");
}
"#;

#[test]
fn offsets_are_exact_in_pie_and_non_pie_executables() {
    let project = Project::new(
        "bindery_zerocopy_offsets",
        "[features]\ndefault = [\"bindery/zerocopy\"]\n",
    );
    project.write("src/main.rs", MAIN);
    project.write("assets/small.txt", "a small file, by include_bytes!\n");
    // Over the 1 MiB threshold at which blobs are embedded by `.incbin`.
    project.write("assets/large.bin", bindery_test_support::noise(5 << 20, 7));
    for (flags, kind) in [(None, "dyn"), (Some("-Crelocation-model=static"), "exec")] {
        let mut command = project.cargo_command(&["rustc", "--bin", "bindery_zerocopy_offsets"]);
        if let Some(flags) = flags {
            command.args(["--", flags]);
        }
        let output = command.output().expect("cargo runs");
        assert!(
            output.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = project.run();
        assert_eq!(stdout.trim(), format!("{kind} 2"), "{flags:?}");
    }
}
