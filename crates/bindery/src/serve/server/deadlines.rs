//! One connection's deadlines, whatever its protocol: a watchdog that closes it when the client
//! has not sent a complete request head in time, has gone idle between requests, or has stopped
//! taking the answer to one of its requests.
//!
//! hyper's own timers do not cover these phases: its header-read timeout starts after the
//! protocol is known (hyper-util's version detection waits without a timer for the rest of an
//! HTTP/2 preface, so one byte, `P`, held a connection forever), and on a keep-alive connection
//! it starts as soon as the previous answer is written, which made it the keep-alive limit. So
//! hyper's is off and the watchdog watches what every protocol shares instead: when the service
//! is called (a request head is complete), when each request's answer makes progress and ends
//! ([`delivery`](super::delivery)), and when bytes move on the socket.
//!
//! A request is in flight until the last bytes of its answer are handed to the socket, and it
//! makes progress when its body gives hyper a frame; hyper asks for the next frame only once the
//! last one is written (HTTP/1, with a write buffer smaller than a frame) or once the client's
//! flow-control window has room for it (HTTP/2). An HTTP/1 answer whose body is done stays in
//! flight until hyper has written everything it holds ([`Activity::flushed`]): hyper is told the
//! body's end with its last frame, as under plain `axum::serve`, and its last bytes still count.
//! A request that makes no progress for the idle deadline closes the connection, whatever other
//! requests do on it: periodic `HEAD`s cannot keep streams held at window 0 alive.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Why the watchdog closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// No complete request head within the header deadline of the accept.
    FirstRequest,
    /// HTTP/1: a later request head began and was not complete within the header deadline.
    Header,
    /// No request in flight and none started within the idle deadline.
    Idle,
    /// A request in flight whose answer made no progress within the idle deadline.
    Stalled,
}

impl Expired {
    /// Every reason, in the order of [`Expired::index`].
    pub const ALL: [Expired; 4] = [
        Expired::FirstRequest,
        Expired::Header,
        Expired::Idle,
        Expired::Stalled,
    ];

    /// The reason as logs and metrics name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Expired::FirstRequest => "first_request",
            Expired::Header => "header",
            Expired::Idle => "idle",
            Expired::Stalled => "stalled",
        }
    }

    /// Its place in [`Expired::ALL`], for counters.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Milliseconds, saturating: every time of a connection is one of these, so each update is
/// one relaxed atomic store and no deadline arithmetic can overflow.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How often a server's [`Clock`] advances: the precision of every deadline.
pub(super) const TICK: Duration = Duration::from_millis(20);

/// How often an idle [`Clock`]'s task looks whether its server is gone.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// A millisecond clock shared by a server's connections and advanced by one task
/// ([`Clock::run`]) every [`TICK`] while any connection is open: recording an event (bytes
/// moving, a frame taken, a request starting or ending) is a relaxed load and store, with no
/// read of the system's clock on the path of every request. With no connection open nothing is
/// timed, and the task sleeps until one opens (waking once a second only to see whether the
/// server is gone) instead of waking a server with no clients 50 times a second; the connection
/// that ends such a quiet spell brings the clock up to date before it reads it.
#[derive(Debug)]
pub(super) struct Clock {
    start: Instant,
    millis: AtomicU64,
    /// Connections open ([`Activity`]s alive).
    open: AtomicUsize,
    /// The task stopped advancing the clock because no connection was open.
    idle: AtomicBool,
    /// Wakes the idle task.
    wake: Notify,
}

impl Clock {
    /// A clock at 0.
    pub(super) fn new() -> Arc<Clock> {
        Arc::new(Clock {
            start: Instant::now(),
            millis: AtomicU64::new(0),
            open: AtomicUsize::new(0),
            idle: AtomicBool::new(false),
            wake: Notify::new(),
        })
    }

    /// Milliseconds since the clock started, as of its last tick.
    fn now(&self) -> u64 {
        self.millis.load(Ordering::Relaxed)
    }

