//! The server's clock: milliseconds since it started, advanced by one task every [`TICK`] while
//! any connection is open, so that recording an event on a connection (bytes moving, a frame
//! taken, a request starting or ending) is one relaxed load and store, with no read of the
//! system's clock on the path of every request.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Milliseconds, saturating: every time of a connection is one of these, so each update is
/// one relaxed atomic store and no deadline arithmetic can overflow.
pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How often a server's [`Clock`] advances: the precision of every deadline.
pub(super) const TICK: Duration = Duration::from_millis(20);

/// How often an idle [`Clock`]'s task looks whether its server is gone.
pub(super) const IDLE_CHECK: Duration = Duration::from_secs(1);

/// A millisecond clock shared by a server's connections and advanced by one task
/// ([`Clock::run`]) every [`TICK`] while any connection is open. With no connection open
/// nothing is timed, and the task sleeps until one opens (waking once a second only to see
/// whether the server is gone) instead of waking a server with no clients 50 times a second;
/// the connection that ends such a quiet spell brings the clock up to date before it reads it.
#[derive(Debug)]
pub(super) struct Clock {
    start: Instant,
    millis: AtomicU64,
    /// Connections open (activities alive).
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
    pub(super) fn now(&self) -> u64 {
        self.millis.load(Ordering::Relaxed)
    }

    /// Reads the system's clock into this one.
    pub(super) fn advance(&self) {
        self.millis
            .store(millis(self.start.elapsed()), Ordering::Relaxed);
    }

    /// A connection opened. If the task had stopped, the clock is brought up to date first (it
    /// is as old as the quiet spell) and the task woken.
    pub(super) fn opened(&self) {
        self.open.fetch_add(1, Ordering::SeqCst);
        // Sequentially consistent with the task's store of `idle` then load of `open`: either
        // the task sees this connection and keeps ticking, or this sees `idle` and wakes it.
        if self.idle.swap(false, Ordering::SeqCst) {
            self.advance();
            self.wake.notify_one();
        }
    }

    /// A connection closed.
    pub(super) fn closed(&self) {
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

#[cfg(test)]
mod tests {
    use super::{Clock, IDLE_CHECK, TICK};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn the_clock_runs_only_while_a_connection_is_open() {
        let clock = Clock::new();
        let task = tokio::spawn(Clock::run(Arc::downgrade(&clock)));
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(clock.now(), 0, "no connection: nothing advanced it");
        clock.opened();
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
        clock.closed();
        tokio::time::sleep(TICK * 2).await;
        let stopped = clock.now();
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(clock.now(), stopped, "idle again");
        clock.opened();
        assert!(clock.now() >= stopped + 5_000, "up to date again");
        clock.closed();
        drop(clock);
        tokio::time::timeout(IDLE_CHECK * 2, task)
            .await
            .expect("the task ends once its clock is let go")
            .expect("the task did not panic");
    }
}
