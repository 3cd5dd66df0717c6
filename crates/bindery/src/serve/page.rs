//! A page the application renders (a template with the entry's tags, say), made into a file the
//! service can serve: its SPA fallback and 404 page can then be the same page, with the same
//! headers, as the application's own route sends ([`ServeCatalog::with_spa_page`]).
//!
//! [`ServeCatalog::with_spa_page`]: crate::serve::ServeCatalog::with_spa_page

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, X_CONTENT_TYPE_OPTIONS};
use http::{HeaderName, HeaderValue, Response, StatusCode};

use crate::EmbeddedFile;
use crate::serve::body::Body;
use crate::serve::cache_control::NO_CACHE;

/// A rendered HTML page and the headers it is sent with (a `Content-Security-Policy` with its
/// scripts' hashes, a `Link` of preloads…), always as `text/html; charset=utf-8` with
/// `Cache-Control: no-cache`, `X-Content-Type-Options: nosniff` and a strong ETag of its bytes.
/// Give it to [`ServeCatalog::with_spa_page`](super::ServeCatalog::with_spa_page) so that deep
/// links get it, and send [`response`](Self::response) from the application's own route for it,
/// if it has one.
///
/// ```
/// use bindery::serve::Page;
/// let page = Page::new("<!doctype html><div id=app></div>")
///     .header(http::header::CONTENT_SECURITY_POLICY, http::HeaderValue::from_static("default-src 'self'"));
/// let response = page.response();
/// assert_eq!(response.headers()["content-type"], "text/html; charset=utf-8");
/// assert_eq!(response.headers()["x-content-type-options"], "nosniff");
/// assert_eq!(response.headers()["cache-control"], "no-cache");
/// assert_eq!(response.headers()["content-security-policy"], "default-src 'self'");
/// ```
#[derive(Debug, Clone)]
pub struct Page {
    html: Bytes,
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl Page {
    /// `html`, with no header of its own yet.
    pub fn new(html: impl Into<Bytes>) -> Page {
        Page {
            html: html.into(),
            headers: Vec::new(),
        }
    }

    /// Sends `value` as `name` with the page, replacing a value set before. The headers the
    /// service writes itself (`Content-Type`, `Cache-Control`, `ETag`, `Content-Length`…) are
    /// the page's as described above whatever is set here.
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Page {
        self.headers.retain(|(known, _)| *known != name);
        self.headers.push((name, value));
        self
    }

    /// The page's HTML.
    pub fn html(&self) -> &[u8] {
        &self.html
    }

    /// The headers set with [`header`](Self::header), in order.
    pub fn headers(&self) -> &[(HeaderName, HeaderValue)] {
        &self.headers
    }

    /// Its strong ETag: the XXH3-128 of its bytes, quoted, as a catalog file's.
    pub fn etag(&self) -> String {
        etag_of(&self.html)
    }

    /// The page as an answer of its own (200, every header above): what the application's
    /// route for it sends. A `ServeCatalog` given the page answers conditional requests and
    /// `HEAD` for it too.
    pub fn response(&self) -> Response<Body> {
        let mut response = Response::new(Body::from(self.html.clone()));
        *response.status_mut() = StatusCode::OK;
        let headers = response.headers_mut();
        for (name, value) in &self.headers {
            headers.insert(name.clone(), value.clone());
        }
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(HTML));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static(NO_CACHE));
        headers.insert(
            X_CONTENT_TYPE_OPTIONS,
            crate::serve::stages::response::NOSNIFF,
        );
        if let Ok(etag) = HeaderValue::try_from(self.etag()) {
            headers.insert(ETAG, etag);
        }
        response
    }

    /// The page as a file of the program's life, named `path` (made once per service that is
    /// given it: the service's tables hold `'static` files).
    pub(crate) fn leak_as_file(&self, path: &str) -> &'static EmbeddedFile {
        let data: &'static [u8] = Vec::leak(self.html.to_vec());
        let info = Box::leak(Box::new(crate::layout::Info::plain(
            data,
            "text/html",
            HTML,
        )));
        Box::leak(Box::new(EmbeddedFile {
            __name: String::leak(format!("{path}{}", etag_of(data))),
            __start: 0,
            __len: data.len(),
            __info: info,
            // A page is sent, never linked with `integrity`.
            __sha256: None,
            __integrity: None,
        }))
    }
}

/// The page's media type.
const HTML: &str = "text/html; charset=utf-8";

/// The strong ETag of `bytes`: a catalog file's (their content hash, XXH3-128, made into an
/// ETag as every build makes one).
fn etag_of(bytes: &[u8]) -> String {
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes));
    crate::facts::contract::etag(&hash, crate::facts::contract::Tagged::File)
}

#[cfg(test)]
mod tests {
    use super::Page;

    #[test]
    fn a_page_has_a_strong_etag_of_its_bytes_and_keeps_one_value_per_header() {
        let page = Page::new("<p>one</p>")
            .header(
                http::header::LINK,
                http::HeaderValue::from_static("</a.js>"),
            )
            .header(
                http::header::LINK,
                http::HeaderValue::from_static("</b.js>"),
            );
        assert_eq!(page.headers().len(), 1);
        assert_eq!(page.etag().len(), crate::facts::contract::ETAG_LEN);
        assert_ne!(page.etag(), Page::new("<p>two</p>").etag());
        let file = page.leak_as_file("index.html");
        assert_eq!(file.path(), "index.html");
        assert_eq!(file.etag(), page.etag());
        assert_eq!(file.content_type(), "text/html; charset=utf-8");
        assert_eq!(&file.contents().expect("bytes")[..], b"<p>one</p>");
    }
}
