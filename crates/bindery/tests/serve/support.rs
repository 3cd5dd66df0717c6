//! Catalogs and a one-request helper.

use bindery::Catalog;
use bindery::serve::ServeCatalog;
use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

pub static GZIP: Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
pub static STATIC: Catalog = bindery::embed!("../../assets/fixtures", mode = "static");
pub static COPY: Catalog = bindery::embed!("../../assets/fixtures", mode = "copy");
pub static TIMED: Catalog =
    bindery::embed!("../../assets/fixtures", mode = "gzip", modified = true);
/// The showcase's SPA as geo-server embeds it: gzip storage plus brotli and zstd variants.
pub static SPA: Catalog = bindery::embed!(
    "../../assets/spa",
    mode = "gzip",
    precompress = ["br", "zstd"]
);
/// Vue's minified script in `static` mode with every variant.
pub static VUE: Catalog = bindery::embed!(
    "../../benches/assets/web",
    include = ["vue.min.js"],
    precompress = ["br", "zstd", "gzip"]
);

/// The fixtures with fingerprinted names (`app.<hash>.js`), for what an overlay may serve under
/// them.
pub static FINGERPRINTED: Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);

/// Vue's minified script (105 KiB) stored gzip: decompressed for clients without gzip.
pub static VUE_GZIP: Catalog = bindery::embed!(
    "../../benches/assets/web",
    include = ["vue.min.js"],
    mode = "gzip"
);

/// What came back.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    /// A header as text, or "" when absent.
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map(|value| value.to_str().expect("ASCII header"))
            .unwrap_or("")
    }
}

/// Sends one request through the service with `oneshot`.
pub async fn send(service: &ServeCatalog, request: Request<()>) -> Reply {
    let response = service.clone().oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("full body").to_bytes();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// GET `uri` with the given headers.
pub async fn get(service: &ServeCatalog, uri: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(service, request.body(()).expect("valid request")).await
}

/// A file of the repository's `assets/` or `benches/assets/` folders, by path from the root.
pub fn repository_file(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(path),
    )
    .expect("file exists")
}

/// The fixture file's bytes on disk.
pub fn on_disk(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/fixtures")
            .join(path),
    )
    .expect("fixture exists")
}
