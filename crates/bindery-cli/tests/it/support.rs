//! Running the built `bindery` binary and reading what it left on disk.

use std::path::Path;
use std::process::{Command, Output};

pub const BINDERY: &str = env!("CARGO_BIN_EXE_bindery");

/// `bindery <args>` in `cwd`, as CI runs it (no progress bar).
pub fn bindery(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BINDERY)
        .args(args)
        .current_dir(cwd)
        .env("CI", "true")
        .output()
        .expect("bindery runs")
}

/// `bindery embed <args>` in `cwd`.
pub fn embed(cwd: &Path, args: &[&str]) -> Output {
    bindery(cwd, &[&["embed"], args].concat())
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The files directly in `dir` with their bytes, sorted by name (empty when `dir` is missing).
pub fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.path().is_file())
                .map(|entry| {
                    (
                        entry.file_name().to_string_lossy().into_owned(),
                        std::fs::read(entry.path()).expect("read"),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
