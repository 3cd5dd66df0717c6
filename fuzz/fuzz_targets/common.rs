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
    ServeCatalog::new(&FIXTURES).spa_fallback("index.html")
}

/// [`service`] under `/mnt`.
pub fn mounted_service() -> ServeCatalog {
    service().mounted_at("/mnt")
}

pub fn precompressed_service() -> ServeCatalog {
    ServeCatalog::new(&PRECOMPRESSED)
}

/// The whole body of a `Full` response, without a runtime.
pub fn body(response: Response<bindery::serve::Body>) -> (Response<()>, Vec<u8>) {
    use http_body_util::BodyExt;
    let (parts, body) = response.into_parts();
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    let mut future = std::pin::pin!(body.collect());
    let bytes = match future.as_mut().poll(&mut context) {
        std::task::Poll::Ready(Ok(collected)) => collected.to_bytes().to_vec(),
        _ => panic!("a Full body is ready at once"),
    };
    (Response::from_parts(parts, ()), bytes)
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
