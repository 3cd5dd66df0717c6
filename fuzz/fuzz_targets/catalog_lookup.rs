//! Any lookup path: a found file's catalog path is the input without one leading `/`, and never
//! holds `..`, `.`, empty segments, backslashes or NUL; folder listings stay inside the folder.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|path: &str| {
    if let Some(file) = common::FIXTURES.file(path) {
        assert_eq!(path.strip_prefix('/').unwrap_or(path), file.path());
        assert!(
            file.path()
                .split('/')
                .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
        );
        assert!(!file.path().contains(['\\', '\0']));
        assert_eq!(
            common::FIXTURES
                .get(path)
                .expect("get agrees with file")
                .len(),
            file.len()
        );
    } else {
        assert!(common::FIXTURES.get(path).is_none());
    }
    let folder = path.trim_matches('/');
    for entry in common::FIXTURES.dir(path) {
        let inside = match entry {
            bindery::DirEntry::File(file) => file.path(),
            bindery::DirEntry::Dir(dir) => dir,
        };
        assert!(
            folder.is_empty() || inside.starts_with(&format!("{folder}/")),
            "{inside} in {folder}"
        );
    }
});
