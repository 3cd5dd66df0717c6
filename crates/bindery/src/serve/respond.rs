//! From request to response, in two stages: [`decide`](ServeCatalog::decide) what the request
//! gets (decide.rs), then [`build`](ServeCatalog::build) the response (response.rs).

use http::{Request, Response};

use super::head::RequestHead;
use super::inflate::Failure;
use super::response::{Slice, busy, internal_error, with_body};
use super::{Body, ServeCatalog};
use crate::EmbeddedFile;

impl ServeCatalog {
    /// Answers one request. The tower `Service` calls this; it is public so that other
    /// frameworks, and tests, can use the service without a runtime.
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    ///
    /// let ok = service.respond(&Request::get("/hello.txt").body(()).unwrap());
    /// assert_eq!(ok.status(), StatusCode::OK);
    /// let missing = service.respond(&Request::get("/nope.txt").body(()).unwrap());
    /// assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    /// let escape = service.respond(&Request::get("/%2e%2e/Cargo.toml").body(()).unwrap());
    /// assert_eq!(escape.status(), StatusCode::BAD_REQUEST);
    /// ```
    pub fn respond<B>(&self, request: &Request<B>) -> Response<Body> {
        self.respond_to(request)
    }

    /// [`respond`](Self::respond) for a request of any framework: anything that gives its
    /// method, path, query and headers ([`RequestHead`]).
    ///
    /// ```
    /// use http::StatusCode;
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// let (parts, ()) = http::Request::head("/hello.txt").body(()).unwrap().into_parts();
    /// assert_eq!(service.respond_to(&parts).status(), StatusCode::OK);
    /// ```
    pub fn respond_to(&self, request: &impl RequestHead) -> Response<Body> {
        match self.build(self.decide(request), request) {
            Answer::Ready(response) => response,
            Answer::Deferred(deferred) => deferred.finish(),
        }
    }
}

/// What a request gets: a response now, or one whose body still needs a large decompression.
pub(super) enum Answer {
    Ready(Response<Body>),
    Deferred(Deferred),
}

/// A response whose identity body is still to be decompressed: [`finish`](Self::finish) does it
/// (the service runs it on the blocking pool, so one large file never stalls an async worker).
pub(super) struct Deferred {
    pub(super) service: ServeCatalog,
    pub(super) file: &'static EmbeddedFile,
    pub(super) index: Option<usize>,
    pub(super) response: Response<Body>,
    pub(super) slice: Slice,
}

impl Deferred {
    /// Decompresses in place (or takes from the cache) and returns the finished response: for
    /// callers without a runtime.
    pub(super) fn finish(self) -> Response<Body> {
        self.service
            .fill_identity_body(self.file, self.index, self.response, self.slice)
    }

    /// Decompresses within the service's bounds (inflate.rs) and returns the finished
    /// response: the body, 503 with `Retry-After` when no turn came in time, or 500 for bytes
    /// that do not decompress to the file.
    pub(super) async fn finish_bounded(self) -> Response<Body> {
        let Deferred {
            service,
            file,
            index,
            response,
            slice,
        } = self;
        let cache = service.cache.clone().zip(index);
        if let Some(body) = cache.as_ref().and_then(|(cache, index)| cache.get(*index)) {
            return with_body(file, response, slice, body);
        }
        let upto = slice.upto(file.len());
        match service.inflater.body(file, upto, cache).await {
            Ok(body) => with_body(file, response, slice, body),
            Err(Failure::Busy) => busy(),
            Err(Failure::Corrupt) => internal_error(),
        }
    }
}
