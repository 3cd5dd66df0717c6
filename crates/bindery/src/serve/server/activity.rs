//! What one connection has done, shared by its socket (delivery.rs), its requests' bodies
//! (in_flight.rs), its watchdog (deadlines.rs) and the cap (slots.rs): when it was accepted,
//! when requests started and ended, when bytes moved, whether a request head or header block
//! is half-received, and whether it was told to stop.
//!
//! Recording an event is a relaxed store of the server clock's time; a connection's turns
//! between idle and busy are reported to the cap, which files its idle connections in order.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use tokio::sync::Notify;

use super::clock::Clock;

mod socket;

/// The value of a time slot holding no time.
pub(super) const FREE: u64 = u64::MAX;

/// The cap's record of a connection (slots.rs), as the connection reports to it.
pub(super) trait CapRecord: Send + Sync {
    /// Files connection `id` as idle or busy, as its activity says now.
    fn reconcile(&self, id: u64);
    /// Counts a stream of connection `id` reset after it was answered, at `now`; whether the
    /// allowance is spent.
    fn count_reset(&self, id: u64, now: u64) -> bool;
}

/// Why a connection is told to stop, weakest first: a stronger reason overrides a weaker one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum Stop {
    /// The server is shutting down: no new requests (GOAWAY, no keep-alive), those in flight
    /// finish.
    Shutdown = 1,
    /// The client reset too many answered streams: GOAWAY now, closed soon after.
    Resets = 2,
    /// The cap needs its slot: closed now.
    Evicted = 3,
    /// The shutdown's grace is over: closed now.
    Close = 4,
}

impl Stop {
    fn from_u8(value: u8) -> Option<Stop> {
        [Stop::Shutdown, Stop::Resets, Stop::Evicted, Stop::Close]
            .into_iter()
            .find(|stop| *stop as u8 == value)
    }
}

/// What a connection has done.
#[derive(Debug)]
pub struct Activity {
    clock: Arc<Clock>,
    /// When the connection was accepted.
    pub(super) accepted: u64,
    /// Requests whose head was complete (the service was called).
    pub(super) started: AtomicU64,
    /// When a request last started or ended.
    pub(super) last_request: AtomicU64,
    /// When a byte last moved on the socket.
    pub(super) last_io: AtomicU64,
    /// One more than when a request head (HTTP/1) or header block (HTTP/2) began that is not
    /// complete yet; 0 when none is.
    pub(super) head_begun: AtomicU64,
    /// Whether the connection speaks HTTP/2 (known at its preface or first request).
    pub(super) is_http2: AtomicBool,
    /// When the answer of the first request in flight (one at a time over HTTP/1, the first
    /// stream of HTTP/2) last made progress, or [`FREE`]: kept inline, so that a request of an
    /// HTTP/1 connection takes no lock and allocates nothing.
    pub(super) inline_progress: AtomicU64,
    /// HTTP/1: the request in the inline slot has handed hyper its whole answer and ends when
    /// hyper has written it ([`Activity::flushed`]) or the next request starts.
    pub(super) unflushed: AtomicBool,
    /// The other requests in flight (HTTP/2's concurrent streams), each with the time its
    /// answer last made progress.
    in_flight: Mutex<Vec<Arc<AtomicU64>>>,
    pub(super) in_flight_count: AtomicUsize,
    /// HTTP/1: the request in flight has no body, so bytes read meanwhile begin the next head.
    bodyless: AtomicBool,
    /// HTTP/1: one more than when bytes of a next head came (after a head's end, or while a
    /// bodyless request was in flight: a pipelined head), 0 when none is pending.
    pipelined: AtomicU64,
    /// The oldest progress of a stream reset before its end since the connection last had
    /// nothing in flight or a stream last made progress, or [`FREE`]: a stream reset and
    /// replaced is no progress.
    pub(super) carried: AtomicU64,
    /// The connection was handed over to the application by an upgrade.
    upgraded: AtomicBool,
    stop_reason: AtomicU8,
    /// Wakes the watchdog when told to stop.
    stopped: Notify,
    /// Wakes the connection's own task to end gracefully.
    graceful: Notify,
    /// The cap's record of this connection, and whether the cap orders idle connections now.
    link: OnceLock<(Weak<dyn CapRecord>, u64, Arc<AtomicBool>)>,
    /// The socket while it is open, to shut it down under an application that holds it after
    /// an upgrade.
    #[cfg(unix)]
    socket: Mutex<Option<std::os::fd::RawFd>>,
    /// Wakes the watchdog when the socket is dropped.
    socket_gone: Notify,
}

