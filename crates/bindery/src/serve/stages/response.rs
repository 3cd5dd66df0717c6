//! The response stage: an [`Outcome`] in, the response's status and headers out, with its body
//! either set (empty, an error's, an encoded representation as stored) or planned: the
//! identity bytes of a file, which [`bodies`](super::bodies) lends, decompresses or copies.

use http::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE,
    ETAG, LAST_MODIFIED, LOCATION, VARY, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderMap, HeaderValue, Response, StatusCode};

use crate::EmbeddedFile;
use crate::serve::body::Body;
use crate::serve::cache_control::IMMUTABLE;
use crate::serve::http::Refusal;
use crate::serve::http::multipart;
use crate::serve::http::path::NOT_URI;
use crate::serve::http::range::Part;
use crate::serve::setup::config::ErrorBody;
use crate::serve::setup::prepared::Prepared;
use crate::serve::setup::site::Site;
use crate::serve::stages::outcome::{Outcome, Served};

/// `Use-As-Dictionary` (RFC 9842 §2.1).
const USE_AS_DICTIONARY: http::HeaderName = http::HeaderName::from_static("use-as-dictionary");

/// Every header a file's answer can carry besides those added by path: its map is sized from
/// this list once (growing it on the way was two more allocations per request), and debug
/// builds check each answer against it.
pub(crate) const FILE_HEADERS: [http::HeaderName; 11] = [
    ETAG,
    CACHE_CONTROL,
    LAST_MODIFIED,
    VARY,
    USE_AS_DICTIONARY,
    CONTENT_TYPE,
    ACCEPT_RANGES,
    X_CONTENT_TYPE_OPTIONS,
    CONTENT_ENCODING,
    CONTENT_LENGTH,
    CONTENT_RANGE,
];

/// `X-Content-Type-Options: nosniff`, on every answer the service makes (files, errors,
/// rendered pages): browsers then never guess a type other than the one sent.
pub(crate) const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");

/// The identity bytes a built response still needs: `part` of `file` (multipart chunks for
/// several ranges, with the file's `content_type` in each part's head), which
/// [`bodies`](super::bodies) lends, takes from the cache, decompresses or copies.
pub(crate) struct Pending {
    pub(crate) file: &'static EmbeddedFile,
    /// Its place in the service's table (the decompressed cache's key); `None` in dev mode.
    pub(crate) index: Option<usize>,
    pub(crate) part: Part,
    pub(crate) content_type: HeaderValue,
}

/// The response for `outcome`; HEAD gets GET's headers and no body.
pub(crate) fn build(
    site: &Site,
    outcome: Outcome<'_>,
    is_head: bool,
) -> (Response<Body>, Option<Pending>) {
    let (mut response, plan) = match outcome {
        Outcome::Error(status, reason) => {
            let mut response = error(site, status, reason);
            if status == StatusCode::METHOD_NOT_ALLOWED {
                response
                    .headers_mut()
                    .insert(http::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            }
            (response, None)
        }
        Outcome::NotFound { page, varies } => {
            let (mut response, plan) = match page {
                Some(page) => file_response(site, page, is_head, StatusCode::NOT_FOUND),
                // A debug build of a catalog whose folder was missing says so, not 404.
                None if cfg!(debug_assertions) && !site.catalog.missing.is_empty() => {
                    (missing_folder(site.catalog.missing), None)
                }
                None => (error(site, StatusCode::NOT_FOUND, "not found"), None),
            };
            if varies {
                vary_with_accept(&mut response);
            }
            (response, plan)
        }
        Outcome::Redirect { status, location } => (redirect(site, status, &location), None),
        Outcome::File(served) => {
            let varies = served.varies;
            let (mut response, plan) = file_response(site, served, is_head, StatusCode::OK);
            if varies {
                vary_with_accept(&mut response);
            }
            (response, plan)
        }
    };
    if is_head {
        // HEAD gets the headers GET would, never a body: error bodies included.
        *response.body_mut() = Body::empty();
        return (response, None);
    }
    (response, plan)
}

/// 503 with what the missing folder's error says (`allow_missing`, debug builds), as text.
fn missing_folder(note: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(note.as_bytes()));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(CONTENT_LENGTH, HeaderValue::from(note.len()));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    response
}

