//! Giving back what a burst of connections leaves behind. Each connection's buffers (hyper's,
//! h2's, the watchdog's) are small blocks from the allocator's per-thread heaps; when thousands
//! close at once, glibc keeps the freed pages in the middle of those heaps, resident, for good
//! (it returns only a heap's free top); SECURITY.md's "Per deployment" has what that held after
//! the hostile clients, before and after this module. `malloc_trim` releases every
//! whole free page of every heap; it runs when the open connections have fallen to half of
//! their peak since the last trim (and by at least [`BURST`]), checked every
//! [`CHECK_EVERY`]: after a burst, not in steady traffic. Elsewhere than glibc nothing.

use std::time::Duration;

use super::counters::ConnectionCounters;

/// How often the open connections are compared with their peak.
pub const CHECK_EVERY: Duration = Duration::from_secs(5);

/// The fewest connections a fall must close to count as the end of a burst.
pub const BURST: usize = 64;

/// Trims after each burst `counters` show, until dropped (the server's task ends it).
pub(super) async fn trim_after_bursts(counters: ConnectionCounters) {
    let mut peak = 0;
    let mut interval = tokio::time::interval(CHECK_EVERY);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let open = counters.stats().open;
        peak = peak.max(counters.peak_open_since_read());
        if is_after_burst(peak, open) {
            release_free_memory();
            peak = open;
        }
    }
}

/// Whether `open` connections, against a `peak` since the last trim, end a burst.
fn is_after_burst(peak: usize, open: usize) -> bool {
    peak.saturating_sub(open) >= BURST && open <= peak / 2
}

/// Returns the allocator's free pages to the system (glibc's `malloc_trim`); elsewhere nothing.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` may be called at any time from any thread; it releases only
        // memory that is free.
        unsafe {
            libc::malloc_trim(0);
        }
        tracing::debug!("free memory given back after a burst of connections");
    }
}

#[cfg(test)]
mod tests {
    use super::is_after_burst;

    #[test]
    fn only_a_large_fall_to_half_the_peak_is_a_burst_ended() {
        assert!(is_after_burst(1600, 3));
        assert!(is_after_burst(200, 100));
        assert!(!is_after_burst(200, 101), "not yet half");
        assert!(!is_after_burst(100, 40), "too few closed");
        assert!(!is_after_burst(0, 0));
    }
}
