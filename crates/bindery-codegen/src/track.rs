//! Rebuild tracking for build scripts: what a proc-macro on stable Rust cannot do by itself.

use std::path::Path;

/// Tells cargo, from a build script, to rebuild the crate when anything under `dir` changes:
/// a file edited, added or deleted, at any depth. Relative paths are relative to the crate's
/// `Cargo.toml`, as for the macro.
///
/// `rustc` tracks files read by `include_bytes!`, so edits of embedded files in `static` and `copy`
/// mode rebuild on their own. It cannot see a file added to the folder or deleted from it, an
/// edit in `gzip` mode (the binary includes the cached blob, not the source), nor any file the
/// assembler reads. Cargo can: a directory given to `rerun-if-changed` is scanned for any change
/// of any entry in it. Large files (see `Options::large_threshold`) take the fast assembler path
/// only in folders tracked this way; elsewhere they fall back to `include_bytes!`.
///
/// Note that once a build script prints any `rerun-if-changed`, cargo stops re-running it on
/// every change of the package; print one for `build.rs` as well if it reads other files.
///
/// `$VAR` and `${VAR}` in `dir` are replaced as the macro replaces them (`track("$OUT_DIR/dist")`),
/// and cargo is told to rerun the script when one changes; an unset variable panics with the
/// macro's message, which cargo shows as the build script's error.
///
/// A folder inside `OUT_DIR` is the build script's own output (a Vite build run from
/// `build.rs`): cargo is not told to watch it, since the script writes it on every run and a
/// watched folder newer than the last run would rerun the script, and recompile the crate, on
/// every `cargo build`. It still counts as tracked for the assembler, as whatever changes it
/// reruns the script. Watch the front-end's sources instead
/// (`cargo::rerun-if-changed=frontend/src`), as `examples/vite-app/build.rs` does.
///
/// In `build.rs`:
///
/// ```
/// bindery_codegen::track("assets/spa");
/// println!("cargo::rerun-if-changed=build.rs");
/// ```
pub fn track(dir: impl AsRef<Path>) {
    let (dir, variables) = match expanded(dir.as_ref()) {
        Ok(expanded) => expanded,
        Err(error) => panic!("bindery_codegen::track: {error}"),
    };
    for variable in &variables {
        println!("cargo::rerun-if-env-changed={variable}");
    }
    let dir = dir.as_path();
    let out_dir = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from);
    for line in track_lines(dir, out_dir.as_deref()) {
        println!("{line}");
    }
    // Tell the macro which folders are tracked: only files under them may enter through the
    // assembler, which rustc does not track (see `Options::large_threshold`).
    static TRACKED: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut tracked = TRACKED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Ok(canonical) = std::fs::canonicalize(dir) {
        tracked.push(canonical);
    }
    if let Ok(joined) = std::env::join_paths(tracked.iter()) {
        println!(
            "cargo::rustc-env={TRACKED_ENV}={}",
            joined.to_string_lossy()
        );
    }
}

/// `dir` with its variables replaced, and their names.
fn expanded(dir: &Path) -> Result<(std::path::PathBuf, Vec<String>), crate::Error> {
    match dir.to_str().filter(|text| text.contains('$')) {
        Some(text) => crate::expand_folder(text)
            .map(|expanded| (std::path::PathBuf::from(expanded.path), expanded.variables)),
        None => Ok((dir.to_path_buf(), Vec::new())),
    }
}

/// The variable through which `track` tells the `embed!` macro which folders a build script
/// tracks (absolute paths, joined like `PATH`).
pub const TRACKED_ENV: &str = "BINDERY_TRACKED";

/// Whether a build script's `track` covers `folder` (absolute), judging by the variable it set
/// for this compilation.
pub fn is_tracked(folder: &Path) -> bool {
    let Some(tracked) = std::env::var_os(TRACKED_ENV) else {
        return false;
    };
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    std::env::split_paths(&tracked).any(|dir| folder.starts_with(dir))
}

/// What `track` tells cargo: watch `dir` unless it lies inside `out_dir` (the build script's
/// own output, see [`track`]), and the variables that move the build cache.
fn track_lines(dir: &Path, out_dir: Option<&Path>) -> Vec<String> {
    let is_output = out_dir.is_some_and(|out_dir| is_inside(dir, out_dir));
    let watch = (!is_output).then(|| format!("cargo::rerun-if-changed={}", dir.display()));
    watch
        .into_iter()
        .chain([
            "cargo::rerun-if-env-changed=BINDERY_CACHE_DIR".to_owned(),
            "cargo::rerun-if-env-changed=CARGO_TARGET_DIR".to_owned(),
        ])
        .collect()
}

/// Whether `dir` is `folder` or lies below it, comparing real paths where they exist (the
/// folder may not have been written yet).
fn is_inside(dir: &Path, folder: &Path) -> bool {
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    dir.starts_with(folder) || real(dir).starts_with(real(folder))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_folder_with_variables_is_expanded_and_names_them() {
        let (dir, variables) =
            super::expanded("$CARGO_MANIFEST_DIR/src".as_ref()).expect("cargo sets it");
        assert_eq!(
            dir,
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
        );
        assert_eq!(variables, ["CARGO_MANIFEST_DIR"]);
        let error = super::expanded("$BINDERY_NO_SUCH_VARIABLE/x".as_ref()).expect_err("unset");
        assert!(
            error
                .to_string()
                .contains("`BINDERY_NO_SUCH_VARIABLE` is not set")
        );
    }

    #[test]
    fn names_the_folder_and_the_cache_variables() {
        let lines = super::track_lines("assets/spa".as_ref(), Some("/target/out".as_ref()));
        assert_eq!(lines[0], "cargo::rerun-if-changed=assets/spa");
        assert!(lines[1].ends_with("BINDERY_CACHE_DIR"));
    }

    #[test]
    fn a_folder_the_build_script_writes_into_out_dir_is_not_watched() {
        let out = tempfile::tempdir().expect("tempdir");
        let dist = out.path().join("dist");
        for dir in [dist.clone(), out.path().to_path_buf()] {
            let lines = super::track_lines(&dir, Some(out.path()));
            assert!(
                lines.iter().all(|line| !line.contains("rerun-if-changed")),
                "{dir:?}: {lines:?}"
            );
        }
        // Written already, named through a link: still inside.
        std::fs::create_dir(&dist).expect("mkdir");
        let link = tempfile::tempdir().expect("tempdir");
        let linked = link.path().join("out");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(out.path(), &linked).expect("link");
            let lines = super::track_lines(&linked.join("dist"), Some(out.path()));
            assert!(lines.iter().all(|line| !line.contains("rerun-if-changed")));
        }
        assert_eq!(super::track_lines(&dist, None).len(), 3);
    }
}