    /// Reads the system's clock into this one.
    pub(super) fn advance(&self) {
        self.millis
            .store(millis(self.start.elapsed()), Ordering::Relaxed);
    }

    /// A connection opened. If the task had stopped, the clock is brought up to date first (it
    /// is as old as the quiet spell) and the task woken.
    fn opened(&self) {
        self.open.fetch_add(1, Ordering::SeqCst);
        // Sequentially consistent with the task's store of `idle` then load of `open`: either
        // the task sees this connection and keeps ticking, or this sees `idle` and wakes it.
        if self.idle.swap(false, Ordering::SeqCst) {
            self.advance();
            self.wake.notify_one();
        }
    }

    /// A connection closed.
    fn closed(&self) {
        self.open.fetch_sub(1, Ordering::SeqCst);
    }

    /// Advances the clock every [`TICK`] while a connection is open, for as long as anything
    /// holds the clock (the server or one of its connections).
    pub(super) async fn run(clock: std::sync::Weak<Clock>) {
        loop {
            let Some(held) = clock.upgrade() else {
                return;
            };
            held.idle.store(true, Ordering::SeqCst);
            if held.open.load(Ordering::SeqCst) == 0 {
                // Held for at most `IDLE_CHECK`: a server that is gone lets the clock go.
                let _ = tokio::time::timeout(IDLE_CHECK, held.wake.notified()).await;
                continue;
            }
            // A connection is open: whatever `opened` did with the flag, the task ticks.
            held.idle.store(false, Ordering::SeqCst);
            drop(held);
            tokio::time::sleep(TICK).await;
            match clock.upgrade() {
                Some(clock) => clock.advance(),
                None => return,
            }
        }
    }
}

/// The inline progress slot's value when no request holds it.
const FREE: u64 = u64::MAX;

