//! One connection's deadlines, whatever its protocol: a watchdog that closes it when the client
//! has not sent a complete request head in time, has gone idle between requests, has stopped
//! taking the answer to one of its requests, or, after an upgrade, has moved no byte.
//!
//! hyper's own timers do not cover these phases: its header-read timeout starts after the
//! protocol is known (hyper-util's version detection waits without a timer for the rest of an
//! HTTP/2 preface, so one byte, `P`, held a connection forever), and on a keep-alive connection
//! it starts as soon as the previous answer is written, which made it the keep-alive limit. So
//! hyper's is off and the watchdog watches what every protocol shares instead
//! ([`Activity`]): when the service is called (a request head is complete), when each
//! request's answer makes progress and ends ([`InFlight`](super::activity::InFlight)), when
//! bytes move on the socket, and when a head or an HTTP/2 header block is half-received
//! (delivery.rs follows the client's frames that far).
//!
//! A request is in flight until the last bytes of its answer are handed to the socket. A
//! request that makes no progress for the idle deadline closes the connection, whatever other
//! requests do on it: periodic `HEAD`s cannot keep streams held at window 0 alive, and a stream
//! reset and replaced by another passes its stall on to the connection.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::activity::{Activity, FREE};
use super::clock::TICK;

/// Why the watchdog closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// No complete request head within the header deadline of the accept.
    FirstRequest,
    /// A later request head (HTTP/1) or header block (HTTP/2) began and was not complete
    /// within the header deadline.
    Header,
    /// No request in flight and none started within the idle deadline; after an upgrade, no
    /// byte moved within the upgrade's deadline.
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

/// The deadlines the watchdog enforces.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// From the accept to the first complete request head; also from the first byte of each
    /// later head (HTTP/1) or header block (HTTP/2) to its end.
    pub first_request: Duration,
    /// Between requests, and for a request whose answer stopped making progress.
    pub idle: Duration,
    /// After an upgrade: how long no byte may move either way.
    pub upgraded: Duration,
}

/// When `activity`'s connection is due to close if nothing happens meanwhile, and why.
pub(super) fn due(activity: &Activity, limits: &Deadlines) -> (Duration, Expired) {
    let at = |millis: u64, limit: Duration| Duration::from_millis(millis).saturating_add(limit);
    if activity.is_upgraded() {
        let last_io = activity.last_io.load(Ordering::Relaxed);
        return (at(last_io, limits.upgraded), Expired::Idle);
    }
    if activity.started.load(Ordering::Relaxed) == 0 {
        return (
            at(activity.accepted, limits.first_request),
            Expired::FirstRequest,
        );
    }
    let inline = Some(activity.inline_progress.load(Ordering::Relaxed)).filter(|at| *at != FREE);
    let carried = Some(activity.carried.load(Ordering::Relaxed)).filter(|at| *at != FREE);
    let shared = activity
        .lock()
        .iter()
        .map(|progress| progress.load(Ordering::Relaxed))
        .min();
    let oldest_progress = inline.into_iter().chain(shared).chain(carried).min();
    let main = match oldest_progress {
        // Bytes do not count here: HTTP/2 pings (ours and the client's) move bytes on an idle
        // connection.
        None => (
            at(activity.last_request.load(Ordering::Relaxed), limits.idle),
            Expired::Idle,
        ),
        Some(oldest) => {
            // HTTP/1 has one answer on the wire at a time: its bytes moving are its progress.
            // HTTP/2 multiplexes: only each stream's own progress counts.
            let since = if activity.is_http2.load(Ordering::Relaxed) {
                oldest
            } else {
                oldest.max(activity.last_io.load(Ordering::Relaxed))
            };
            (at(since, limits.idle), Expired::Stalled)
        }
    };
    match activity.head_begun.load(Ordering::Relaxed) {
        0 => main,
        begun => {
            let head = at(begun - 1, limits.first_request);
            if head < main.0 {
                (head, Expired::Header)
            } else {
                main
            }
        }
    }
}

/// Completes when the connection has outlived a deadline: the caller closes the connection.
pub async fn watchdog(activity: Arc<Activity>, limits: Deadlines) -> Expired {
    // Every deadline an event sets lies at least the shortest limit after it: sleeping at most
    // that long at a time never wakes late.
    let step = limits
        .idle
        .min(limits.first_request)
        .min(limits.upgraded)
        .max(Duration::from_millis(1));
    loop {
        let (due, reason) = due(&activity, &limits);
        let now = Duration::from_millis(activity.now());
        if now >= due {
            return reason;
        }
        // The clock is a tick behind at most: past the due time, one more tick tells.
        tokio::time::sleep((due - now).min(step).max(TICK)).await;
    }
}

#[cfg(test)]
mod tests;
