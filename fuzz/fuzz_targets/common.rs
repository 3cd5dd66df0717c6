//! Shared by the targets: the fixture catalog, sending a request, reading a body.

// Each target uses a part of this module.
#![allow(dead_code)]

use bindery::Catalog;
use bindery::serve::ServeCatalog;
use http::Response;

pub static FIXTURES: Catalog = bindery::embed!("../assets/fixtures", mode = "gzip");

/// The fixtures and the SPA in `static` mode with every variant.
pub static PRECOMPRESSED: Catalog = bindery::embed!(
    "../assets",
    mode = "static",
    include = ["fixtures/**", "spa/**"],
    precompress = ["br", "zstd", "gzip"]
);

pub fn service() -> ServeCatalog {
    ServeCatalog::builder(&FIXTURES)
        .spa_fallback("index.html")
        .build()
        .expect("the fixtures have index.html")
}

/// [`service`] under `/mnt`.
pub fn mounted_service() -> ServeCatalog {
    ServeCatalog::builder(&FIXTURES)
        .spa_fallback("index.html")
        .mounted_at("/mnt")
        .build()
        .expect("the fixtures have index.html")
}

pub fn precompressed_service() -> ServeCatalog {
    ServeCatalog::new(&PRECOMPRESSED)
}

/// A response's head and its whole body.
pub fn body(response: Response<bindery::serve::Body>) -> (Response<()>, Vec<u8>) {
    let (parts, body) = response.into_parts();
    (Response::from_parts(parts, ()), body.into_bytes().to_vec())
}

/// The identity bytes of the asset whose (identity or gzip) ETag this is.
pub fn asset_for_etag(etag: &str) -> Option<&'static bindery::EmbeddedFile> {
    FIXTURES
        .iter()
        .find(|file| file.etag() == etag || file.gzip_etag() == Some(etag))
}

/// The fixture file picked by a fuzzer byte, and the request URI that names it.
pub fn pick(which: u8) -> (&'static bindery::EmbeddedFile, String) {
    pick_in(&FIXTURES, which)
}

/// A file of `catalog` picked by a fuzzer byte, and the request URI that names it.
pub fn pick_in(catalog: &'static Catalog, which: u8) -> (&'static bindery::EmbeddedFile, String) {
    let files = catalog.files();
    let file = &files[usize::from(which) % files.len()];
    (file, bindery_test_support::uri_path(file.path()))
}
