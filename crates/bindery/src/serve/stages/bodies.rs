//! The body stage: a built response whose body is planned gets its identity bytes, lent from
//! the binary, taken from the decompressed cache, decompressed (in place, or left as work for
//! tokio's blocking pool within the bounds of inflate.rs) or, in `copy` mode, copied, each heap
//! buffer carrying its lease of the budget (budget.rs).
//!
//! Ranges share bytes: a part is a slice of what holds it (the binary, the cache, a buffer
//! decompressed up to the range's end), except that a small part of a buffer decompressed for
//! it alone is copied out, so the whole prefix it needed is freed at once.

use std::sync::Arc;

use bytes::Bytes;
use http::{Response, StatusCode};

use crate::serve::body::Body;
use crate::serve::http::multipart;
use crate::serve::http::range::Part;
use crate::serve::setup::config::ErrorBody;
use crate::serve::stages::budget::Budget;
use crate::serve::stages::cache::DecompressedCache;
use crate::serve::stages::inflate::{Failure, Inflated, Inflater};
use crate::serve::stages::response::{Pending, error_with};
use crate::{EmbeddedFile, Mode};

/// Where identity bodies come from, shared by a service and its clones.
pub(crate) struct Bodies {
    pub(crate) mode: Mode,
    pub(crate) off_thread_above: Option<usize>,
    pub(crate) cache: Option<Arc<DecompressedCache>>,
    pub(crate) inflater: Arc<Inflater>,
    pub(crate) budget: Arc<Budget>,
    /// The error bodies of the service (a 500 for corrupt bytes, a 503 when busy).
    pub(crate) error_body: Option<ErrorBody>,
}

impl std::fmt::Debug for Bodies {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Bodies")
            .field("mode", &self.mode)
            .field("off_thread_above", &self.off_thread_above)
            .finish_non_exhaustive()
    }
}

/// What a request gets: a response now, or one whose body still needs a large decompression.
pub(crate) enum Answer {
    Ready(Response<Body>),
    Deferred(Deferred),
}

/// A response whose identity body still needs a decompression too large for an async worker.
pub(crate) struct Deferred {
    bodies: Arc<Bodies>,
    response: Response<Body>,
    identity: Pending,
}

/// The identity bytes of a file as a body is made of them.
enum Source {
    /// Bytes that exist anyway (the binary's, the cache's): slices cost nothing.
    Shared(Bytes),
    /// A buffer made for this request alone, carrying its lease.
    Own(Bytes),
    /// A buffer one decompression made for several requests, carrying its lease.
    Inflated(Inflated),
}

impl Bodies {
    /// `response` with its body, or the decompression it still needs.
    pub(crate) fn attach(
        self: &Arc<Self>,
        response: Response<Body>,
        pending: Option<Pending>,
    ) -> Answer {
        let Some(identity) = pending else {
            return Answer::Ready(response);
        };
        if self.is_slow_to_decode(identity.file, identity.index) {
            return Answer::Deferred(Deferred {
                bodies: Arc::clone(self),
                response,
                identity,
            });
        }
        Answer::Ready(self.fill(response, identity))
    }

    /// Whether the body means decompressing more than the off-thread threshold: a gzip-stored
    /// file, larger than it, whose body is not cached.
    fn is_slow_to_decode(&self, file: &EmbeddedFile, index: Option<usize>) -> bool {
        let Some(threshold) = self.off_thread_above else {
            return false;
        };
        self.mode != Mode::Copy
            && file.raw().is_none()
            && file.len() > threshold
            && !self
                .cache
                .as_ref()
                .zip(index)
                .is_some_and(|(cache, index)| cache.contains(index))
    }

    /// `response` with its identity body made here, now.
    fn fill(&self, response: Response<Body>, identity: Pending) -> Response<Body> {
        match self.source(&identity) {
            Ok(source) => self.shaped(response, &identity, source),
            Err(failure) => self.failed(failure),
        }
    }