/// A file's response (with `status` for a whole representation: 200, or 404 for the 404
/// page): its validators and caching policy, then the part asked for.
fn file_response(
    site: &Site,
    served: Served<'_>,
    is_head: bool,
    status: StatusCode,
) -> (Response<Body>, Option<Pending>) {
    let Served {
        target,
        encoded,
        selection,
        ..
    } = served;
    let prepared = &*target.headers;
    let mut response = Response::new(Body::empty());
    *response.headers_mut() = HeaderMap::with_capacity(FILE_HEADERS.len() + prepared.extra.len());
    let out = response.headers_mut();
    let etag = encoded.map_or(&prepared.etag, |representation| &representation.etag);
    out.insert(ETAG, etag.clone());
    let cache_control = if target.by_fingerprint {
        HeaderValue::from_static(IMMUTABLE)
    } else {
        prepared.cache_control.clone()
    };
    out.insert(CACHE_CONTROL, cache_control);
    if let Some(last_modified) = &prepared.last_modified {
        out.insert(LAST_MODIFIED, last_modified.clone());
    }
    if let Some(vary) = &prepared.vary {
        out.insert(VARY, vary.clone());
    }
    if let Some(value) = &prepared.use_as_dictionary {
        out.insert(USE_AS_DICTIONARY, value.clone());
    }
    // Kept on a 304 too: a cache that revalidates keeps what the 200 said.
    for (name, value) in &prepared.extra {
        out.append(name.clone(), value.clone());
    }
    let part = match selection {
        Ok(part) => part,
        Err(refusal) => return (refuse(site, response, refusal, etag, prepared), None),
    };
    *response.status_mut() = status;
    let out = response.headers_mut();
    out.insert(CONTENT_TYPE, prepared.content_type.clone());
    out.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    out.insert(X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    let file = prepared.file;
    if let Some(representation) = encoded {
        // Only a whole representation is ever encoded: ranges are of identity.
        let out = response.headers_mut();
        out.insert(CONTENT_ENCODING, representation.content_encoding.clone());
        out.insert(CONTENT_LENGTH, representation.len.clone());
        if !is_head {
            *response.body_mut() = Body::from(representation.bytes);
        }
        debug_assert!(lists_every_header(&response, prepared));
        return (response, None);
    }
    describe_part(&mut response, prepared, &part);
    debug_assert!(lists_every_header(&response, prepared));
    let pending = Pending {
        file,
        index: target.index,
        part,
        content_type: prepared.content_type.clone(),
    };
    (response, Some(pending))
}

/// Whether every header of a file's answer is one of [`FILE_HEADERS`] or one added by path:
/// checked in debug builds, so that every test that gets an answer with a header not listed
/// fails, and the list stays the one account of them.
fn lists_every_header(response: &Response<Body>, prepared: &Prepared) -> bool {
    let unlisted: Vec<_> = response
        .headers()
        .keys()
        .filter(|name| {
            !FILE_HEADERS.contains(name) && !prepared.extra.iter().any(|(extra, _)| extra == *name)
        })
        .collect();
    assert!(
        unlisted.is_empty(),
        "headers missing from FILE_HEADERS: {unlisted:?}"
    );
    true
}

/// The answer to a request whose conditions or range rule out the body: `304` on the
/// response already carrying the validators, or a `412`/`416` error.
fn refuse(
    site: &Site,
    mut response: Response<Body>,
    refusal: Refusal,
    etag: &HeaderValue,
    prepared: &Prepared,
) -> Response<Body> {
    match refusal {
        Refusal::NotModified => {
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        }
        Refusal::PreconditionFailed => {
            // The current validator tells the client what it should have sent; the error
            // itself is not to be stored.
            let mut failed = error(site, StatusCode::PRECONDITION_FAILED, "precondition failed");
            failed.headers_mut().insert(ETAG, etag.clone());
            failed
        }
        Refusal::Unsatisfiable => {
            let mut refused = error(
                site,
                StatusCode::RANGE_NOT_SATISFIABLE,
                "range not satisfiable",
            );
            let len = prepared.file.len();
            if let Ok(content_range) = HeaderValue::try_from(format!("bytes */{len}")) {
                refused.headers_mut().insert(CONTENT_RANGE, content_range);
            }
            refused
        }
    }
}

/// The status, `Content-Length` and (for ranges) `Content-Range` or multipart `Content-Type`
/// of `part` of the identity representation, all known before any byte is read.
fn describe_part(response: &mut Response<Body>, prepared: &Prepared, part: &Part) {
    let file = prepared.file;
    let len = file.len() as u64;
    let out = response.headers_mut();
    match part {
        Part::Whole => {
            out.insert(CONTENT_LENGTH, prepared.identity_len.clone());
        }
        Part::Range(range) => {
            out.insert(
                CONTENT_LENGTH,
                HeaderValue::from(range.end() - range.start() + 1),
            );
            out.insert(
                CONTENT_RANGE,
                content_range(*range.start(), *range.end(), len),
            );
            *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        }
        Part::Ranges(ranges) => {
            let boundary = multipart::boundary(file);
            let length = multipart::content_length(ranges, &boundary, &prepared.content_type, len);
            out.insert(CONTENT_LENGTH, HeaderValue::from(length));
            if let Some(value) = multipart::content_type(&boundary) {
                out.insert(CONTENT_TYPE, value);
            }
            *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        }
    }
}

/// `Content-Range: bytes start-end/len`, written on the stack: one allocation, the value's.
fn content_range(start: u64, end: u64, len: u64) -> HeaderValue {
    use std::io::Write as _;
    let mut buffer = [0u8; 72];
    let mut cursor = std::io::Cursor::new(&mut buffer[..]);
    // Three u64s and the punctuation fit in 72 bytes: the write cannot fail.
    let _ = write!(cursor, "bytes {start}-{end}/{len}");
    let written = cursor.position() as usize;
    HeaderValue::from_bytes(&buffer[..written])
        .unwrap_or_else(|_| HeaderValue::from_static("bytes */0"))
}

/// Adds `accept` to the response's `Vary`: the answer depended on the request's `Accept`.
fn vary_with_accept(response: &mut Response<Body>) {
    let headers = response.headers_mut();
    let value = match headers.get(VARY).map(HeaderValue::as_bytes) {
        Some(b"accept-encoding") => "accept, accept-encoding",
        Some(b"accept-encoding, available-dictionary") => {
            "accept, accept-encoding, available-dictionary"
        }
        _ => "accept",
    };
    headers.insert(VARY, HeaderValue::from_static(value));
}

/// A redirect to a local `location`. The `http` crate accepts raw UTF-8 and a few delimiters in
/// a request's query; the `Location` sent back escapes them, so it is always a valid, ASCII
/// URI-reference.
fn redirect(site: &Site, status: StatusCode, location: &str) -> Response<Body> {
    let location = percent_encoding::percent_encode(location.as_bytes(), NOT_URI).to_string();
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    match HeaderValue::try_from(location) {
        Ok(location) => {
            response.headers_mut().insert(LOCATION, location);
            response
        }
        Err(_) => error(site, StatusCode::BAD_REQUEST, "invalid path"),
    }
}

/// An error answer of the site's: see [`error_with`].
pub(crate) fn error(site: &Site, status: StatusCode, reason: &'static str) -> Response<Body> {
    error_with(site.config.error_body.as_ref(), status, reason)
}

/// An error answer: its status, `no-store`, and the body `hook` gives (none without one:
/// `Content-Length: 0`).
pub(crate) fn error_with(
    hook: Option<&ErrorBody>,
    status: StatusCode,
    reason: &'static str,
) -> Response<Body> {
    let mut response = match hook {
        Some(hook) => {
            let (content_type, bytes) = hook(status, reason);
            let mut response = Response::new(Body::from(bytes));
            response.headers_mut().insert(CONTENT_TYPE, content_type);
            response
        }
        None => Response::new(Body::empty()),
    };
    *response.status_mut() = status;
    let length = match response.body().len() {
        // The usual error answer has no body: a static value, no allocation.
        0 => HeaderValue::from_static("0"),
        length => HeaderValue::from(length),
    };
    let headers = response.headers_mut();
    headers.insert(CONTENT_LENGTH, length);
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    response
}
