//! Building the response for an [`Outcome`]: status, headers and body, the body lent from the
//! binary, sent as stored, taken from the cache, or, for a large decompression, left as work.

use std::fmt::Write as _;
use std::ops::RangeInclusive;

use bytes::{BufMut, Bytes, BytesMut};
use http::header::{
    ACCEPT_RANGES, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE,
    CONTENT_TYPE, ETAG, LAST_MODIFIED, LOCATION, VARY, X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderValue, Response, StatusCode};

use super::decide::{Outcome, Part, Served, Target};
use super::head::RequestHead;
use super::prepared::Representation;
use super::respond::{Answer, Deferred};
use super::{Body, ServeCatalog};
use crate::{EmbeddedFile, Mode};

/// What the identity body of a response is made of.
#[derive(Debug, Clone)]
pub(super) enum Slice {
    Whole,
    /// Bytes `start..=end`.
    Range {
        start: usize,
        end: usize,
    },
    /// `multipart/byteranges` (boxed: rare, and it keeps every answer small to move).
    Parts(Box<Parts>),
}

/// The ranges of a `multipart/byteranges` body, its boundary and the file's media type.
#[derive(Debug, Clone)]
pub(super) struct Parts {
    ranges: Vec<RangeInclusive<usize>>,
    boundary: String,
    content_type: HeaderValue,
}

impl ServeCatalog {
    /// The response for `outcome`; HEAD gets GET's headers and no body.
    pub(super) fn build(&self, outcome: Outcome<'_>, request: &impl RequestHead) -> Answer {
        let is_head = request.method_name() == "HEAD";
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
            Outcome::NotFound { page, varies } => {
                let mut answer = match page {
                    Some(page) => self.file_response(page, is_head, StatusCode::NOT_FOUND),
                    None => Answer::Ready(error(StatusCode::NOT_FOUND, "not found")),
                };
                if varies {
                    answer.vary_with_accept();
                }
                answer
            }
            Outcome::RedirectToFolder => Answer::Ready(redirect_to_folder(request)),
            Outcome::RedirectClean { location } => {
                Answer::Ready(redirect(StatusCode::PERMANENT_REDIRECT, &location))
            }
            Outcome::File(served) => {
                let varies = served.varies;
                let mut answer = self.file_response(served, is_head, StatusCode::OK);
                if varies {
                    answer.vary_with_accept();
                }
                answer
            }
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

    /// A file's response (with `status` for a whole representation: 200, or 404 for the 404
    /// page): its validators and caching policy, then the part asked for.
    fn file_response(&self, served: Served<'_>, is_head: bool, status: StatusCode) -> Answer {
        let Served {
            target,
            encoded,
            part,
            ..
        } = served;
        let prepared = &*target.prepared;
        let mut response = Response::new(Body::default());
        let out = response.headers_mut();
        out.insert(
            ETAG,
            encoded
                .map_or(&prepared.etag, |representation| &representation.etag)
                .clone(),
        );
        let cache_control = if target.is_fingerprinted {
            HeaderValue::from_static(super::IMMUTABLE)
        } else {
            prepared.cache_control.clone()
        };
        out.insert(CACHE_CONTROL, cache_control);
        if let Some(last_modified) = &prepared.last_modified {
            out.insert(LAST_MODIFIED, last_modified.clone());
        }
        if !prepared.representations.is_empty() {
            out.insert(VARY, HeaderValue::from_static("accept-encoding"));
        }
        match part {
            Part::NotModified => {
                *response.status_mut() = StatusCode::NOT_MODIFIED;
                return Answer::Ready(response);
            }
            Part::PreconditionFailed => {
                // The current validator tells the client what it should have sent; the error
                // itself is not to be stored.
                let mut failed = error(StatusCode::PRECONDITION_FAILED, "precondition failed");
                if let Some(etag) = response.headers().get(ETAG) {
                    failed.headers_mut().insert(ETAG, etag.clone());
                }
                return Answer::Ready(failed);
            }
            _ => {}
        }
        *response.status_mut() = status;
        out_headers(&mut response, prepared.content_type.clone());
        self.with_part(response, &target, encoded, part, is_head)
    }

    /// `response` with the part of the file asked for: 416, one range, several, the encoded
    /// representation as stored, or identity.
    fn with_part(
        &self,
        mut response: Response<Body>,
        target: &Target<'_>,
        encoded: Option<&Representation>,
        part: Part,
        is_head: bool,
    ) -> Answer {
        let prepared = &*target.prepared;
        let file = prepared.file;
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
                let slice = Slice::Range {
                    start: start as usize,
                    end: end as usize,
                };
                self.with_identity_body(file, target.index, response, slice)
            }
            (Part::Ranges(ranges), _) => {
                let content_type = prepared.content_type.clone();
                let (response, slice) = multipart(response, file, content_type, &ranges);
                self.with_identity_body(file, target.index, response, slice)
            }
            (_, Some(representation)) => {
                let out = response.headers_mut();
                out.insert(CONTENT_ENCODING, representation.content_encoding.clone());
                out.insert(CONTENT_LENGTH, representation.len.clone());
                if !is_head {
                    *response.body_mut() = Body::new(Bytes::from_static(representation.bytes));
                }
                Answer::Ready(response)
            }
            (_, None) => {
                response
                    .headers_mut()
                    .insert(CONTENT_LENGTH, prepared.identity_len.clone());
                if is_head {
                    Answer::Ready(response)
                } else {
                    self.with_identity_body(file, target.index, response, Slice::Whole)
                }
            }
        }
    }

    /// `response` with the identity body (or the `slice` of it), or, when getting that body
    /// means decompressing a large file not in the cache, the work left to do.
    /// `index` is the file's place in the service's table, `None` for a dev catalog's file
    /// (always stored raw, so never decompressed nor cached).
    fn with_identity_body(
        &self,
        file: &'static EmbeddedFile,
        index: Option<usize>,
        response: Response<Body>,
        slice: Slice,
    ) -> Answer {
        if self.is_slow_to_decode(file, index) {
            return Answer::Deferred(Deferred {
                service: self.clone(),
                file,
                index,
                response,
                slice,
            });
        }
        Answer::Ready(self.fill_identity_body(file, index, response, slice))
    }

    pub(super) fn fill_identity_body(
        &self,
        file: &'static EmbeddedFile,
        index: Option<usize>,
        response: Response<Body>,
        slice: Slice,
    ) -> Response<Body> {
        let Ok(body) = self.identity_body(file, index, slice.upto(file.len())) else {
            return internal_error();
        };
        with_body(file, response, slice, body)
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

    /// The uncompressed body, or at least its first `upto` bytes: lent from the binary,
    /// decompressed in place (a whole body through the cache when on; a range's no further
    /// than its end), or copied in `copy` mode, which exists to show what a copy per request
    /// costs.
    fn identity_body(
        &self,
        file: &'static EmbeddedFile,
        index: Option<usize>,
        upto: usize,
    ) -> Result<Bytes, crate::Error> {
        if self.catalog.mode() == Mode::Copy {
            return file
                .contents()
                .map(|contents| Bytes::from(contents.into_owned()));
        }
        let Some(compressed) = file.gzip() else {
            return Ok(Bytes::from_static(file.stored()));
        };
        let decompress = |upto: usize| {
            let body = file
                .decompress_upto(compressed, upto, &|| true)?
                .unwrap_or_default();
            self.inflater.count_in_place(body.len());
            Ok(Bytes::from(body))
        };
        match self.cache.as_ref().zip(index) {
            Some((cache, index)) if upto >= file.len() => {
                cache.get_or_insert(index, || decompress(file.len()))
            }
            Some((cache, index)) if cache.contains(index) => {
                cache.get_or_insert(index, || decompress(file.len()))
            }
            _ => decompress(upto),
        }
    }
}

