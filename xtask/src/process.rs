//! Running things for the library's tasks: the shared commands (bindery-test-support's
//! `commands`), and the workspace's crates and Rust files.

use std::path::{Path, PathBuf};

pub use bindery_test_support::commands::{
    apt_install, cargo, cargo_command, one_shot_builds, run_command,
};

/// Every Rust file under `dir`, sorted, build output and npm packages left out.
pub fn rust_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let path = entry.path();
        let skipped = path
            .file_name()
            .is_some_and(|name| name == "target" || name == "node_modules");
        if path.is_dir() && !skipped {
            files.extend(rust_files(&path)?);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Where Rust code lives, under the workspace root: each crate's folder (its `src`, `tests`,
/// `benches`, `build.rs`).
const CODE: [&str; 4] = ["crates", "examples", "xtask", "benches"];

/// Every crate's folder: those under `crates/` and `examples/`, and `xtask/` and `benches/`.
pub fn crate_folders(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut folders = Vec::new();
    for place in CODE {
        let path = root.join(place);
        if path.join("Cargo.toml").is_file() {
            folders.push(path);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if entry.path().join("Cargo.toml").is_file() {
                folders.push(entry.path());
            }
        }
    }
    folders.sort();
    Ok(folders)
}
