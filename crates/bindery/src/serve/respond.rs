//! From request to response: method, path, lookup, fallback, conditionals, encoding, range.

use std::borrow::Cow;

use bytes::Bytes;
use http::header::{
    ACCEPT, ACCEPT_ENCODING, ACCEPT_RANGES, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH,
    CONTENT_RANGE, CONTENT_TYPE, ETAG, IF_RANGE, LAST_MODIFIED, LOCATION, RANGE, VARY,
    X_CONTENT_TYPE_OPTIONS,
};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode};

use super::encoding::Accepted;
use super::prepared::{NO_CACHE, Prepared};
use super::range::Decision;
use super::{Body, Fallback, ServeCatalog, conditional, path, range};
use crate::{EmbeddedFile, Mode};

/// A file found for a request, with its header values.
struct Target<'a> {
    prepared: Cow<'a, Prepared>,
    /// Its place in the service's table (the decompressed cache's key); `None` in dev mode.
    index: Option<usize>,
}

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
        match self.answer(request) {
            Answer::Ready(response) => response,
            Answer::Deferred(deferred) => deferred.finish(),
        }
    }

    /// The answer, with the slow part (decompressing a large file) left for the caller to run
    /// where it likes: the tower `Service` runs it on the blocking pool.
    pub(super) fn answer<B>(&self, request: &Request<B>) -> Answer {
        match self.answer_unchecked(request) {
            // HEAD gets the headers GET would, never a body: error bodies included.
            Answer::Ready(mut response) if request.method() == Method::HEAD => {
                *response.body_mut() = Body::default();
                Answer::Ready(response)
            }
            // A HEAD never needs the identity body, so it is never deferred.
            answer => answer,
        }
    }

    fn answer_unchecked<B>(&self, request: &Request<B>) -> Answer {
        let method = request.method();
        let is_head = method == Method::HEAD;
        if method != Method::GET && !is_head {
            let mut response = error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Answer::Ready(response);
        }
        let decoded = match path::decode(request.uri().path(), self.config.max_path_len) {
            Ok(decoded) => decoded,
            Err(reason) => return Answer::Ready(error(StatusCode::BAD_REQUEST, reason.message())),
        };
        let Some(within) = self.within_mount(&decoded) else {
            return Answer::Ready(error(StatusCode::NOT_FOUND, "not found"));
        };
        if within.is_empty() {
            // The mount point itself, `/static`: its index lives at `/static/`, where the
            // page's relative links resolve inside the mount.
            return Answer::Ready(redirect_to_folder(request));
        }
        let key = within.strip_prefix('/').unwrap_or(within);
        // `//x` or `a//b` never name a file: refusing them here keeps the catalog's lenient
        // leading-slash rule from turning `//host/` into a protocol-relative redirect target.
        let has_empty_segment = key.starts_with('/') || key.contains("//");
        let found = if has_empty_segment {
            None
        } else if key.is_empty() || key.ends_with('/') {
            self.find(&format!("{key}{}", self.config.index_file))
        } else {
            self.find(key)
        };
        let target = match found {
            Some(target) => target,
            None if !has_empty_segment && self.is_folder(key) => {
                return Answer::Ready(redirect_to_folder(request));
            }
            None => match self.fallback_for(request.headers(), &decoded) {
                Some(target) => target,
                None => return Answer::Ready(error(StatusCode::NOT_FOUND, "not found")),
            },
        };
        self.serve_file(&target, request.headers(), is_head)
    }

    /// The part of a decoded path below the mount point (`/static/a.js` -> `/a.js`), or `None`
    /// when the path lies outside it. `/static` itself is the folder, `""`.
    pub(super) fn within_mount<'p>(&self, decoded: &'p str) -> Option<&'p str> {
        let mount = self.config.mount.as_str();
        let rest = decoded.strip_prefix(mount)?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    }

    /// The file at a catalog key with its prepared headers: from the table built with the
    /// service, or, for a dev catalog, the file as it is on disk now with headers made for it.
    fn find(&self, key: &str) -> Option<Target<'_>> {
        if self.catalog.is_dev() {
            let file = self.catalog.file(key)?;
            let no_cache = |_: &EmbeddedFile| HeaderValue::from_static(NO_CACHE);
            return Some(Target {
                prepared: Cow::Owned(Prepared::new(file, &no_cache)),
                index: None,
            });
        }
        self.catalog
            .position(key)
            .map(|index| self.prepared_at(index))
    }

    /// The file at `index` of the table built with the service.
    fn prepared_at(&self, index: usize) -> Target<'_> {
        Target {
            prepared: Cow::Borrowed(&self.prepared[index]),
            index: Some(index),
        }
    }

    /// Whether `key` names a folder with an index file. Only asks whether the file exists: no
    /// headers are prepared for it.
    fn is_folder(&self, key: &str) -> bool {
        !key.is_empty()
            && !key.ends_with('/')
            && self
                .catalog
                .file(&format!("{key}/{}", self.config.index_file))
                .is_some()
    }

    fn fallback_for(&self, headers: &HeaderMap, decoded: &str) -> Option<Target<'_>> {
        let fallback = self.config.fallback.as_ref()?;
        let is_navigation = headers
            .get_all(ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|accept| accept.to_ascii_lowercase().contains("text/html"));
        let is_excluded = self.config.no_fallback.iter().any(|prefix| {
            decoded.starts_with(prefix.as_str()) || decoded == prefix.trim_end_matches('/')
        });
        if !is_navigation || is_excluded {
            return None;
        }
        match fallback {
            Fallback::Index(index) => Some(self.prepared_at(*index)),
            Fallback::Key(key) => self.find(key),
        }
    }

    fn serve_file(&self, target: &Target<'_>, headers: &HeaderMap, is_head: bool) -> Answer {
        let prepared = &*target.prepared;
        let file = prepared.file;
        // Ranges apply to the identity representation, so a range request is never encoded.
        let range_header = if is_head { None } else { headers.get(RANGE) };
        let encoded = if range_header.is_none() && !prepared.representations.is_empty() {
            Accepted::parse(headers.get_all(ACCEPT_ENCODING)).choose(&prepared.representations)
        } else {
            None
        };
        let (etag, etag_text) = match encoded {
            Some(representation) => (&representation.etag, representation.etag_text),
            None => (&prepared.etag, file.etag()),
        };

        let mut response = Response::new(Body::default());
        let out = response.headers_mut();
        out.insert(ETAG, etag.clone());
        out.insert(CACHE_CONTROL, prepared.cache_control.clone());
        if let Some(last_modified) = &prepared.last_modified {
            out.insert(LAST_MODIFIED, last_modified.clone());
        }
        if !prepared.representations.is_empty() {
            out.insert(VARY, HeaderValue::from_static("accept-encoding"));
        }

        if conditional::is_not_modified(headers, etag_text, file.modified()) {
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            return Answer::Ready(response);
        }

        out.insert(CONTENT_TYPE, prepared.content_type.clone());
        out.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
        out.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        let len = file.len() as u64;
        let decision = match range_header {
            Some(range)
                if headers.get(IF_RANGE).is_none_or(|validator| {
                    conditional::if_range_holds(validator, file.etag(), file.modified())
                }) =>
            {
                range::decide(range, len)
            }
            _ => Decision::Full,
        };
        match decision {
            Decision::Unsatisfiable => {
                let mut refused = error(StatusCode::RANGE_NOT_SATISFIABLE, "range not satisfiable");
                let content_range = HeaderValue::try_from(format!("bytes */{len}"));
                if let Ok(content_range) = content_range {
                    refused.headers_mut().insert(CONTENT_RANGE, content_range);
                }
                Answer::Ready(refused)
            }
            Decision::Partial { start, end } => {
                *response.status_mut() = StatusCode::PARTIAL_CONTENT;
                let out = response.headers_mut();
                out.insert(CONTENT_LENGTH, HeaderValue::from(end - start + 1));
                if let Ok(content_range) =
                    HeaderValue::try_from(format!("bytes {start}-{end}/{len}"))
                {
                    out.insert(CONTENT_RANGE, content_range);
                }
                // Bounds come from `range::decide` against this very length.
                self.with_identity_body(
                    file,
                    target.index,
                    response,
                    Some((start as usize, end as usize)),
                )
            }
            Decision::Full => match encoded {
                Some(representation) => {
                    out.insert(CONTENT_ENCODING, representation.content_encoding.clone());
                    out.insert(CONTENT_LENGTH, representation.len.clone());
                    if !is_head {
                        *response.body_mut() = Body::new(Bytes::from_static(representation.bytes));
                    }
                    Answer::Ready(response)
                }
                None => {
                    out.insert(CONTENT_LENGTH, prepared.identity_len.clone());
                    if is_head {
                        Answer::Ready(response)
                    } else {
                        self.with_identity_body(file, target.index, response, None)
                    }
                }
            },
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

    fn fill_identity_body(
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

/// What a request gets: a response now, or one whose body still needs a large decompression.
pub(super) enum Answer {
    Ready(Response<Body>),
    Deferred(Deferred),
}

/// A response whose identity body is still to be decompressed: [`finish`](Self::finish) does it
/// (the service runs it on the blocking pool, so one large file never stalls an async worker).
pub(super) struct Deferred {
    service: ServeCatalog,
    file: &'static EmbeddedFile,
    index: Option<usize>,
    response: Response<Body>,
    range: Option<(usize, usize)>,
}

impl Deferred {
    /// Decompresses (or takes from the cache) and returns the finished response.
    pub(super) fn finish(self) -> Response<Body> {
        self.service
            .fill_identity_body(self.file, self.index, self.response, self.range)
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