/// What a connection has done, shared by its IO, its requests' bodies and its watchdog.
#[derive(Debug)]
pub struct Activity {
    clock: Arc<Clock>,
    /// When the connection was accepted.
    accepted: u64,
    /// Requests whose head was complete (the service was called).
    started: AtomicU64,
    /// When a request last started or ended.
    last_request: AtomicU64,
    /// When a byte last moved on the socket.
    last_io: AtomicU64,
    /// HTTP/1: one more than when the first byte of the next request head came, 0 when none
    /// came since the last request started.
    head_begun: AtomicU64,
    /// Whether the connection speaks HTTP/2 (known at its first request).
    is_http2: AtomicBool,
    /// When the answer of the first request in flight (one at a time over HTTP/1, the first
    /// stream of HTTP/2) last made progress, or [`FREE`]: kept inline, so that a request of an
    /// HTTP/1 connection takes no lock and allocates nothing.
    inline_progress: AtomicU64,
    /// HTTP/1: the request in the inline slot has handed hyper its whole answer and ends when
    /// hyper has written it ([`Activity::flushed`]) or the next request starts.
    unflushed: AtomicBool,
    /// The other requests in flight (HTTP/2's concurrent streams), each with the time its
    /// answer last made progress.
    in_flight: Mutex<Vec<Arc<AtomicU64>>>,
    in_flight_count: AtomicUsize,
    /// Told to close by the connection cap (an idle connection makes room for a new one).
    evicted: Notify,
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
            evicted: Notify::new(),
        })
    }

    fn now(&self) -> u64 {
        self.clock.now()
    }

    /// Records bytes read from the client. On an HTTP/1 connection between requests they are
    /// the start of the next request head, which then has the header deadline to complete.
    pub(super) fn bytes_read(&self) {
        let now = self.now();
        self.last_io.store(now, Ordering::Relaxed);
        if self.in_flight_count.load(Ordering::Relaxed) == 0
            && self.head_begun.load(Ordering::Relaxed) == 0
            && self.started.load(Ordering::Relaxed) > 0
            && !self.is_http2.load(Ordering::Relaxed)
        {
            self.head_begun
                .store(now.saturating_add(1), Ordering::Relaxed);
        }
    }

    /// Records bytes written to the client.
    pub(super) fn bytes_written(&self) {
        self.last_io.store(self.now(), Ordering::Relaxed);
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
    fn end_inline(&self) {
        self.inline_progress.store(FREE, Ordering::Relaxed);
        self.request_ended();
    }

    fn request_ended(&self) {
        self.in_flight_count.fetch_sub(1, Ordering::Relaxed);
        self.last_request.store(self.now(), Ordering::Relaxed);
    }

    /// Records a complete request head (of HTTP/2 when `is_http2`); the guard ends the request
    /// when the answer's body has handed over its last bytes, or is dropped.
    pub fn request_started(self: &Arc<Self>, is_http2: bool) -> InFlight {
        let now = self.now();
        if is_http2 {
            self.is_http2.store(true, Ordering::Relaxed);
        } else {
            // A pipelined request: the last answer's bytes wait behind it in hyper's buffer,
            // and the connection is busy with this one meanwhile.
            self.flushed();
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
        self.in_flight_count.fetch_add(1, Ordering::Relaxed);
        self.started.fetch_add(1, Ordering::Relaxed);
        self.last_request.store(now, Ordering::Relaxed);
        self.head_begun.store(0, Ordering::Relaxed);
        InFlight {
            activity: Some(Arc::clone(self)),
            shared,
            until_flushed: is_inline && !is_http2,
            has_progressed: false,
        }
    }

    /// Requests whose head was complete so far.
    #[cfg(test)]
    pub fn requests(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// Whether no request is in flight: the connection waits for the client.
    pub fn is_idle(&self) -> bool {
        self.in_flight_count.load(Ordering::Relaxed) == 0
    }

    /// Since when (in the server clock's milliseconds) the connection has had nothing in
    /// flight (its accept, or its last request's start or end): what the cap compares to close
    /// the longest idle first.
    pub fn idle_since(&self) -> u64 {
        self.last_request.load(Ordering::Relaxed)
    }

    /// Tells the connection to close: the cap needs its slot.
    pub fn evict(&self) {
        self.evicted.notify_one();
    }

    /// Completes when [`evict`](Self::evict) was called.
    pub async fn evicted(&self) {
        self.evicted.notified().await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<AtomicU64>>> {
        // Every update is one push or one removal: a panic elsewhere cannot leave it half done.
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// When the connection is due to close if nothing happens meanwhile, and why.
    fn deadline(&self, limits: &Deadlines) -> (Duration, Expired) {
        let at = |millis: u64, limit: Duration| Duration::from_millis(millis).saturating_add(limit);
        if self.started.load(Ordering::Relaxed) == 0 {
            return (
                at(self.accepted, limits.first_request),
                Expired::FirstRequest,
            );
        }
        let inline = Some(self.inline_progress.load(Ordering::Relaxed)).filter(|at| *at != FREE);
        let shared = self
            .lock()
            .iter()
            .map(|progress| progress.load(Ordering::Relaxed))
            .min();
        let oldest_progress = inline.into_iter().chain(shared).min();
        let Some(oldest) = oldest_progress else {
            // Bytes do not count here: HTTP/2 pings (ours and the client's) move bytes on an
            // idle connection.
            let idle = (
                at(self.last_request.load(Ordering::Relaxed), limits.idle),
                Expired::Idle,
            );
            return match self.head_begun.load(Ordering::Relaxed) {
                0 => idle,
                begun => {
                    let head = at(begun - 1, limits.first_request);
                    if head < idle.0 {
                        (head, Expired::Header)
                    } else {
                        idle
                    }
                }
            };
        };
        // HTTP/1 has one answer on the wire at a time: its bytes moving are its progress.
        // HTTP/2 multiplexes: only each stream's own progress counts.
        let since = if self.is_http2.load(Ordering::Relaxed) {
            oldest
        } else {
            oldest.max(self.last_io.load(Ordering::Relaxed))
        };
        (at(since, limits.idle), Expired::Stalled)
    }
}

/// The deadlines the watchdog enforces.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// From the accept to the first complete request head; for HTTP/1, also from the first
    /// byte of each later head to its end.
    pub first_request: Duration,
    /// Between requests, and for a request whose answer stopped making progress.
    pub idle: Duration,
}

/// Completes when the connection has outlived a deadline: the caller drops the connection.
pub async fn watchdog(activity: Arc<Activity>, limits: Deadlines) -> Expired {
    // Every deadline an event sets lies at least the shorter limit after it: sleeping at most
    // that long at a time never wakes late.
    let step = limits
        .idle
        .min(limits.first_request)
        .max(Duration::from_millis(1));
    loop {
        let (due, reason) = activity.deadline(&limits);
        let now = Duration::from_millis(activity.now());
        if now >= due {
            return reason;
        }
        // The clock is a tick behind at most: past the due time, one more tick tells.
        tokio::time::sleep((due - now).min(step).max(TICK)).await;
    }
}

/// One request in flight; ends it when dropped (an HTTP/1 request: when hyper has then written
/// all it holds of the answer).
///
/// Kept small (it rides in every response body hyper moves): the connection, where the
/// request's progress is kept when it is not the connection's inline slot, and two flags.
#[derive(Debug, Default)]
pub struct InFlight {
    /// The connection; `None` once the request ended (or for the placeholder of
    /// [`Default`]).
    activity: Option<Arc<Activity>>,
    /// The request's own progress slot, or `None` for the connection's inline slot.
    shared: Option<Arc<AtomicU64>>,
    /// HTTP/1: the request ends at hyper's next flush once its body is done.
    until_flushed: bool,
    /// Whether the answer has made progress (hyper took a frame).
    has_progressed: bool,
}

impl InFlight {
    /// Whether the request stays in flight past its body's end until hyper has written the
    /// answer (HTTP/1): hyper may then be told the end with the last frame.
    pub fn ends_at_flush(&self) -> bool {
        self.until_flushed
    }

    /// Whether [`progressed`](Self::progressed) was called.
    pub fn has_progressed(&self) -> bool {
        self.has_progressed
    }

    /// Records that the answer made progress: hyper took a frame of its body.
    pub fn progressed(&mut self) {
        self.has_progressed = true;
        if let Some(activity) = &self.activity {
            let now = activity.now();
            match &self.shared {
                None => activity.inline_progress.store(now, Ordering::Relaxed),
                Some(progress) => progress.store(now, Ordering::Relaxed),
            }
        }
    }

    /// Ends the request: its answer is handed over, or given up (over HTTP/1, at hyper's next
    /// flush).
    pub fn end(&mut self) {
        if let Some(activity) = self.activity.take() {
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
}

impl Drop for Activity {
    fn drop(&mut self) {
        self.clock.closed();
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::{Activity, Clock, Deadlines, Expired, IDLE_CHECK, TICK};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn the_clock_runs_only_while_a_connection_is_open() {
        let clock = Clock::new();
        let task = tokio::spawn(Clock::run(Arc::downgrade(&clock)));
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(clock.now(), 0, "no connection: nothing advanced it");
        let activity = Activity::new(&clock);
        let opened = clock.now();
        assert!(
            (5_000..5_000 + 20).contains(&opened),
            "up to date: {opened}"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
        let ticking = clock.now();
        assert!(
            (6_000 - 20..=6_000).contains(&ticking),
            "ticking: {ticking}"
        );
        drop(activity);
        tokio::time::sleep(TICK * 2).await;
        let stopped = clock.now();
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(clock.now(), stopped, "idle again");
        let again = Activity::new(&clock);
        assert!(clock.now() >= stopped + 5_000, "up to date again");
        drop(again);
        drop(clock);
        tokio::time::timeout(IDLE_CHECK * 2, task)
            .await
            .expect("the task ends once its clock is let go")
            .expect("the task did not panic");
    }

    const LIMITS: Deadlines = Deadlines {
        first_request: Duration::from_secs(10),
        idle: Duration::from_secs(30),
    };

    #[test]
    fn each_phase_has_its_deadline() {
        let activity = Activity::new(&Clock::new());
        assert_eq!(
            activity.deadline(&LIMITS),
            (LIMITS.first_request, Expired::FirstRequest)
        );
        let request = activity.request_started(false);
        assert_eq!(activity.deadline(&LIMITS).1, Expired::Stalled);
        drop(request);
        assert_eq!(
            activity.deadline(&LIMITS).1,
            Expired::Stalled,
            "in flight until hyper has written the answer"
        );
        activity.flushed();
        assert_eq!(activity.deadline(&LIMITS).1, Expired::Idle);
        activity.bytes_read();
        assert_eq!(
            activity.deadline(&LIMITS).1,
            Expired::Header,
            "a next HTTP/1 head has the header deadline"
        );
        assert_eq!(activity.requests(), 1);
    }

    #[test]
    fn http2_streams_are_judged_by_their_own_progress() {
        let clock = Clock::new();
        let activity = Activity::new(&clock);
        let held = activity.request_started(true);
        std::thread::sleep(Duration::from_millis(20));
        clock.advance();
        // Another stream starting and ending, and bytes moving, renew nothing for `held`.
        drop(activity.request_started(true));
        activity.bytes_read();
        activity.bytes_written();
        let (due, reason) = activity.deadline(&LIMITS);
        assert_eq!(reason, Expired::Stalled);
        assert_eq!(due, LIMITS.idle, "from the held stream's start");
        let mut held = held;
        held.progressed();
        assert!(activity.deadline(&LIMITS).0 > LIMITS.idle);
    }

    #[test]
    fn the_first_request_in_flight_is_kept_inline_and_the_others_in_the_list() {
        let clock = Clock::new();
        let activity = Activity::new(&clock);
        let mut first = activity.request_started(true);
        let second = activity.request_started(true);
        assert_eq!(activity.lock().len(), 1, "only the second is in the list");
        std::thread::sleep(Duration::from_millis(5));
        clock.advance();
        first.progressed();
        // The second, still at its start, is the oldest.
        assert_eq!(activity.deadline(&LIMITS).0, LIMITS.idle);
        drop(second);
        assert!(activity.deadline(&LIMITS).0 > LIMITS.idle);
        drop(first);
        assert!(activity.is_idle());
        let third = activity.request_started(false);
        assert!(activity.lock().is_empty(), "the inline slot is free again");
        drop(third);
    }

    #[test]
    fn an_http1_answer_ends_when_written_or_when_the_next_request_starts() {
        let activity = Activity::new(&Clock::new());
        let first = activity.request_started(false);
        assert!(first.ends_at_flush());
        drop(first);
        assert!(!activity.is_idle(), "hyper still holds its bytes");
        activity.flushed();
        assert!(activity.is_idle());
        activity.flushed();
        assert!(
            activity.is_idle(),
            "a flush with nothing pending changes nothing"
        );
        drop(activity.request_started(false));
        // Pipelined: the next head came before the last answer was written.
        let next = activity.request_started(false);
        assert!(next.ends_at_flush(), "the inline slot was freed for it");
        assert!(activity.lock().is_empty());
        drop(next);
        activity.flushed();
        assert!(activity.is_idle());
        assert_eq!(activity.requests(), 3);
    }

    #[test]
    fn huge_limits_saturate_instead_of_overflowing() {
        let activity = Activity::new(&Clock::new());
        let limits = Deadlines {
            first_request: Duration::MAX,
            idle: Duration::MAX,
        };
        drop(activity.request_started(false));
        activity.flushed();
        activity.bytes_read();
        assert_eq!(activity.deadline(&limits).0, Duration::MAX);
    }
}
