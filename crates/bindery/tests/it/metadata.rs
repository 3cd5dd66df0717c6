//! Metadata computed at build time: ETags, media types, lengths.

use crate::catalogs::{self, GZIP, STATIC};
use crate::fixtures;

#[test]
fn etag_is_a_quoted_content_hash_equal_for_equal_content() {
    let one = STATIC.file("copies/one.txt").expect("one");
    let two = STATIC.file("copies/two.txt").expect("two");
    assert_eq!(one.etag(), two.etag());
    assert_ne!(one.etag(), STATIC.file("hello.txt").expect("hello").etag());
    for (path, bytes) in fixtures::files() {
        let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
        let expected = format!("\"{}\"", &hash[..32]);
        for (name, catalog) in catalogs::all() {
            assert_eq!(
                catalog.file(&path).expect("present").etag(),
                expected,
                "{name}: {path}"
            );
        }
    }
}

#[test]
fn etag_is_stable_across_builds_and_machines() {
    // Golden value: XXH3-128 of "Hello, bindery!\n", by the reference C implementation
    // (`python -c "import xxhash; print(xxhash.xxh3_128_hexdigest(b'Hello, bindery!\\n'))"`).
    // A change here breaks every cache in the field.
    assert_eq!(
        STATIC.file("hello.txt").expect("hello").etag(),
        "\"2a35b79c6580a9c806dda462bf34e6b8\""
    );
}

#[test]
fn gzip_representation_has_its_own_etag() {
    let page = GZIP.file("index.html").expect("index");
    let gzip_etag = page.gzip_etag().expect("compressed");
    assert_ne!(gzip_etag, page.etag());
    assert!(gzip_etag.starts_with('"') && gzip_etag.ends_with('"'));
    assert_eq!(
        page.etag(),
        STATIC.file("index.html").expect("index").etag()
    );
}

#[test]
fn mime_types_come_from_the_file_name() {
    let expected = [
        ("index.html", "text/html", "text/html; charset=utf-8"),
        (
            "app.js",
            "text/javascript",
            "text/javascript; charset=utf-8",
        ),
        ("style.css", "text/css", "text/css; charset=utf-8"),
        (
            "images/logo.svg",
            "image/svg+xml",
            "image/svg+xml; charset=utf-8",
        ),
        ("images/pixel.png", "image/png", "image/png"),
        ("module.wasm", "application/wasm", "application/wasm"),
        (
            "data.json",
            "application/json",
            "application/json; charset=utf-8",
        ),
        (
            "notes.unknownext",
            "application/octet-stream",
            "application/octet-stream",
        ),
        (
            "random.bin",
            "application/octet-stream",
            "application/octet-stream",
        ),
    ];
    for (path, mime, content_type) in expected {
        for (name, catalog) in catalogs::all() {
            let file = catalog.file(path).expect(path);
            assert_eq!(file.mime(), mime, "{name}: {path}");
            assert_eq!(file.content_type(), content_type, "{name}: {path}");
        }
    }
}

#[test]
fn modification_times_are_left_out_unless_asked_for() {
    assert!(STATIC.iter().all(|file| file.modified().is_none()));
    static TIMED: bindery::Catalog = bindery::embed!(
        "../../assets/fixtures",
        include = "hello.txt",
        modified = true
    );
    let modified = TIMED
        .file("hello.txt")
        .expect("hello")
        .modified()
        .expect("recorded");
    let on_disk = std::fs::metadata(fixtures::root().join("hello.txt"))
        .and_then(|metadata| metadata.modified())
        .expect("mtime");
    let difference = on_disk
        .duration_since(modified)
        .unwrap_or_else(|error| error.duration());
    assert!(difference.as_secs() < 1, "{difference:?}");
}

#[test]
fn empty_file_is_a_real_empty_entry() {
    for (name, catalog) in catalogs::all() {
        let file = catalog.file("empty.txt").expect("empty.txt");
        assert!(file.is_empty(), "{name}");
        assert_eq!(
            catalog.get("empty.txt").expect("present").len(),
            0,
            "{name}"
        );
    }
}
