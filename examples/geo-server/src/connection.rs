//! One connection's deadlines, whatever its protocol: a watchdog that closes it when the client
//! has not sent a complete request head in time, has gone idle between requests, or has stopped
//! reading or writing in the middle of one.
//!
//! hyper's own timers do not cover these phases: its header-read timeout starts after the
//! protocol is known, and hyper-util's version detection waits without a timer for the rest of
//! an HTTP/2 preface, so one byte (`P`) held a connection forever. The watchdog watches what
//! every protocol shares instead: when the service is called (a request head is complete), when
//! a response body ends, and when bytes move on the socket.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Why the watchdog closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// No complete request head within the header deadline of the accept.
    FirstRequest,
    /// No request in flight and none started within the idle deadline.
    Idle,
    /// A request in flight, and no byte moved either way within the idle deadline.
    Stalled,
}

impl Expired {
    /// The reason as logs and metrics name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Expired::FirstRequest => "first_request",
            Expired::Idle => "idle",
            Expired::Stalled => "stalled",
        }
    }
}

/// What a connection has done, shared by its IO, its service and its watchdog. Times are
/// milliseconds since the accept, so each update is one relaxed atomic store.
#[derive(Debug)]
pub struct Activity {
    accepted: Instant,
    /// Requests whose head was complete (the service was called).
    started: AtomicU64,
    /// Requests whose response body has not ended (or been dropped) yet.
    in_flight: AtomicUsize,
    /// When a request last started or ended.
    last_request: AtomicU64,
    /// When a byte last moved on the socket.
    last_io: AtomicU64,
}

impl Activity {
    /// A connection accepted now.
    pub fn new() -> Arc<Self> {
        Arc::new(Activity {
            accepted: Instant::now(),
            started: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            last_request: AtomicU64::new(0),
            last_io: AtomicU64::new(0),
        })
    }

