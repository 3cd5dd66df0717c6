//! Building the response for an [`Outcome`]: status, headers and body, the body lent from the
//! binary, sent as stored, taken from the cache, or, for a large decompression, left as work.

use std::borrow::Cow;

use bytes::Bytes;
use http::header::{
    ACCEPT_RANGES, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE,
    CONTENT_TYPE, ETAG, LAST_MODIFIED, LOCATION, VARY, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderValue, Request, Response, StatusCode};

use super::decide::{Outcome, Part, Served};
use super::respond::{Answer, Deferred};
use super::{Body, ServeCatalog};
use crate::{EmbeddedFile, Mode};

impl ServeCatalog {
    /// The response for `outcome`; HEAD gets GET's headers and no body.
    pub(super) fn build<B>(&self, outcome: Outcome<'_>, request: &Request<B>) -> Answer {
        let is_head = request.method() == http::Method::HEAD;
        let answer = match outcome {
            Outcome::MethodNotAllowed => {
                let mut response = error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
                Answer::Ready(response)
            }
            Outcome::BadPath(reason) => {
                Answer::Ready(error(StatusCode::BAD_REQUEST, reason.message()))
            }
            Outcome::NotFound => Answer::Ready(error(StatusCode::NOT_FOUND, "not found")),
            Outcome::RedirectToFolder => Answer::Ready(redirect_to_folder(request)),
            Outcome::File(served) => self.file_response(served, is_head),
        };
        match answer {
            // HEAD gets the headers GET would, never a body: error bodies included.
            Answer::Ready(mut response) if is_head => {
                *response.body_mut() = Body::default();
                Answer::Ready(response)
            }
            // A HEAD never needs the identity body, so it is never deferred.
            answer => answer,
        }
    }

    /// A file's response: its validators and caching policy, then the part asked for.
    fn file_response(&self, served: Served<'_>, is_head: bool) -> Answer {
        let Served {
            target,
            encoded,
            part,
        } = served;
        let prepared = &*target.prepared;
        let file = prepared.file;
        let mut response = Response::new(Body::default());
        let out = response.headers_mut();
        out.insert(
            ETAG,
            encoded
                .map_or(&prepared.etag, |representation| &representation.etag)
                .clone(),
        );
        out.insert(CACHE_CONTROL, prepared.cache_control.clone());
        if let Some(last_modified) = &prepared.last_modified {
            out.insert(LAST_MODIFIED, last_modified.clone());
        }
        if !prepared.representations.is_empty() {
            out.insert(VARY, HeaderValue::from_static("accept-encoding"));
        }
        if part == Part::NotModified {
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            return Answer::Ready(response);
        }
        out.insert(CONTENT_TYPE, prepared.content_type.clone());
        out.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
        out.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        let len = file.len() as u64;
        match (part, encoded) {
            (Part::Unsatisfiable, _) => {
                let mut refused = error(StatusCode::RANGE_NOT_SATISFIABLE, "range not satisfiable");
                if let Ok(content_range) = HeaderValue::try_from(format!("bytes */{len}")) {
                    refused.headers_mut().insert(CONTENT_RANGE, content_range);
                }
                Answer::Ready(refused)
            }
            (Part::Range { start, end }, _) => {
                *response.status_mut() = StatusCode::PARTIAL_CONTENT;
                let out = response.headers_mut();
                out.insert(CONTENT_LENGTH, HeaderValue::from(end - start + 1));
                if let Ok(content_range) =
                    HeaderValue::try_from(format!("bytes {start}-{end}/{len}"))
                {
                    out.insert(CONTENT_RANGE, content_range);
                }
                // Bounds come from the range's decision against this very length.
                let range = Some((start as usize, end as usize));
                self.with_identity_body(file, target.index, response, range)
            }
            (_, Some(representation)) => {
                out.insert(CONTENT_ENCODING, representation.content_encoding.clone());
                out.insert(CONTENT_LENGTH, representation.len.clone());
                if !is_head {
                    *response.body_mut() = Body::new(Bytes::from_static(representation.bytes));
                }
                Answer::Ready(response)
            }
            (_, None) => {
                out.insert(CONTENT_LENGTH, prepared.identity_len.clone());
                if is_head {
                    Answer::Ready(response)
                } else {
                    self.with_identity_body(file, target.index, response, None)
                }
            }
        }
    }