/// `response` with `body` (of the whole file, or of at least its first bytes up to the end of
/// `slice`) as its identity body, or sliced to `slice`.
pub(super) fn with_body(
    file: &EmbeddedFile,
    mut response: Response<Body>,
    slice: Slice,
    body: Bytes,
) -> Response<Body> {
    // The headers promise `file.len()` bytes; a body of another length (a catalog edited by
    // hand, bytes that do not match their entry) is answered as the fault it is, never with
    // a wrong length or a panic on the range.
    let is_complete = match slice {
        Slice::Whole => body.len() == file.len(),
        _ => body.len() >= slice.upto(file.len()) && body.len() <= file.len(),
    };
    if !is_complete {
        return internal_error();
    }
    let body = match slice {
        Slice::Whole => body,
        Slice::Range { start, end } if end < body.len() => body.slice(start..=end),
        Slice::Parts(parts) if parts.ranges.iter().all(|range| *range.end() < body.len()) => {
            multipart_body(
                &body,
                &parts.ranges,
                &parts.boundary,
                &parts.content_type,
                file.len(),
            )
        }
        _ => return internal_error(),
    };
    *response.body_mut() = Body::new(body);
    response
}

impl Slice {
    /// How many leading bytes of the file the slice needs: all for `Whole`, up to the last
    /// byte of the farthest range otherwise (never more than `len`).
    pub(super) fn upto(&self, len: usize) -> usize {
        match self {
            Slice::Whole => len,
            Slice::Range { end, .. } => end.saturating_add(1).min(len),
            Slice::Parts(parts) => parts
                .ranges
                .iter()
                .map(|range| range.end().saturating_add(1))
                .max()
                .unwrap_or(len)
                .min(len),
        }
    }
}