impl Activity {
    /// A connection accepted now, timed by `clock`.
    pub(super) fn new(clock: &Arc<Clock>) -> Arc<Self> {
        clock.opened();
        let now = clock.now();
        Arc::new(Activity {
            clock: Arc::clone(clock),
            accepted: now,
            started: AtomicU64::new(0),
            last_request: AtomicU64::new(now),
            last_io: AtomicU64::new(now),
            head_begun: AtomicU64::new(0),
            is_http2: AtomicBool::new(false),
            inline_progress: AtomicU64::new(FREE),
            unflushed: AtomicBool::new(false),
            in_flight: Mutex::new(Vec::new()),
            in_flight_count: AtomicUsize::new(0),
            bodyless: AtomicBool::new(false),
            pipelined: AtomicU64::new(0),
            carried: AtomicU64::new(FREE),
            upgraded: AtomicBool::new(false),
            stop_reason: AtomicU8::new(0),
            stopped: Notify::new(),
            graceful: Notify::new(),
            link: OnceLock::new(),
            #[cfg(unix)]
            socket: Mutex::new(None),
            socket_gone: Notify::new(),
        })
    }

    /// The server clock's time now.
    pub(super) fn now(&self) -> u64 {
        self.clock.now()
    }

    /// Ties the connection to its record in the cap (`id` of `slots`), which orders idle
    /// connections while `tracking` says so.
    pub(super) fn link(&self, slots: Weak<dyn CapRecord>, id: u64, tracking: Arc<AtomicBool>) {
        let _ = self.link.set((slots, id, tracking));
    }

    /// Reports a turn between idle and busy to the cap, while it orders idle connections (near
    /// a limit: far from one a request takes no lock).
    fn turned(&self) {
        if let Some((slots, id, tracking)) = self.link.get() {
            // With the fence in `Slots::start_tracking`: either this sees the flag, or the
            // cap's pass over every connection sees this turn.
            std::sync::atomic::fence(Ordering::SeqCst);
            if tracking.load(Ordering::Relaxed)
                && let Some(slots) = slots.upgrade()
            {
                slots.reconcile(*id);
            }
        }
    }

    /// Records bytes read from the client. On an HTTP/1 connection between requests they
    /// begin the next request head, which then has the header deadline to complete; while a
    /// request without a body is in flight they are a pipelined head, which has it from its
    /// request's end.
    pub(super) fn bytes_read(&self) {
        let now = self.now();
        self.last_io.store(now, Ordering::Relaxed);
        if self.is_http2.load(Ordering::Relaxed) {
            return;
        }
        if self.in_flight_count.load(Ordering::Relaxed) == 0 {
            if self.head_begun.load(Ordering::Relaxed) == 0
                && self.started.load(Ordering::Relaxed) > 0
            {
                self.head_begun
                    .store(now.saturating_add(1), Ordering::Relaxed);
            }
        } else if self.bodyless.load(Ordering::Relaxed)
            && self.pipelined.load(Ordering::Relaxed) == 0
        {
            self.pipelined
                .store(now.saturating_add(1), Ordering::Relaxed);
        }
    }

    /// Records bytes written to the client.
    pub(super) fn bytes_written(&self) {
        self.last_io.store(self.now(), Ordering::Relaxed);
    }

    /// HTTP/1: whether the socket's bytes are looked at for heads' ends: not while a request
    /// with a body is being read.
    pub(super) fn scans_heads(&self) -> bool {
        !self.is_http2.load(Ordering::Relaxed)
            && (self.in_flight_count.load(Ordering::Relaxed) == 0
                || self.bodyless.load(Ordering::Relaxed))
    }

    /// HTTP/1: bytes followed a head's end: a next head has begun (it has the header deadline
    /// from its request's end).
    pub(super) fn next_head_begun(&self) {
        if self.pipelined.load(Ordering::Relaxed) == 0 {
            self.pipelined
                .store(self.now().saturating_add(1), Ordering::Relaxed);
        }
    }

    /// HTTP/1: the bytes read end at a head's end: no head is half-received.
    pub(super) fn heads_complete(&self) {
        self.pipelined.store(0, Ordering::Relaxed);
    }

    /// HTTP/2: a header block began that its frame did not end (CONTINUATION follows).
    pub(super) fn header_block_opened(&self) {
        self.is_http2.store(true, Ordering::Relaxed);
        if self.head_begun.load(Ordering::Relaxed) == 0 {
            self.head_begun
                .store(self.now().saturating_add(1), Ordering::Relaxed);
        }
    }

    /// HTTP/2: the header block ended.
    pub(super) fn header_block_closed(&self) {
        self.head_begun.store(0, Ordering::Relaxed);
    }

    /// Records that hyper has written all it held to the socket: an HTTP/1 request whose body
    /// was done ends now.
    pub(super) fn flushed(&self) {
        if self.unflushed.load(Ordering::Relaxed) {
            self.unflushed.store(false, Ordering::Relaxed);
            self.end_inline();
        }
    }

