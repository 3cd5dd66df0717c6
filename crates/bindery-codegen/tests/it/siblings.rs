//! `siblings = true`: the `.br`, `.gz` and `.zst` files beside a file become its
//! variants once they decode to exactly it; anything else is an error naming both files.

use std::io::Write as _;
use std::path::Path;

use bindery_codegen::{Encoding, Error, Mode, Options, Stored};

fn text() -> Vec<u8> {
    "export const answer = 42; // siblings\n"
        .repeat(300)
        .into_bytes()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
        writer.write_all(bytes).expect("brotli");
    }
    out
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 19).expect("zstd")
}

fn build(root: &Path, mode: Mode) -> Result<bindery_codegen::Manifest, Error> {
    let cache = root.parent().expect("parent").join("cache");
    Options::new(root)
        .mode(mode)
        .siblings(true)
        .cache_dir(cache)
        .build()
}

fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("site")).expect("site");
    dir
}

#[test]
fn siblings_become_the_files_variants_byte_for_byte_and_are_not_listed() {
    let dir = site();
    let root = dir.path().join("site");
    let original = text();
    let (br, gz, zst) = (brotli(&original), gzip(&original), zstd(&original));
    std::fs::write(root.join("app.js"), &original).expect("write");
    std::fs::write(root.join("app.js.br"), &br).expect("write");
    std::fs::write(root.join("app.js.gz"), &gz).expect("write");
    std::fs::write(root.join("app.js.zst"), &zst).expect("write");
    // No `orphan` beside it: a file of its own.
    std::fs::write(root.join("orphan.gz"), gzip(b"alone")).expect("write");

    for round in 0..2 {
        let manifest = build(&root, Mode::Static).expect("build");
        let paths: Vec<&str> = manifest
            .entries
            .iter()
            .map(|entry| entry.path.as_str())
            .collect();
        assert_eq!(paths, ["app.js", "orphan.gz"], "round {round}");
        let app = &manifest.entries[0];
        let variants: Vec<(Encoding, Vec<u8>)> = app
            .variants
            .iter()
            .map(|variant| {
                (
                    variant.encoding,
                    std::fs::read(&variant.blob).expect("blob"),
                )
            })
            .collect();
        assert_eq!(
            variants,
            [
                (Encoding::Br, br.clone()),
                (Encoding::Zstd, zst.clone()),
                (Encoding::Gzip, gz.clone())
            ],
            "round {round}: the siblings' own bytes"
        );
        assert!(manifest.entries[1].variants.is_empty());
    }

    // In gzip mode the `.gz` sibling is the stored form.
    let manifest = build(&root, Mode::Gzip).expect("build");
    match &manifest.entries[0].stored {
        Stored::Gzip { blob, .. } => assert_eq!(std::fs::read(blob).expect("blob"), gz),
        other => panic!("stored {other:?}"),
    }
}

#[test]
fn a_sibling_that_does_not_decode_to_its_file_is_an_error_naming_both() {
    let original = text();
    let mut other = original.clone();
    other[10] ^= 1;
    let mut longer = original.clone();
    longer.extend_from_slice(b"more");
    let mut two_members = gzip(&original[..100]);
    two_members.extend(gzip(&original[100..]));
    let cases: [(&str, Vec<u8>, &str); 5] = [
        (
            "app.js.br",
            brotli(&other),
            "decodes to 11400 bytes that differ from the file's",
        ),
        (
            "app.js.zst",
            zstd(&original[1..]),
            "decodes to 11399 bytes, the file has 11400",
        ),
        (
            "app.js.gz",
            gzip(&longer),
            "decodes to more than the file's 11400 bytes",
        ),
        (
            "app.js.gz",
            b"not gzip at all".repeat(10),
            "it is not valid gzip",
        ),
        (
            "app.js.gz",
            two_members,
            "bytes follow the first gzip member",
        ),
    ];
    for (name, bytes, reason) in cases {
        let dir = site();
        let root = dir.path().join("site");
        std::fs::write(root.join("app.js"), &original).expect("write");
        std::fs::write(root.join(name), &bytes).expect("write");
        let error = build(&root, Mode::Static).expect_err("refused");
        let message = error.to_string();
        assert!(matches!(error, Error::SiblingMismatch { .. }), "{message}");
        assert!(
            message.contains(name) && message.contains("app.js`"),
            "{message}"
        );
        assert!(message.contains(reason), "{name}: {message}");
    }
}

#[test]
fn a_sibling_that_saves_too_little_is_left_out() {
    let dir = site();
    let root = dir.path().join("site");
    let noise = bindery_test_support::noise(4096, 7);
    std::fs::write(root.join("noise.bin"), &noise).expect("write");
    std::fs::write(root.join("noise.bin.gz"), gzip(&noise)).expect("write");
    let manifest = build(&root, Mode::Static).expect("build");
    assert_eq!(manifest.entries.len(), 1);
    assert!(manifest.entries[0].variants.is_empty());
}
