//! Property tests: for random trees (names, sizes, contents), every mode stores bytes that read
//! back to the source, gzip blobs decompress to it, and metadata is consistent.

use std::collections::BTreeMap;
use std::io::Read;

use bindery_codegen::{Mode, Options, Stored};
use proptest::prelude::*;

/// A relative path of one to three segments from a charset with spaces, unicode and URL
/// characters, never hidden, never `.` or `..`.
fn path() -> impl Strategy<Value = String> {
    prop::collection::vec("[a-zA-Z0-9_ #%?é日-]{1,8}", 1..=3)
        .prop_map(|segments| segments.join("/"))
        .prop_filter("no hidden segments", |path| {
            path.split('/').all(|segment| !segment.starts_with('.'))
        })
}

/// Contents that compress (repetitive) or do not (random), up to 8 KiB, empty included.
fn contents() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..8192),
        ("[a-z ]{1,16}", 0usize..512).prop_map(|(unit, times)| unit.repeat(times).into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_mode_round_trips_random_trees(files in prop::collection::btree_map(path(), contents(), 0..12)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = tempfile::tempdir().expect("cache");
        // A path may also be a prefix folder of another ("a" and "a/b"): keep the first only.
        let mut written: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        for (path, bytes) in &files {
            let clashes = written.keys().any(|other| {
                path.starts_with(&format!("{other}/")) || other.starts_with(&format!("{path}/"))
            });
            if clashes {
                continue;
            }
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(&full, bytes).expect("write");
            written.insert(path.clone(), bytes.clone());
        }
        for mode in Mode::ALL {
            let manifest = Options::new(dir.path()).mode(mode).cache_dir(cache.path()).build().expect("valid tree");
            let paths: Vec<&str> = manifest.entries.iter().map(|entry| entry.path.as_str()).collect();
            let expected: Vec<&str> = written.keys().map(String::as_str).collect();
            prop_assert_eq!(&paths, &expected);
            for entry in &manifest.entries {
                let source = &written[&entry.path];
                prop_assert_eq!(entry.len, source.len() as u64);
                prop_assert_eq!(&entry.etag, &format!("\"{:032x}\"", xxhash_rust::xxh3::xxh3_128(source)));
                let stored = std::fs::read(entry.stored_path()).expect("stored bytes");
                match &entry.stored {
                    Stored::Raw => prop_assert_eq!(&stored, source),
                    Stored::Gzip { len, etag, .. } => {
                        prop_assert_eq!(mode, Mode::Gzip);
                        prop_assert_eq!(stored.len() as u64, *len);
                        prop_assert!(*len * 100 <= entry.len * 95, "kept only when it saves 5%");
                        prop_assert_ne!(etag, &entry.etag);
                        let mut decoded = Vec::new();
                        flate2::read::GzDecoder::new(&stored[..]).read_to_end(&mut decoded).expect("valid gzip");
                        prop_assert_eq!(&decoded, source);
                    }
                }
            }
        }
    }
}