    fn now(&self) -> u64 {
        u64::try_from(self.accepted.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn touch_io(&self) {
        self.last_io.store(self.now(), Ordering::Relaxed);
    }

    /// Records a complete request head; the guard ends the request when the response body
    /// it is attached to ends or is dropped.
    pub fn request_started(self: &Arc<Self>) -> InFlight {
        self.started.fetch_add(1, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.last_request.store(self.now(), Ordering::Relaxed);
        InFlight {
            activity: Some(Arc::clone(self)),
        }
    }

    /// Requests whose head was complete so far.
    pub fn requests(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// When the connection is due to close if nothing happens meanwhile, and why.
    fn deadline(&self, limits: &Deadlines) -> (Duration, Expired) {
        let millis = Duration::from_millis;
        if self.started.load(Ordering::Relaxed) == 0 {
            return (limits.first_request, Expired::FirstRequest);
        }
        if self.in_flight.load(Ordering::Relaxed) == 0 {
            // Bytes do not count here: HTTP/2 pings (ours and the client's) move bytes on an
            // idle connection.
            let since = millis(self.last_request.load(Ordering::Relaxed));
            return (since + limits.idle, Expired::Idle);
        }
        let since = millis(self.last_io.load(Ordering::Relaxed))
            .max(millis(self.last_request.load(Ordering::Relaxed)));
        (since + limits.idle, Expired::Stalled)
    }
}

/// The deadlines the watchdog enforces.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// From the accept to the first complete request head.
    pub first_request: Duration,
    /// Between requests, and for a request in flight whose bytes stopped moving.
    pub idle: Duration,
}

/// Completes when the connection has outlived a deadline: the caller drops the connection.
pub async fn watchdog(activity: Arc<Activity>, limits: Deadlines) -> Expired {
    loop {
        let (due, reason) = activity.deadline(&limits);
        let elapsed = activity.accepted.elapsed();
        if elapsed >= due {
            return reason;
        }
        // A deadline only moves earlier when the first request comes (idle after it may be
        // shorter than the first-request deadline), and every deadline that an event sets
        // lies at least `idle` after it: sleeping at most `idle` at a time never wakes late.
        tokio::time::sleep((due - elapsed).min(limits.idle)).await;
    }
}

/// One request in flight; ends it when dropped.
#[derive(Debug)]
pub struct InFlight {
    activity: Option<Arc<Activity>>,
}

impl InFlight {
    fn end(&mut self) {
        if let Some(activity) = self.activity.take() {
            activity.in_flight.fetch_sub(1, Ordering::Relaxed);
            activity
                .last_request
                .store(activity.now(), Ordering::Relaxed);
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.end();
    }
}

pin_project_lite::pin_project! {
    /// A response body that ends its request when it ends (or is dropped). Frames pass through
    /// untouched: a `Bytes::from_static` body stays one.
    pub struct Tracked<B> {
        #[pin]
        inner: B,
        in_flight: InFlight,
    }
}

impl<B> Tracked<B> {
    /// `inner`, ending `in_flight` with it.
    pub fn new(inner: B, in_flight: InFlight) -> Self {
        Tracked { inner, in_flight }
    }
}

impl<B> http_body::Body for Tracked<B>
where
    B: http_body::Body<Data = Bytes>,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, B::Error>>> {
        let mut this = self.project();
        let polled = this.inner.as_mut().poll_frame(context);
        // HTTP/2 stops polling once `is_end_stream` says so, and may keep the body a while.
        let ended = match &polled {
            Poll::Ready(None | Some(Err(_))) => true,
            Poll::Ready(Some(Ok(_))) => this.inner.is_end_stream(),
            Poll::Pending => false,
        };
        if ended {
            this.in_flight.end();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

pin_project_lite::pin_project! {
    /// A socket that records when bytes move. Vectored writes pass through as vectored writes.
    pub struct Watched<T> {
        #[pin]
        inner: T,
        activity: Arc<Activity>,
    }
}

impl<T> Watched<T> {
    /// `inner`, reporting to `activity`.
    pub fn new(inner: T, activity: Arc<Activity>) -> Self {
        Watched { inner, activity }
    }
}

impl<T: AsyncRead> AsyncRead for Watched<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let polled = this.inner.poll_read(context, buf);
        if buf.filled().len() > before {
            this.activity.touch_io();
        }
        polled
    }
}

impl<T: AsyncWrite> AsyncWrite for Watched<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let polled = this.inner.poll_write(context, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch_io();
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let polled = this.inner.poll_write_vectored(context, bufs);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch_io();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(context)
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(context)
    }
}

/// How many connections are open, against a cap: a slot is taken at accept and given back when
/// its guard drops.
#[derive(Debug)]
pub struct Slots {
    cap: usize,
    open: AtomicUsize,
    refused: AtomicU64,
    expired: [AtomicU64; 3],
}

impl Slots {
    /// At most `cap` connections at once.
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Slots {
            cap,
            open: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            expired: Default::default(),
        })
    }

    /// A slot, or `None` (counted as a refusal) when all are taken.
    pub fn take(self: &Arc<Self>) -> Option<Slot> {
        let taken = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.cap).then_some(open + 1)
            });
        match taken {
            Ok(_) => Some(Slot {
                slots: Arc::clone(self),
            }),
            Err(_) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Counts a connection the watchdog closed.
    pub fn record_expired(&self, reason: Expired) {
        self.expired[reason as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// What the counters say now.
    pub fn stats(&self) -> ConnectionStats {
        let expired = |reason: Expired| self.expired[reason as usize].load(Ordering::Relaxed);
        ConnectionStats {
            cap: self.cap,
            open: self.open.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            expired_first_request: expired(Expired::FirstRequest),
            expired_idle: expired(Expired::Idle),
            expired_stalled: expired(Expired::Stalled),
        }
    }
}

/// A taken connection slot.
#[derive(Debug)]
pub struct Slot {
    slots: Arc<Slots>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Connection counters, for `/metrics`.
///
/// ```
/// let slots = geo_server::connection::Slots::new(1);
/// let held = slots.take().expect("one slot");
/// assert!(slots.take().is_none(), "the cap is reached");
/// drop(held);
/// let stats = slots.stats();
/// assert_eq!((stats.open, stats.refused), (0, 1));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnectionStats {
    /// The cap (`--max-connections`).
    pub cap: usize,
    /// Open now.
    pub open: usize,
    /// Refused at accept since start, the cap being reached.
    pub refused: u64,
    /// Closed for sending no complete request head in time.
    pub expired_first_request: u64,
    /// Closed for idling between requests.
    pub expired_idle: u64,
    /// Closed for a request whose bytes stopped moving.
    pub expired_stalled: u64,
}

#[cfg(test)]
mod tests {
    use super::{Activity, Deadlines, Expired};
    use std::time::Duration;

    const LIMITS: Deadlines = Deadlines {
        first_request: Duration::from_secs(10),
        idle: Duration::from_secs(30),
    };

    #[test]
    fn each_phase_has_its_deadline() {
        let activity = Activity::new();
        assert_eq!(
            activity.deadline(&LIMITS),
            (LIMITS.first_request, Expired::FirstRequest)
        );
        let request = activity.request_started();
        assert_eq!(activity.deadline(&LIMITS).1, Expired::Stalled);
        drop(request);
        assert_eq!(activity.deadline(&LIMITS).1, Expired::Idle);
        assert_eq!(activity.requests(), 1);
    }
}
