//! Running things for the library's tasks: the shared commands (bindery-test-support's
//! `commands`), and the workspace's Rust files.

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