impl Answer {
    /// Adds `accept` to the response's `Vary`: the answer depended on the request's `Accept`.
    fn vary_with_accept(&mut self) {
        let response = match self {
            Answer::Ready(response) => response,
            Answer::Deferred(deferred) => &mut deferred.response,
        };
        let headers = response.headers_mut();
        let value = match headers.get(VARY) {
            Some(vary) if vary.as_bytes() == b"accept-encoding" => "accept, accept-encoding",
            _ => "accept",
        };
        headers.insert(VARY, HeaderValue::from_static(value));
    }
}

/// The headers every body of a file carries.
fn out_headers(response: &mut Response<Body>, content_type: HeaderValue) {
    let out = response.headers_mut();
    out.insert(CONTENT_TYPE, content_type);
    out.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    out.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
}

/// A `multipart/byteranges` response (RFC 9110 §14.6) for `ranges` of `file`: its status,
/// `Content-Type` with a boundary made from the file's ETag (no part of a file can hold it: the
/// tag is a hash of the whole), and `Content-Length` computed before any byte is read.
fn multipart(
    mut response: Response<Body>,
    file: &EmbeddedFile,
    content_type: HeaderValue,
    ranges: &[RangeInclusive<u64>],
) -> (Response<Body>, Slice) {
    let boundary = format!("bindery-{}", file.etag().trim_matches('"'));
    let ranges: Vec<RangeInclusive<usize>> = ranges
        .iter()
        .map(|range| *range.start() as usize..=*range.end() as usize)
        .collect();
    let len = multipart_len(&ranges, &boundary, &content_type, file.len());
    *response.status_mut() = StatusCode::PARTIAL_CONTENT;
    let out = response.headers_mut();
    out.insert(CONTENT_LENGTH, HeaderValue::from(len));
    if let Ok(value) = HeaderValue::try_from(format!("multipart/byteranges; boundary={boundary}")) {
        out.insert(CONTENT_TYPE, value);
    }
    let slice = Slice::Parts(Box::new(Parts {
        ranges,
        boundary,
        content_type,
    }));
    (response, slice)
}

/// The head of one part: the boundary line, then its `Content-Type` and `Content-Range`.
fn part_head(
    out: &mut String,
    boundary: &str,
    content_type: &HeaderValue,
    range: &RangeInclusive<usize>,
    len: usize,
) {
    let _ = write!(
        out,
        "\r\n--{boundary}\r\nContent-Type: {}\r\nContent-Range: bytes {}-{}/{len}\r\n\r\n",
        content_type.to_str().unwrap_or("application/octet-stream"),
        range.start(),
        range.end()
    );
}

fn multipart_len(
    ranges: &[RangeInclusive<usize>],
    boundary: &str,
    content_type: &HeaderValue,
    len: usize,
) -> usize {
    let mut heads = String::new();
    for range in ranges {
        part_head(&mut heads, boundary, content_type, range, len);
    }
    let bytes: usize = ranges
        .iter()
        .map(|range| range.end() - range.start() + 1)
        .sum();
    heads.len() + bytes + format!("\r\n--{boundary}--\r\n").len()
}

/// The parts of `body` (the file's first bytes, at least up to the last range's end) for
/// `ranges` of a file of `len` bytes.
fn multipart_body(
    body: &Bytes,
    ranges: &[RangeInclusive<usize>],
    boundary: &str,
    content_type: &HeaderValue,
    len: usize,
) -> Bytes {
    let mut out = BytesMut::with_capacity(multipart_len(ranges, boundary, content_type, len));
    let mut head = String::new();
    for range in ranges {
        head.clear();
        part_head(&mut head, boundary, content_type, range, len);
        out.put_slice(head.as_bytes());
        out.put_slice(&body[range.clone()]);
    }
    out.put_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    out.freeze()
}

/// Bytes a `Location` URI-reference cannot carry raw (RFC 3986 §3.3, §3.4): controls, space,
/// non-ASCII (always escaped by `percent_encode`) and the delimiters outside `pchar` and `query`.
/// `%` stays, so escapes the client sent are passed on unchanged.
pub(super) const NOT_URI: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
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
/// knows as folders, so the target is always a local path.
fn redirect_to_folder(request: &impl RequestHead) -> Response<Body> {
    let location = match request.raw_query() {
        Some(query) => format!("{}/?{query}", request.raw_path()),
        None => format!("{}/", request.raw_path()),
    };
    redirect(StatusCode::TEMPORARY_REDIRECT, &location)
}

/// A redirect to a local `location`. The `http` crate accepts raw UTF-8 and a few delimiters in
/// a request's query; the `Location` sent back escapes them, so it is always a valid, ASCII
/// URI-reference.
fn redirect(status: StatusCode, location: &str) -> Response<Body> {
    let location = percent_encoding::percent_encode(location.as_bytes(), NOT_URI).to_string();
    let mut response = Response::new(Body::default());
    *response.status_mut() = status;
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

/// 503 for a request that found the queue for a turn to decompress full: retry in a second.
/// `no-store` (from [`error`]): a cache must not keep it for the file.
pub(super) fn busy() -> Response<Body> {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, "busy decompressing; retry");
    response
        .headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}