    /// Frees the inline slot: its request ended.
    pub(super) fn end_inline(&self) {
        self.inline_progress.store(FREE, Ordering::Relaxed);
        // A head that came behind a request without a body has the header deadline from now
        // (behind one with a body, its bytes may have been the body's).
        let pipelined = self.pipelined.swap(0, Ordering::Relaxed);
        if pipelined != 0
            && self.bodyless.load(Ordering::Relaxed)
            && self.head_begun.load(Ordering::Relaxed) == 0
        {
            self.head_begun
                .store(self.now().saturating_add(1), Ordering::Relaxed);
        }
        self.request_ended();
    }

    pub(super) fn request_ended(&self) {
        self.last_request.store(self.now(), Ordering::Relaxed);
        if self.in_flight_count.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.carried.store(FREE, Ordering::Relaxed);
            self.turned();
        }
    }

    /// Records a complete request head (of HTTP/2 when `is_http2`; with a body to read when
    /// `has_body`): the request's own progress slot (`None`: the connection's inline one) and
    /// whether it took the inline one. `InFlight::start` makes the request's guard of it.
    pub(super) fn begin_request(
        &self,
        is_http2: bool,
        has_body: bool,
    ) -> (Option<Arc<AtomicU64>>, bool) {
        let now = self.now();
        if is_http2 {
            self.is_http2.store(true, Ordering::Relaxed);
        } else {
            // A pipelined request: the last answer's bytes wait behind it in hyper's buffer,
            // and the connection is busy with this one meanwhile.
            self.flushed();
            self.head_begun.store(0, Ordering::Relaxed);
            self.bodyless.store(!has_body, Ordering::Relaxed);
        }
        let is_inline = self
            .inline_progress
            .compare_exchange(FREE, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok();
        let shared = (!is_inline).then(|| {
            let progress = Arc::new(AtomicU64::new(now));
            self.lock().push(Arc::clone(&progress));
            progress
        });
        self.started.fetch_add(1, Ordering::Relaxed);
        self.last_request.store(now, Ordering::Relaxed);
        if self.in_flight_count.fetch_add(1, Ordering::Relaxed) == 0 {
            self.turned();
        }
        (shared, is_inline)
    }

    /// A stream whose answer last made progress at `progress` was reset before its end: its
    /// stall carries over to the connection, and the reset is counted against the client.
    pub(super) fn stream_abandoned(&self, progress: u64) {
        self.carried.fetch_min(progress, Ordering::Relaxed);
        if let Some((slots, id, _)) = self.link.get()
            && let Some(slots) = slots.upgrade()
        {
            slots.count_reset(*id, self.now());
        }
    }

    /// Requests whose head was complete so far.
    #[cfg(test)]
    pub fn requests(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// Whether the connection waits for the client between requests: its first request came,
    /// none is in flight, and it was not handed over to the application by an upgrade. (One
    /// whose first request has not come yet is not idle but on its way: closing it for room
    /// would only make the next newcomer's room out of this one.)
    pub fn is_idle(&self) -> bool {
        self.in_flight_count.load(Ordering::Relaxed) == 0
            && self.started.load(Ordering::Relaxed) > 0
            && !self.is_upgraded()
    }

    /// Since when (in the server clock's milliseconds) the connection has had nothing in
    /// flight (its accept, or its last request's start or end): what the cap orders idle
    /// connections by.
    pub fn idle_since(&self) -> u64 {
        self.last_request.load(Ordering::Relaxed)
    }

    /// Marks the connection as handed over by an upgrade (it is then busy for the cap).
    pub(super) fn set_upgraded(&self) {
        self.upgraded.store(true, Ordering::Relaxed);
        self.turned();
    }

    /// Whether the connection was handed over by an upgrade.
    pub(super) fn is_upgraded(&self) -> bool {
        self.upgraded.load(Ordering::Relaxed)
    }

    /// Tells the connection to stop, for `reason` (the strongest reason told so far wins).
    pub(super) fn stop(&self, reason: Stop) {
        self.stop_reason.fetch_max(reason as u8, Ordering::AcqRel);
        if reason <= Stop::Resets {
            self.graceful.notify_one();
        }
        self.stopped.notify_one();
    }

    /// The strongest reason the connection was told to stop, if any.
    pub(super) fn stop_reason(&self) -> Option<Stop> {
        Stop::from_u8(self.stop_reason.load(Ordering::Acquire))
    }

    /// Completes when [`stop`](Self::stop) was called (since the last completion).
    pub(super) async fn stopped(&self) {
        self.stopped.notified().await;
    }

    /// Completes when the connection should end gracefully (GOAWAY, no keep-alive).
    pub(super) async fn asked_to_end(&self) {
        self.graceful.notified().await;
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<AtomicU64>>> {
        // Every update is one push or one removal: a panic elsewhere cannot leave it half done.
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Activity {
    fn drop(&mut self) {
        self.clock.closed();
    }
}
