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

/// Deterministic incompressible bytes (xorshift), so tests need no random crate.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}
