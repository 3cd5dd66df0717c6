//! The two front doors give one catalog: for every mode, the generated module and `embed!` hold
//! the same paths in the same order, the same bytes, ETags, media types, lengths, gzip blobs and
//! precompressed variants.

use bindery::Catalog;

static MACRO_STATIC: Catalog = bindery::embed!("../../assets/fixtures", mode = "static");
static MACRO_GZIP: Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
static MACRO_COPY: Catalog = bindery::embed!("../../assets/fixtures", mode = "copy");
static MACRO_SPA: Catalog = bindery::embed!(
    "../../assets/spa",
    mode = "gzip",
    precompress = ["br", "zstd"]
);

fn assert_same(generated: &Catalog, by_macro: &Catalog) {
    assert_eq!(generated.mode(), by_macro.mode());
    assert_eq!(generated.prefix(), by_macro.prefix());
    let generated_paths: Vec<&str> = generated.iter().map(|file| file.path()).collect();
    let macro_paths: Vec<&str> = by_macro.iter().map(|file| file.path()).collect();
    assert_eq!(generated_paths, macro_paths);
    assert!(!generated_paths.is_empty());
    for (left, right) in generated.iter().zip(by_macro.iter()) {
        let path = left.path();
        assert_eq!(left.len(), right.len(), "{path}");
        assert_eq!(left.etag(), right.etag(), "{path}");
        assert_eq!(left.gzip_etag(), right.gzip_etag(), "{path}");
        assert_eq!(left.mime(), right.mime(), "{path}");
        assert_eq!(left.content_type(), right.content_type(), "{path}");
        assert_eq!(left.modified(), right.modified(), "{path}");
        assert_eq!(left.gzip(), right.gzip(), "{path}: stored gzip bytes");
        assert_eq!(left.raw(), right.raw(), "{path}: stored raw bytes");
        for encoding in bindery::Encoding::ALL {
            assert_eq!(
                left.encoded(encoding),
                right.encoded(encoding),
                "{path}: {encoding}"
            );
            assert_eq!(
                left.encoded_etag(encoding),
                right.encoded_etag(encoding),
                "{path}: {encoding} ETag"
            );
        }
        assert_eq!(generated.get(path), by_macro.get(path), "{path}: get");
    }
}

#[test]
fn static_mode_is_identical() {
    assert_same(&bindata_demo::FIXTURES_STATIC, &MACRO_STATIC);
}

#[test]
fn gzip_mode_is_identical() {
    assert_same(&bindata_demo::FIXTURES_GZIP, &MACRO_GZIP);
    assert!(
        bindata_demo::FIXTURES_GZIP
            .iter()
            .any(|file| file.gzip().is_some())
    );
}

#[test]
fn copy_mode_is_identical() {
    assert_same(&bindata_demo::FIXTURES_COPY, &MACRO_COPY);
}

#[test]
fn the_spa_is_identical() {
    assert_same(&bindata_demo::SPA, &MACRO_SPA);
    let script = bindata_demo::SPA.file("app.js").expect("app.js");
    assert_eq!(
        script.encodings().collect::<Vec<_>>(),
        bindery::Encoding::ALL,
        "the SPA's script carries every variant"
    );
}

#[test]
fn every_generated_file_reads_back_as_on_disk() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/fixtures");
    for catalog in [
        &bindata_demo::FIXTURES_STATIC,
        &bindata_demo::FIXTURES_GZIP,
        &bindata_demo::FIXTURES_COPY,
    ] {
        for file in catalog {
            let on_disk = std::fs::read(root.join(file.path())).expect("fixture");
            assert_eq!(
                &*catalog.get(file.path()).expect("present"),
                &on_disk[..],
                "{}",
                file.path()
            );
        }
    }
}
