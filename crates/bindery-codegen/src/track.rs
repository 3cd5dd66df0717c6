//! Rebuild tracking for build scripts: what a proc-macro on stable Rust cannot do by itself.

use std::path::Path;

/// Tells cargo, from a build script, to rebuild the crate when anything under `dir` changes:
/// a file edited, added or deleted, at any depth. Relative paths are relative to the crate's
/// `Cargo.toml`, as for the macro.
///
/// `rustc` tracks files read by `include_bytes!`, so edits of embedded files in `static` and `copy`
/// mode rebuild on their own. It cannot see a file added to the folder or deleted from it, nor an
/// edit in `gzip` mode, where the binary includes the cached blob rather than the source. Cargo
/// can: a directory given to `rerun-if-changed` is scanned for any change of any entry in it.
///
/// Note that once a build script prints any `rerun-if-changed`, cargo stops re-running it on
/// every change of the package; print one for `build.rs` as well if it reads other files.
///
/// In `build.rs`:
///
/// ```
/// bindery_codegen::track("assets/spa");
/// println!("cargo::rerun-if-changed=build.rs");
/// ```
pub fn track(dir: impl AsRef<Path>) {
    for line in track_lines(dir.as_ref()) {
        println!("{line}");
    }
}

fn track_lines(dir: &Path) -> [String; 3] {
    [
        format!("cargo::rerun-if-changed={}", dir.display()),
        "cargo::rerun-if-env-changed=BINDERY_CACHE_DIR".to_owned(),
        "cargo::rerun-if-env-changed=CARGO_TARGET_DIR".to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_folder_and_the_cache_variables() {
        let lines = super::track_lines("assets/spa".as_ref());
        assert_eq!(lines[0], "cargo::rerun-if-changed=assets/spa");
        assert!(lines[1].ends_with("BINDERY_CACHE_DIR"));
    }
}
