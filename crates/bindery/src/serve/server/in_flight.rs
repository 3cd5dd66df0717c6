//! One request in flight, riding in its answer's body: it records the answer's progress as
//! hyper takes its frames, and ends the request with the body (an HTTP/1 request: when hyper
//! has then written all it holds).
//!
//! Over HTTP/2 a frame taken is not yet a frame sent: hyper 1 takes the next frame of a body as
//! soon as it has handed the last to h2, and h2 accepts one once the stream's window has room
//! for the data it already holds. So taking frame *k + 2* proves frame *k* left; progress is
//! what is proven so, counted each time another [`HTTP2_FRAME`] is. A stream's first frame, a
//! one-byte window update, or small multipart parts a few hundred bytes a minute prove nothing.
//! A stream dropped before its end (the client reset it, or the connection went) hands its
//! stall to the connection ([`Activity::stream_abandoned`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::activity::{Activity, FREE};

/// The largest frame an HTTP/2 answer hands hyper at once, and the bytes a stream must prove
/// sent to show progress: 64 KiB, four of h2's 16 KiB DATA frames.
pub const HTTP2_FRAME: usize = 64 * 1024;

/// One request in flight; ends it when dropped.
///
/// Kept small (it rides in every response body hyper moves): the connection, where the
/// request's progress is kept when it is not the connection's inline slot, flags and three
/// byte counts.
#[derive(Debug, Default)]
pub struct InFlight {
    /// The connection; `None` once the request ended (or for the placeholder of
    /// [`Default`]).
    activity: Option<Arc<Activity>>,
    /// The request's own progress slot, or `None` for the connection's inline slot.
    shared: Option<Arc<AtomicU64>>,
    /// HTTP/1: the request ends at hyper's next flush once its body is done.
    until_flushed: bool,
    is_http2: bool,
    /// Whether hyper took a frame of the answer's body.
    has_taken: bool,
    /// Whether the answer reached its end (or was empty): a drop then is no reset.
    is_finished: bool,
    /// HTTP/2: bytes taken, the length of the last frame taken, and the bytes proven sent when
    /// progress was last recorded.
    taken: u64,
    last_frame: u64,
    proven_at_mark: u64,
}

impl InFlight {
    /// Starts a request on `activity`'s connection (a complete head, of HTTP/2 when
    /// `is_http2`; with a body to read when `has_body`); the guard ends the request when the
    /// answer's body has handed over its last bytes, or is dropped.
    pub(super) fn start(activity: &Arc<Activity>, is_http2: bool, has_body: bool) -> InFlight {
        let (shared, is_inline) = activity.begin_request(is_http2, has_body);
        InFlight::new(
            Arc::clone(activity),
            shared,
            is_inline && !is_http2,
            is_http2,
        )
    }

    fn new(
        activity: Arc<Activity>,
        shared: Option<Arc<AtomicU64>>,
        until_flushed: bool,
        is_http2: bool,
    ) -> Self {
        InFlight {
            activity: Some(activity),
            shared,
            until_flushed,
            is_http2,
            ..InFlight::default()
        }
    }

    /// Whether the request stays in flight past its body's end until hyper has written the
    /// answer (HTTP/1): hyper may then be told the end with the last frame.
    pub fn ends_at_flush(&self) -> bool {
        self.until_flushed
    }

    /// Whether [`took`](Self::took) was called.
    pub fn has_taken(&self) -> bool {
        self.has_taken
    }

    /// Records that hyper took a frame of `len` bytes of the answer's body: progress over
    /// HTTP/1 (its bytes moving on the socket count too), and over HTTP/2 once it proves
    /// another [`HTTP2_FRAME`] sent (see the module docs).
    pub fn took(&mut self, len: usize) {
        self.has_taken = true;
        if !self.is_http2 {
            self.progressed();
            return;
        }
        let proven = self.taken - self.last_frame;
        self.taken += len as u64;
        self.last_frame = len as u64;
        if proven >= self.proven_at_mark + HTTP2_FRAME as u64 {
            self.proven_at_mark = proven;
            self.progressed();
        }
    }

    /// Records progress now.
    fn progressed(&mut self) {
        if let Some(activity) = &self.activity {
            let now = activity.now();
            match &self.shared {
                None => activity.inline_progress.store(now, Ordering::Relaxed),
                Some(progress) => progress.store(now, Ordering::Relaxed),
            }
            if self.is_http2 {
                // A stream that moves shows that the connection's client reads.
                activity.carried.store(FREE, Ordering::Relaxed);
            }
        }
    }

    /// Marks the answer as complete: its body ended (or is empty). Ending the request later is
    /// then no reset.
    pub fn finished(&mut self) {
        self.is_finished = true;
    }

    /// Ends the request: its answer is handed over, or given up (over HTTP/1, at hyper's next
    /// flush). An HTTP/2 answer given up before its end is a reset.
    pub fn end(&mut self) {
        let Some(activity) = self.activity.take() else {
            return;
        };
        if self.is_http2 && !self.is_finished {
            let progress = match &self.shared {
                None => activity.inline_progress.load(Ordering::Relaxed),
                Some(progress) => progress.load(Ordering::Relaxed),
            };
            activity.stream_abandoned(progress);
        }
        match &self.shared {
            None if self.until_flushed => activity.unflushed.store(true, Ordering::Relaxed),
            None => activity.end_inline(),
            Some(mine) => {
                activity
                    .lock()
                    .retain(|progress| !Arc::ptr_eq(progress, mine));
                activity.request_ended();
            }
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.end();
    }
}
