//! The pack: the plain small files' bytes end to end, written once and reused while nothing
//! changes; files stored otherwise stay out of it.

use std::collections::BTreeMap;
use std::path::Path;

use bindery_codegen::{Encoding, Mode, Options};

use crate::tree;

/// Pack names with their status-change time: any rewrite, rename or touch changes it.
fn packs(cache: &Path) -> BTreeMap<String, (i64, i64)> {
    bindery_test_support::ctimes(&cache.join("packs"))
}

#[test]
fn packed_files_lie_at_their_offsets_and_an_unchanged_tree_reuses_the_pack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let files: &[(&str, &[u8])] = &[
        ("a.txt", b"alpha"),
        ("empty.txt", b""),
        ("sub/b.bin", &[0, 1, 2, 255]),
        ("z.css", b"body{}"),
    ];
    tree::write(dir.path(), files);
    let options = Options::new(dir.path()).cache_dir(cache.path()).pack(true);
    let manifest = options.build().expect("build");
    let pack = manifest.pack.clone().expect("four plain files are packed");
    let blob = std::fs::read(&pack.blob).expect("the pack");
    assert_eq!(blob.len(), 5 + 4 + 6);
    for (entry, offset) in manifest.entries.iter().zip(&pack.offsets) {
        let offset = offset.expect("every file is plain") as usize;
        let expected = std::fs::read(&entry.source).expect("source");
        assert_eq!(
            &blob[offset..offset + expected.len()],
            &expected[..],
            "{}",
            entry.path
        );
    }
    // The pack takes its newest file's time, not the build's: cargo must not see it as newer.
    let newest = manifest
        .entries
        .iter()
        .map(|entry| {
            std::fs::metadata(&entry.source)
                .and_then(|m| m.modified())
                .expect("mtime")
        })
        .max()
        .expect("files");
    let pack_time = std::fs::metadata(&pack.blob)
        .and_then(|m| m.modified())
        .expect("mtime");
    assert_eq!(pack_time, newest);

    let before = packs(cache.path());
    assert_eq!(before.len(), 1);
    let again = options.build().expect("second build");
    assert_eq!(again, manifest, "deterministic");
    assert_eq!(packs(cache.path()), before, "nothing was rewritten");

    // One changed byte, same length: a new pack, which replaces the catalog's old one so that
    // edits do not pile up packs in the cache.
    tree::write(dir.path(), &[("a.txt", b"ALPHA")]);
    let changed = options.build().expect("third build");
    let new_pack = changed.pack.expect("packed");
    assert_ne!(new_pack.blob, pack.blob);
    assert_eq!(&std::fs::read(&new_pack.blob).expect("pack")[..5], b"ALPHA");
    assert!(!pack.blob.exists(), "the old pack is removed");
    assert_eq!(packs(cache.path()).len(), 1);

    // Another catalog of the same folder stored otherwise has its own pack, kept beside.
    let other = options
        .clone()
        .exclude("z.css")
        .build()
        .expect("other catalog");
    let other_pack = other.pack.expect("packed");
    assert!(new_pack.blob.exists() && other_pack.blob.exists());
    assert_eq!(packs(cache.path()).len(), 2);
}

/// Which entries the pack holds, in the manifest's order.
fn packed(options: Options, why: &str) -> Vec<bool> {
    let manifest = options.pack(true).build().expect("build");
    manifest
        .pack
        .expect(why)
        .offsets
        .iter()
        .map(Option::is_some)
        .collect()
}

#[test]
fn only_plain_small_files_are_packed_and_only_when_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let text = "compressible text, repeated. ".repeat(200);
    tree::write(
        dir.path(),
        &[
            ("a.txt", text.as_bytes()),
            ("b.txt", b"short"),
            ("c.txt", b"also short"),
            ("large.bin", &[7; 8192]),
        ],
    );
    let base = Options::new(dir.path()).cache_dir(cache.path());
    assert_eq!(base.clone().build().expect("build").pack, None, "not asked");

    // Large files go their own way (the assembler), so they stay out.
    let offsets = packed(
        base.clone().large_threshold(Some(6000)),
        "three small files",
    );
    assert_eq!(offsets, [true, true, true, false]);

    // Gzip-stored files and files with variants are described alone.
    let packed_gzip = packed(
        base.clone().mode(Mode::Gzip),
        "the short files are stored raw",
    );
    assert_eq!(
        packed_gzip,
        [false, true, true, false],
        "the compressible two are gzip"
    );
    let packed_variants = packed(base.clone().precompress([Encoding::Gzip]), "the others");
    assert_eq!(packed_variants, [false, true, true, false]);

    // One plain file is not worth a pack.
    let single = tempfile::tempdir().expect("tempdir");
    tree::write(single.path(), &[("only.txt", b"one")]);
    let manifest = Options::new(single.path())
        .cache_dir(cache.path())
        .pack(true)
        .build()
        .expect("build");
    assert_eq!(manifest.pack, None);
}