    /// The identity bytes `identity` needs: lent from the binary, from the cache, decompressed
    /// in place (no further than the part's end, or whole for the cache), or copied.
    fn source(&self, identity: &Pending) -> Result<Source, Failure> {
        let file = identity.file;
        let len = file.len();
        let mut upto = identity.part.upto(len as u64) as usize;
        if self.mode == Mode::Copy {
            return self.copied(file, &identity.part);
        }
        let Some(compressed) = file.gzip() else {
            return Ok(Source::Shared(Bytes::from_static(file.stored())));
        };
        let cache = self.cache.as_ref().zip(identity.index);
        if let Some((cache, index)) = cache
            && (upto >= len || cache.contains(index))
        {
            if let Some(bytes) = cache.get(index) {
                return Ok(Source::Shared(bytes));
            }
            upto = len;
        }
        let lease = self.budget.lease(upto).ok_or(Failure::Busy)?;
        let decompressed = file
            .decompress_upto(compressed, upto, &|| true)
            .map_err(|_| Failure::Corrupt)?
            .unwrap_or_default();
        self.inflater.count_in_place(decompressed.len());
        match cache.filter(|_| decompressed.len() == len) {
            Some((cache, index)) => {
                let bytes = Bytes::from(decompressed);
                if cache.insert(index, bytes.clone()) {
                    // The cache holds the bytes now, under its own budget.
                    return Ok(Source::Shared(bytes));
                }
                Ok(Source::Own(lease.attach(Vec::from(bytes))))
            }
            None => Ok(Source::Own(lease.attach(decompressed))),
        }
    }

    /// `copy` mode: a fresh heap copy of the bytes the part needs, every time (the cost this
    /// mode exists to show), leased from the budget.
    fn copied(&self, file: &EmbeddedFile, part: &Part) -> Result<Source, Failure> {
        let stored = file.stored();
        let ranges = part.ranges();
        let bytes = match ranges {
            [] => stored.to_vec(),
            _ => ranges
                .iter()
                .filter_map(|range| stored.get(*range.start() as usize..=*range.end() as usize))
                .flatten()
                .copied()
                .collect(),
        };
        let lease = self.budget.lease(bytes.len()).ok_or(Failure::Busy)?;
        Ok(Source::Own(lease.attach(bytes)))
    }

    /// `response` with the body `part` of `source` makes: a slice of it (or the parts of a
    /// multipart answer), a small part of a buffer of its own copied out; a body that does not
    /// match its entry's length is a 500, never a wrong length or a panic on the range.
    fn shaped(
        &self,
        mut response: Response<Body>,
        identity: &Pending,
        source: Source,
    ) -> Response<Body> {
        let file = identity.file;
        let len = file.len();
        let is_copy = self.mode == Mode::Copy;
        // A prefix's turn is given back when this returns: its small parts are copied out by then.
        let (bytes, is_shared, _turn) = match source {
            Source::Shared(bytes) => (bytes, true, None),
            Source::Own(bytes) => (bytes, false, None),
            Source::Inflated(inflated) => (inflated.bytes, false, inflated.turn),
        };
        let needed = identity.part.upto(len as u64) as usize;
        let is_complete = match (&identity.part, is_copy) {
            (Part::Whole, _) => bytes.len() == len,
            // A copy holds the parts' bytes end to end.
            (part, true) => bytes.len() as u64 == part_bytes(part),
            _ => bytes.len() >= needed && bytes.len() <= len,
        };
        if !is_complete {
            return self.failed(Failure::Corrupt);
        }
        // One range of bytes that exist anyway (an embedded file's): its slice, with no list
        // of parts to build.
        if let (Part::Range(range), true, false) = (&identity.part, is_shared, is_copy) {
            let (start, end) = (*range.start() as usize, *range.end() as usize);
            *response.body_mut() = Body::from(bytes.slice(start..=end));
            return response;
        }
        let ranges = identity.part.ranges();
        let mut parts: Vec<Bytes> = Vec::with_capacity(ranges.len());
        let mut at = 0;
        for range in ranges {
            let (start, end) = (*range.start() as usize, *range.end() as usize);
            parts.push(if is_copy {
                let part = bytes.slice(at..at + (end - start + 1));
                at += end - start + 1;
                part
            } else {
                bytes.slice(start..=end)
            });
        }
        let is_own = !is_shared && !is_copy;
        let parts = self.compacted(parts, bytes.len(), is_own);
        let body = match &identity.part {
            Part::Whole => Body::from(bytes),
            Part::Range(_) => Body::from(parts.into_iter().next().unwrap_or_default()),
            Part::Ranges(ranges) => {
                let boundary = multipart::boundary(file);
                let chunks =
                    multipart::chunks(parts, ranges, &boundary, &identity.content_type, len as u64);
                Body::from_chunks(chunks)
            }
        };
        *response.body_mut() = body;
        response
    }

