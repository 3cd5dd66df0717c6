//! The gzip cache: an unchanged file is never compressed twice; a changed one gets a new blob.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use bindery_codegen::{Mode, Options, Stored};

use crate::tree;

/// Blob names with their status-change time: any rewrite, rename or touch changes it.
fn blobs(cache: &Path) -> BTreeMap<String, (i64, i64)> {
    std::fs::read_dir(cache.join("gzip"))
        .expect("cache folder")
        .map(|entry| {
            let entry = entry.expect("entry");
            let meta = entry.metadata().expect("metadata");
            (
                entry.file_name().into_string().expect("UTF-8"),
                (meta.ctime(), meta.ctime_nsec()),
            )
        })
        .collect()
}

#[test]
fn an_unchanged_file_is_never_compressed_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let text = "compressible text, repeated. ".repeat(200);
    tree::write(
        dir.path(),
        &[
            ("a.txt", text.as_bytes()),
            ("b.txt", text.to_uppercase().as_bytes()),
        ],
    );
    let options = Options::new(dir.path())
        .mode(Mode::Gzip)
        .cache_dir(cache.path());
    let first = options.build().expect("first build");
    let before = blobs(cache.path());
    assert_eq!(before.len(), 2, "{before:?}");

    let second = options.build().expect("second build");
    assert_eq!(first, second, "builds are deterministic");
    assert_eq!(blobs(cache.path()), before, "nothing was rewritten");

    tree::write(
        dir.path(),
        &[("a.txt", format!("{text} changed").as_bytes())],
    );
    options.build().expect("third build");
    let after = blobs(cache.path());
    assert_eq!(
        after.len(),
        3,
        "one new blob for the edited file: {after:?}"
    );
    for (name, modified) in &before {
        assert_eq!(after.get(name), Some(modified), "{name} was not rewritten");
    }
}

#[test]
fn blobs_are_valid_gzip_of_the_source_and_keyed_by_level() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let text = "level matters ".repeat(500);
    tree::write(dir.path(), &[("t.txt", text.as_bytes())]);
    for level in [1, 9] {
        let manifest = Options::new(dir.path())
            .mode(Mode::Gzip)
            .level(level)
            .cache_dir(cache.path())
            .build()
            .expect("build");
        let Stored::Gzip { blob, len, .. } = &manifest.entries[0].stored else {
            panic!("text compresses");
        };
        assert!(blob.to_string_lossy().ends_with(&format!("-{level}.gz")));
        let compressed = std::fs::read(blob).expect("blob");
        assert_eq!(compressed.len() as u64, *len);
        let mut decoded = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(&compressed[..]),
            &mut decoded,
        )
        .expect("valid gzip");
        assert_eq!(decoded, text);
    }
    assert_eq!(blobs(cache.path()).len(), 2);
}
