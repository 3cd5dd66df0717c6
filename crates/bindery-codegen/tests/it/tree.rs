//! Building small trees on disk for tests.

use std::path::Path;

/// Writes `files` (relative path, contents) under `root`, creating folders.
pub fn write(root: &Path, files: &[(&str, &[u8])]) {
    for (path, contents) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write");
    }
}

pub use bindery_test_support::noise;