    /// The parts, copied out of a buffer of this request's own (`is_own`: decompressed for it,
    /// leased) into one buffer of their own when they need less than half of it, so the buffer
    /// (a prefix decompressed up to the farthest range) is freed now rather than when the
    /// slowest client finishes; the new buffer carries a lease of its own.
    fn compacted(&self, parts: Vec<Bytes>, held: usize, is_own: bool) -> Vec<Bytes> {
        let needed: usize = parts.iter().map(Bytes::len).sum();
        if !is_own || parts.is_empty() || needed * 2 >= held {
            return parts;
        }
        let Some(lease) = self.budget.lease(needed) else {
            return parts;
        };
        let mut copied = Vec::with_capacity(needed);
        for part in &parts {
            copied.extend_from_slice(part);
        }
        let copied = lease.attach(copied);
        let mut at = 0;
        parts
            .iter()
            .map(|part| {
                let slice = copied.slice(at..at + part.len());
                at += part.len();
                slice
            })
            .collect()
    }

    /// The answer for a body that could not be made: 503 with `Retry-After` when busy (no
    /// turn, no budget), 500 for bytes that do not decompress to the file.
    fn failed(&self, failure: Failure) -> Response<Body> {
        match failure {
            Failure::Busy => {
                let mut response = error_with(
                    self.error_body.as_ref(),
                    StatusCode::SERVICE_UNAVAILABLE,
                    "busy; retry",
                );
                response.headers_mut().insert(
                    http::header::RETRY_AFTER,
                    http::HeaderValue::from_static("1"),
                );
                response
            }
            Failure::Corrupt => error_with(
                self.error_body.as_ref(),
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error",
            ),
        }
    }
}

/// How many bytes the ranges of `part` hold together.
fn part_bytes(part: &Part) -> u64 {
    part.ranges()
        .iter()
        .map(|range| range.end() - range.start() + 1)
        .sum()
}

impl Deferred {
    /// Decompresses in place (or takes from the cache): for callers without a runtime.
    pub(crate) fn finish(self) -> Response<Body> {
        self.bodies.fill(self.response, self.identity)
    }

    /// Decompresses within the service's bounds (inflate.rs) and returns the finished
    /// response: the body, 503 with `Retry-After` when no turn or no budget came, or 500 for
    /// bytes that do not decompress to the file.
    pub(crate) async fn finish_bounded(self) -> Response<Body> {
        let Deferred {
            bodies,
            response,
            identity,
        } = self;
        let file = identity.file;
        let cache = bodies.cache.clone().zip(identity.index);
        if let Some(bytes) = cache.as_ref().and_then(|(cache, index)| cache.get(*index)) {
            return bodies.shaped(response, &identity, Source::Shared(bytes));
        }
        let upto = identity.part.upto(file.len() as u64) as usize;
        match bodies
            .inflater
            .body(file, upto, cache, &bodies.budget)
            .await
        {
            Ok(inflated) => bodies.shaped(response, &identity, Source::Inflated(inflated)),
            Err(failure) => bodies.failed(failure),
        }
    }
}