    /// `response` with the identity body (or the `range` of it), or, when getting that body
    /// means decompressing a large file not in the cache, the work left to do.
    /// `index` is the file's place in the service's table, `None` for a dev catalog's file
    /// (always stored raw, so never decompressed nor cached).
    fn with_identity_body(
        &self,
        file: &'static EmbeddedFile,
        index: Option<usize>,
        response: Response<Body>,
        range: Option<(usize, usize)>,
    ) -> Answer {
        if self.is_slow_to_decode(file, index) {
            return Answer::Deferred(Deferred {
                service: self.clone(),
                file,
                index,
                response,
                range,
            });
        }
        Answer::Ready(self.fill_identity_body(file, index, response, range))
    }

    pub(super) fn fill_identity_body(
        &self,
        file: &'static EmbeddedFile,
        index: Option<usize>,
        mut response: Response<Body>,
        range: Option<(usize, usize)>,
    ) -> Response<Body> {
        let Ok(body) = self.identity_body(file, index) else {
            return internal_error();
        };
        // The headers promise `file.len()` bytes; a body of another length (a catalog edited by
        // hand, bytes that do not match their entry) is answered as the fault it is, never with
        // a wrong length or a panic on the range.
        if body.len() != file.len() {
            return internal_error();
        }
        let body = match range {
            Some((start, end)) if start <= end && end < body.len() => body.slice(start..=end),
            Some(_) => return internal_error(),
            None => body,
        };
        *response.body_mut() = Body::new(body);
        response
    }

    /// Whether the identity body of `index` means decompressing more than the off-thread
    /// threshold: a gzip-stored file, larger than it, whose body is not cached.
    fn is_slow_to_decode(&self, file: &EmbeddedFile, index: Option<usize>) -> bool {
        let Some(threshold) = self.config.off_thread_above else {
            return false;
        };
        self.catalog.mode() != Mode::Copy
            && file.raw().is_none()
            && file.len() > threshold
            && !self
                .cache
                .as_ref()
                .zip(index)
                .is_some_and(|(cache, index)| cache.contains(index))
    }

    /// The uncompressed body: lent from the binary, decompressed (through the cache when on), or
    /// copied in `copy` mode, which exists to show what a copy per request costs.
    fn identity_body(
        &self,
        file: &'static EmbeddedFile,
        index: Option<usize>,
    ) -> Result<Bytes, crate::Error> {
        if self.catalog.mode() == Mode::Copy {
            return file
                .contents()
                .map(|contents| Bytes::from(contents.into_owned()));
        }
        match (file.raw(), self.cache.as_ref().zip(index)) {
            (Some(raw), _) => Ok(Bytes::from_static(raw)),
            (None, Some((cache, index))) => {
                cache.get_or_insert(index, || file.contents().map(cow_to_bytes))
            }
            (None, None) => file.contents().map(cow_to_bytes),
        }
    }
}

fn cow_to_bytes(contents: Cow<'static, [u8]>) -> Bytes {
    match contents {
        Cow::Borrowed(bytes) => Bytes::from_static(bytes),
        Cow::Owned(bytes) => Bytes::from(bytes),
    }
}

/// Bytes a `Location` URI-reference cannot carry raw (RFC 3986 §3.3, §3.4): controls, space,
/// non-ASCII (always escaped by `percent_encode`) and the delimiters outside `pchar` and `query`.
/// `%` stays, so escapes the client sent are passed on unchanged.
const NOT_URI: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// 307 to the same path with a trailing slash, query kept. Only reached for keys the catalog
/// knows as folders, so the target is always a local path. The `http` crate accepts raw UTF-8
/// and a few delimiters in a request's query; the `Location` sent back escapes them, so it is
/// always a valid, ASCII URI-reference.
fn redirect_to_folder<B>(request: &Request<B>) -> Response<Body> {
    use percent_encoding::percent_encode;
    let uri = request.uri();
    let path = percent_encode(uri.path().as_bytes(), NOT_URI);
    let location = match uri.query() {
        Some(query) => format!("{path}/?{}", percent_encode(query.as_bytes(), NOT_URI)),
        None => format!("{path}/"),
    };
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::TEMPORARY_REDIRECT;
    match HeaderValue::try_from(location) {
        Ok(location) => {
            response.headers_mut().insert(LOCATION, location);
            response
        }
        Err(_) => error(StatusCode::BAD_REQUEST, "invalid path"),
    }
}

/// A small JSON error body with the right status.
pub(super) fn error(status: StatusCode, message: &'static str) -> Response<Body> {
    let body = format!("{{\"error\":\"{message}\",\"status\":{}}}", status.as_u16());
    let mut response = Response::new(Body::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

pub(super) fn internal_error() -> Response<Body> {
    error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
}
