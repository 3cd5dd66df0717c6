//! tower-http 0.7's `ServeDir` over a catalog (`bindery::tower_http::CatalogBackend`): files,
//! folders, ranges, precompressed variants, misses and escapes, and what its ETags need.

use bindery::Catalog;
use bindery::tower_http::CatalogBackend;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;
use tower_http::services::ServeDir;

use crate::support::{GZIP, SPA, STATIC, TIMED};

struct Reply {
    status: StatusCode,
    headers: http::HeaderMap,
    body: bytes::Bytes,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

async fn get(
    service: ServeDir<tower_http::services::fs::DefaultServeDirFallback, CatalogBackend>,
    uri: &str,
    headers: &[(&str, &str)],
) -> Reply {
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = service
        .oneshot(
            request
                .body(http_body_util::Empty::<bytes::Bytes>::new())
                .expect("request"),
        )
        .await
        .expect("infallible");
    let (parts, body) = response.into_parts();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.expect("body").to_bytes(),
    }
}

fn serve_dir(
    catalog: &'static Catalog,
) -> ServeDir<tower_http::services::fs::DefaultServeDirFallback, CatalogBackend> {
    ServeDir::with_backend("", CatalogBackend::new(catalog))
}

fn on_disk(path: &str) -> Vec<u8> {
    std::fs::read(format!("../../assets/fixtures/{path}")).expect("fixture")
}

#[tokio::test]
async fn files_folders_and_ranges_come_from_the_catalog_in_every_mode() {
    for catalog in [&STATIC, &GZIP] {
        let hello = get(serve_dir(catalog), "/hello.txt", &[]).await;
        assert_eq!(hello.status, StatusCode::OK);
        assert_eq!(hello.body, on_disk("hello.txt"));
        assert_eq!(hello.header("content-type"), Some("text/plain"));
        let folder = get(serve_dir(catalog), "/docs/", &[]).await;
        assert_eq!(
            folder.body,
            on_disk("docs/index.html"),
            "index.html of a folder"
        );
        let redirect = get(serve_dir(catalog), "/docs", &[]).await;
        assert_eq!(redirect.status, StatusCode::TEMPORARY_REDIRECT);
        let part = get(serve_dir(catalog), "/hello.txt", &[("range", "bytes=0-4")]).await;
        assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(&part.body[..], &on_disk("hello.txt")[..5]);
        let spaced = get(serve_dir(catalog), "/with%20space.txt", &[]).await;
        assert_eq!(spaced.body, on_disk("with space.txt"));
    }
}

#[tokio::test]
async fn misses_and_escapes_find_nothing() {
    for uri in [
        "/missing.txt",
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/images/../../x",
        "/hello.txt.br",
    ] {
        let reply = get(serve_dir(&STATIC), uri, &[]).await;
        assert!(
            matches!(
                reply.status,
                StatusCode::NOT_FOUND | StatusCode::BAD_REQUEST
            ),
            "{uri}: {}",
            reply.status
        );
    }
}

#[tokio::test]
async fn precompressed_variants_are_the_siblings_serve_dir_asks_for() {
    let app = SPA.file("app.js").expect("app.js");
    let service = || {
        serve_dir(&SPA)
            .precompressed_br()
            .precompressed_zstd()
            .precompressed_gzip()
    };
    let br = get(service(), "/app.js", &[("accept-encoding", "br")]).await;
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(Some(&br.body[..]), app.encoded(bindery::Encoding::Br));
    let gzip = get(service(), "/app.js", &[("accept-encoding", "gzip")]).await;
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert_eq!(Some(&gzip.body[..]), app.gzip(), "the stored gzip blob");
    let identity = get(service(), "/app.js", &[]).await;
    assert_eq!(identity.header("content-encoding"), None);
    assert_eq!(&identity.body[..], &SPA.get("app.js").expect("app.js")[..]);
}

#[tokio::test]
async fn etags_and_304_need_recorded_times() {
    let plain = get(serve_dir(&STATIC), "/hello.txt", &[]).await;
    assert_eq!(plain.header("etag"), None, "no time, no ServeDir ETag");
    assert_eq!(plain.header("last-modified"), None);
    let timed = get(serve_dir(&TIMED), "/hello.txt", &[]).await;
    let etag = timed
        .header("etag")
        .expect("an ETag from length and time")
        .to_owned();
    assert!(timed.header("last-modified").is_some());
    let again = get(serve_dir(&TIMED), "/hello.txt", &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn a_stored_variant_is_a_url_of_its_own_as_a_sibling_on_disk_is() {
    // What docs/frameworks.md and the module docs say: `ServeDir` asks for `app.js.gz` by name.
    let reply = get(serve_dir(&GZIP), "/app.js.gz", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some("application/gzip"));
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&reply.body[..]),
        &mut decoded,
    )
    .expect("gzip");
    assert_eq!(decoded, GZIP.get("app.js").expect("embedded").into_owned());
}
