//! What the service reads of a request, whichever framework it comes from: its method, path,
//! query and headers. `http::Request` and `http::request::Parts` have it; the framework adapters
//! implement it for their own request types, so no request is rebuilt to be served.

use http::HeaderName;

/// The parts of a request [`ServeCatalog`](super::ServeCatalog) decides from.
///
/// Implemented for `http::Request<B>` and `http::request::Parts`; implement it for another
/// framework's request type to serve a catalog there with
/// [`ServeCatalog::respond`](super::ServeCatalog::respond) or [`ServeCatalog::serve`](super::ServeCatalog::serve).
///
/// ```
/// use bindery::serve::RequestHead;
/// let request = http::Request::get("/app.js?v=2").header("range", "bytes=0-9").body(()).unwrap();
/// assert_eq!(request.method_name(), "GET");
/// assert_eq!(request.raw_path(), "/app.js");
/// assert_eq!(request.raw_query(), Some("v=2"));
/// assert_eq!(request.header_values(&http::header::RANGE).collect::<Vec<_>>(), [&b"bytes=0-9"[..]]);
/// ```
pub trait RequestHead {
    /// The method, e.g. `GET`.
    fn method_name(&self) -> &str;
    /// The path as it came on the wire (still percent-encoded), starting with `/`.
    fn raw_path(&self) -> &str;
    /// The query without its `?`, when there is one.
    fn raw_query(&self) -> Option<&str>;
    /// Every value of the header `name`, in the order received.
    fn header_values<'a>(&'a self, name: &HeaderName) -> impl Iterator<Item = &'a [u8]> + 'a;
}

impl<B> RequestHead for http::Request<B> {
    fn method_name(&self) -> &str {
        self.method().as_str()
    }

    fn raw_path(&self) -> &str {
        self.uri().path()
    }

    fn raw_query(&self) -> Option<&str> {
        self.uri().query()
    }

    fn header_values<'a>(&'a self, name: &HeaderName) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers()
            .get_all(name)
            .into_iter()
            .map(http::HeaderValue::as_bytes)
    }
}

impl RequestHead for http::request::Parts {
    fn method_name(&self) -> &str {
        self.method.as_str()
    }

    fn raw_path(&self) -> &str {
        self.uri.path()
    }

    fn raw_query(&self) -> Option<&str> {
        self.uri.query()
    }

    fn header_values<'a>(&'a self, name: &HeaderName) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers
            .get_all(name)
            .into_iter()
            .map(http::HeaderValue::as_bytes)
    }
}

/// A header value as text, when it is visible ASCII (tabs and spaces allowed), as
/// `HeaderValue::to_str` takes it; anything else is treated as malformed.
pub(crate) fn text(value: &[u8]) -> Option<&str> {
    value
        .iter()
        .all(|&byte| byte == b'\t' || (0x20..0x7f).contains(&byte))
        .then(|| std::str::from_utf8(value).ok())
        .flatten()
}

/// The first value of `name` as text, if there is one and it is well formed.
pub(crate) fn first_text<'a>(request: &'a impl RequestHead, name: &HeaderName) -> Option<&'a str> {
    request.header_values(name).next().and_then(text)
}
