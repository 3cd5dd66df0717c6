//! Precompressed variants: made once per content, cached by hash, kept only where they save,
//! deterministic, and within the window HTTP allows for zstd.

use std::collections::BTreeMap;
use std::path::Path;

use bindery_codegen::{Encoding, Error, Mode, Options, Stored, ZSTD_WINDOW_LOG};

use crate::tree;

/// Every cached blob and marker under `cache` (one folder per encoding), with its
/// status-change time: any rewrite, rename or touch changes it.
fn cached(cache: &Path) -> BTreeMap<String, (i64, i64)> {
    let mut found = BTreeMap::new();
    for folder in std::fs::read_dir(cache).expect("cache folder") {
        let folder = folder.expect("entry").path();
        if folder.ends_with("hashes") {
            continue;
        }
        let name = folder
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        for (file, changed) in bindery_test_support::ctimes(&folder) {
            found.insert(format!("{name}/{file}"), changed);
        }
    }
    found
}

fn text(seed: &str) -> Vec<u8> {
    (0..400)
        .map(|line| format!("<li class=\"{seed}\">item {line} of a list that compresses</li>\n"))
        .collect::<String>()
        .into_bytes()
}

const ALL: [Encoding; 3] = [Encoding::Gzip, Encoding::Zstd, Encoding::Br];

#[test]
fn every_mode_gets_the_variants_asked_for_in_a_fixed_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    tree::write(dir.path(), &[("page.html", &text("a"))]);
    for mode in Mode::ALL {
        let manifest = Options::new(dir.path())
            .mode(mode)
            .precompress(ALL)
            .cache_dir(cache.path())
            .build()
            .expect("build");
        let entry = &manifest.entries[0];
        let encodings: Vec<Encoding> = entry.variants.iter().map(|v| v.encoding).collect();
        if mode == Mode::Gzip {
            assert!(matches!(entry.stored, Stored::Gzip { .. }));
            assert_eq!(
                encodings,
                [Encoding::Br, Encoding::Zstd],
                "gzip is the stored bytes"
            );
        } else {
            assert_eq!(entry.stored, Stored::Raw);
            assert_eq!(
                encodings,
                [Encoding::Br, Encoding::Zstd, Encoding::Gzip],
                "{mode}"
            );
        }
        let mut etags: Vec<&str> = entry.variants.iter().map(|v| v.etag.as_str()).collect();
        etags.push(&entry.etag);
        if let Stored::Gzip { etag, .. } = &entry.stored {
            etags.push(etag);
        }
        let count = etags.len();
        etags.sort_unstable();
        etags.dedup();
        assert_eq!(etags.len(), count, "every representation has its own ETag");
        for variant in &entry.variants {
            assert_eq!(
                std::fs::metadata(&variant.blob).expect("blob").len(),
                variant.len
            );
        }
    }
}

#[test]
fn a_rebuild_with_nothing_changed_compresses_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    tree::write(
        dir.path(),
        &[
            ("a.html", &text("a")),
            ("b.html", &text("b")),
            ("noise.bin", &tree::noise(8192, 3)),
        ],
    );
    let options = Options::new(dir.path())
        .mode(Mode::Static)
        .precompress(ALL)
        .cache_dir(cache.path());
    let first = options.build().expect("first build");
    let before = cached(cache.path());
    // Two texts x three encodings, and one "not worth it" marker per encoding for the noise.
    assert_eq!(before.len(), 9, "{before:#?}");

    let second = options.build().expect("second build");
    assert_eq!(first, second, "builds are deterministic");
    assert_eq!(
        cached(cache.path()),
        before,
        "nothing was compressed or rewritten"
    );

    tree::write(dir.path(), &[("a.html", &text("edited"))]);
    options.build().expect("third build");
    let after = cached(cache.path());
    assert_eq!(after.len(), 12, "three new blobs for the edited file only");
    for (name, changed) in &before {
        assert_eq!(after.get(name), Some(changed), "{name} was not rewritten");
    }
}

#[test]
fn a_variant_that_saves_under_five_percent_is_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    tree::write(
        dir.path(),
        &[
            ("noise.bin", &tree::noise(64 * 1024, 9)),
            ("empty.txt", b""),
        ],
    );
    let manifest = Options::new(dir.path())
        .precompress(ALL)
        .cache_dir(cache.path())
        .build()
        .expect("build");
    for entry in &manifest.entries {
        assert!(
            entry.variants.is_empty(),
            "{}: {:?}",
            entry.path,
            entry.variants
        );
    }
}

#[test]
fn blobs_are_the_same_bytes_whichever_cache_makes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("page.html", &text("same"))]);
    let blobs = |cache: &Path| -> Vec<Vec<u8>> {
        let manifest = Options::new(dir.path())
            .precompress(ALL)
            .cache_dir(cache)
            .build()
            .expect("build");
        manifest.entries[0]
            .variants
            .iter()
            .map(|variant| std::fs::read(&variant.blob).expect("blob"))
            .collect()
    };
    let (one, two) = (
        tempfile::tempdir().expect("one"),
        tempfile::tempdir().expect("two"),
    );
    assert_eq!(blobs(one.path()), blobs(two.path()));
}

#[test]
fn duplicate_encodings_are_refused_naming_the_encoding() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("a.txt", b"a")]);
    let error = Options::new(dir.path())
        .precompress([Encoding::Br, Encoding::Gzip, Encoding::Br])
        .build()
        .expect_err("refused");
    assert!(matches!(
        error,
        Error::DuplicateEncoding {
            encoding: Encoding::Br
        }
    ));
    assert_eq!(error.to_string(), "`br` is given twice in precompress");
}

/// The window a zstd frame asks its decoder for (RFC 8878 §3.1.1.1), in bytes.
fn zstd_window(frame: &[u8]) -> u64 {
    assert_eq!(frame[..4], [0x28, 0xB5, 0x2F, 0xFD], "zstd magic number");
    let descriptor = frame[4];
    let single_segment = descriptor & 0x20 != 0;
    assert!(!single_segment, "a large input has a window descriptor");
    let window = frame[5];
    let exponent = u64::from(window >> 3);
    let mantissa = u64::from(window & 7);
    let base = 1u64 << (10 + exponent);
    base + base / 8 * mantissa
}

#[test]
fn zstd_frames_stay_within_the_window_browsers_accept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    // 12 MiB: larger than the 8 MiB window, repetitive at long distance so a larger window
    // would pay.
    let block = tree::noise(3 << 20, 5);
    let large: Vec<u8> = block
        .iter()
        .chain(&block)
        .chain(&block)
        .chain(&block)
        .copied()
        .collect();
    tree::write(dir.path(), &[("large.bin", &large)]);
    let manifest = Options::new(dir.path())
        .precompress([Encoding::Zstd])
        .cache_dir(cache.path())
        .build()
        .expect("build");
    let variant = &manifest.entries[0].variants[0];
    let frame = std::fs::read(&variant.blob).expect("blob");
    let window = zstd_window(&frame);
    assert!(
        window <= 1 << ZSTD_WINDOW_LOG,
        "window {window} exceeds 8 MiB (RFC 9659)"
    );
    let decoded = zstd::decode_all(&frame[..]).expect("decodes");
    assert!(decoded == large, "round trip");
}
