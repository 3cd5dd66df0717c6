//! The gzip cache: an unchanged file is never compressed twice; a changed one gets a new blob.

use std::collections::BTreeMap;
use std::path::Path;

use bindery_codegen::{Mode, Options, Stored};

use crate::tree;

/// Blob names with their status-change time: any rewrite, rename or touch changes it.
fn blobs(cache: &Path) -> BTreeMap<String, (i64, i64)> {
    bindery_test_support::ctimes(&cache.join("gzip"))
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

#[test]
fn remembered_hashes_serve_unchanged_files_and_never_edited_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let first = "a".repeat(1000);
    tree::write(dir.path(), &[("a.txt", first.as_bytes())]);
    // Files changed in the last two seconds are never remembered (a same-size write could hide
    // in the timestamps' granularity): let this one age past that.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let options = Options::new(dir.path()).cache_dir(cache.path());
    let built = options.build().expect("first build");
    let real_hash = built.entries[0].hash.clone();
    assert_eq!(
        real_hash,
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(first.as_bytes()))
    );

    // The remembered hash is what a rebuild uses: replace it and see it come back.
    let hashes = std::fs::read_dir(cache.path().join("hashes"))
        .expect("hashes folder")
        .next()
        .expect("one file")
        .expect("entry")
        .path();
    let text = std::fs::read_to_string(&hashes).expect("hashes");
    assert!(text.contains(&real_hash), "{text}");
    let planted = "f".repeat(bindery_codegen::HASH_LEN);
    std::fs::write(&hashes, text.replace(&real_hash, &planted)).expect("plant");
    let rebuilt = options.build().expect("second build");
    assert_eq!(
        rebuilt.entries[0].hash, planted,
        "the file was not read again"
    );

    // An edit of the same length is seen (its change time moved), whatever the cache says.
    let second = "b".repeat(1000);
    std::fs::write(dir.path().join("a.txt"), &second).expect("edit");
    let edited = options.build().expect("third build");
    assert_eq!(
        edited.entries[0].hash,
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(second.as_bytes()))
    );

    // A damaged cache file costs a rehash, never a wrong hash or an error.
    std::fs::write(&hashes, "bindery-hashes-v1\nnot\ta\tline\n\u{0}").expect("damage");
    let after_damage = options.build().expect("fourth build");
    assert_eq!(after_damage.entries[0].hash, edited.entries[0].hash);
}
