//! The fixture tree on disk, read independently of bindery, to compare catalogs against.

use std::path::{Path, PathBuf};

/// `assets/fixtures` at the workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/fixtures")
}

/// Every non-hidden file under the fixture tree as (catalog path, bytes), sorted by path.
pub fn files() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    walk(&root(), "", &mut files);
    files.sort();
    files
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).expect("fixture folder is readable") {
        let entry = entry.expect("fixture entry is readable");
        let name = entry
            .file_name()
            .into_string()
            .expect("fixture names are UTF-8");
        if name.starts_with('.') {
            continue;
        }
        let path = format!("{prefix}{name}");
        if entry.file_type().expect("file type").is_dir() {
            walk(&entry.path(), &format!("{path}/"), files);
        } else {
            files.push((
                path,
                std::fs::read(entry.path()).expect("fixture is readable"),
            ));
        }
    }
}
