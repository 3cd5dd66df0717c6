//! Every file reads back byte-exact in every mode, through `get`, `file().contents()` and `restore`.

use std::borrow::Cow;
use std::io::Read;

use bindery::Mode;

use crate::catalogs::{self, COPY, GZIP, STATIC};
use crate::fixtures;

#[test]
fn every_mode_holds_exactly_the_fixture_files() {
    let expected: Vec<String> = fixtures::files()
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    assert!(
        expected.len() >= 18,
        "fixture tree is complete: {expected:?}"
    );
    for (name, catalog) in catalogs::all() {
        let paths: Vec<&str> = catalog.iter().map(|file| file.path()).collect();
        assert_eq!(paths, expected, "{name}");
        assert_eq!(catalog.len(), expected.len(), "{name}");
    }
}

#[test]
fn every_file_reads_back_byte_exact_in_every_mode() {
    for (path, bytes) in fixtures::files() {
        for (name, catalog) in catalogs::all() {
            let got = catalog
                .get(&path)
                .unwrap_or_else(|| panic!("{name}: {path} missing"));
            assert_eq!(&*got, &bytes[..], "{name}: {path}");
            let file = catalog.file(&path).expect("file");
            assert_eq!(
                &*file.contents().expect("decodes"),
                &bytes[..],
                "{name}: {path}"
            );
            assert_eq!(file.len(), bytes.len(), "{name}: {path}");
        }
    }
}

#[test]
fn static_mode_borrows_and_copy_mode_copies() {
    for file in STATIC.iter() {
        assert!(
            matches!(STATIC.get(file.path()), Some(Cow::Borrowed(_))),
            "{}",
            file.path()
        );
        assert!(file.gzip().is_none());
        // The borrowed slice is the very bytes in the binary: two reads give the same pointer.
        let first = STATIC.get(file.path()).expect("present");
        let second = STATIC.get(file.path()).expect("present");
        assert_eq!(first.as_ptr(), second.as_ptr());
    }
    for file in COPY.iter() {
        assert!(
            matches!(COPY.get(file.path()), Some(Cow::Owned(_))),
            "{}",
            file.path()
        );
    }
    assert_eq!(STATIC.mode(), Mode::Static);
    assert_eq!(COPY.mode(), Mode::Copy);
}

#[test]
fn gzip_mode_stores_compressible_files_compressed_and_the_rest_raw() {
    assert_eq!(GZIP.mode(), Mode::Gzip);
    let page = GZIP.file("index.html").expect("index.html");
    let blob = page.gzip().expect("markup compresses well");
    assert!(
        blob.len() * 4 < page.len(),
        "{} vs {}",
        blob.len(),
        page.len()
    );
    assert!(page.raw().is_none());
    assert!(matches!(GZIP.get("index.html"), Some(Cow::Owned(_))));

    for incompressible in ["random.bin", "empty.txt", "images/pixel.png"] {
        let file = GZIP.file(incompressible).expect(incompressible);
        assert!(
            file.gzip().is_none(),
            "{incompressible} should be stored raw"
        );
        assert!(file.gzip_etag().is_none());
        assert!(matches!(GZIP.get(incompressible), Some(Cow::Borrowed(_))));
    }
}

#[test]
fn every_stored_gzip_blob_decompresses_to_the_source() {
    let mut compressed = Vec::new();
    for (path, bytes) in fixtures::files() {
        let file = GZIP.file(&path).expect("present");
        if let Some(blob) = file.gzip() {
            let mut decoded = Vec::new();
            flate2::read::GzDecoder::new(blob)
                .read_to_end(&mut decoded)
                .expect("valid gzip");
            assert_eq!(decoded, bytes, "{path}");
            compressed.push(path);
        }
    }
    // Tiny files gain less than 5% from gzip and stay raw; the larger text files compress.
    assert_eq!(compressed, ["app.js", "index.html", "style.css"]);
}

#[test]
fn restore_writes_the_tree_back() {
    for (name, catalog) in catalogs::all() {
        let target = tempfile::tempdir().expect("tempdir");
        catalog.restore(target.path()).expect("restore");
        for (path, bytes) in fixtures::files() {
            let restored = std::fs::read(target.path().join(&path))
                .unwrap_or_else(|error| panic!("{name}: {path}: {error}"));
            assert_eq!(restored, bytes, "{name}: {path}");
        }
    }
}

#[test]
fn restore_into_a_file_is_an_error_naming_it() {
    let target = tempfile::tempdir().expect("tempdir");
    let blocker = target.path().join("not-a-folder");
    std::fs::write(&blocker, b"x").expect("write");
    let error = STATIC
        .restore(&blocker)
        .expect_err("cannot restore into a file");
    assert!(error.to_string().contains("not-a-folder"), "{error}");
}
