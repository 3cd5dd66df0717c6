//! What a server counts as it runs, for a `/metrics` page: its caps, the connections open, and
//! every connection it refused, closed to make room, or closed at a deadline or a limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::deadlines::Expired;

#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) cap: AtomicUsize,
    pub(super) per_client: AtomicUsize,
    pub(super) open: AtomicUsize,
    /// The most open at once since [`ConnectionCounters::peak_open_since_read`] last read it.
    pub(super) peak: AtomicUsize,
    pub(super) largest_client: AtomicUsize,
    pub(super) clients: AtomicUsize,
    pub(super) refused_full: AtomicU64,
    pub(super) refused_per_client: AtomicU64,
    pub(super) evicted: AtomicU64,
    pub(super) evicted_busy: AtomicU64,
    pub(super) reset_limited: AtomicU64,
    pub(super) upgraded: AtomicUsize,
    pub(super) expired: [AtomicU64; Expired::ALL.len()],
}

/// A [`Server`](super::Server)'s connection counters, read while it runs: take it with
/// [`Server::counters`](super::Server::counters) before `serve`, keep it in your state, read
/// [`stats`](Self::stats) for a `/metrics` page. Cheap to clone.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let server = bindery::serve::Server::bind("127.0.0.1:0").await?.max_connections(100);
/// let counters = server.counters();
/// assert_eq!(counters.stats().open, 0);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct ConnectionCounters(pub(super) Arc<Counters>);

impl ConnectionCounters {
    /// The most connections open at once since the last call; resets it to those open now.
    pub(super) fn peak_open_since_read(&self) -> usize {
        let open = self.0.open.load(Ordering::Relaxed);
        self.0.peak.swap(open, Ordering::Relaxed).max(open)
    }

    /// What the counters say now (caps are 0 until the server starts).
    pub fn stats(&self) -> ConnectionStats {
        let counters = &self.0;
        ConnectionStats {
            cap: counters.cap.load(Ordering::Relaxed),
            per_client: counters.per_client.load(Ordering::Relaxed),
            open: counters.open.load(Ordering::Relaxed),
            largest_client: counters.largest_client.load(Ordering::Relaxed),
            clients: counters.clients.load(Ordering::Relaxed),
            upgraded: counters.upgraded.load(Ordering::Relaxed),
            refused_full: counters.refused_full.load(Ordering::Relaxed),
            refused_per_client: counters.refused_per_client.load(Ordering::Relaxed),
            evicted: counters.evicted.load(Ordering::Relaxed),
            evicted_busy: counters.evicted_busy.load(Ordering::Relaxed),
            reset_limited: counters.reset_limited.load(Ordering::Relaxed),
            expired: Expired::ALL
                .map(|reason| counters.expired[reason.index()].load(Ordering::Relaxed)),
        }
    }
}

/// A [`Server`](super::Server)'s connection counters at one moment
/// ([`ConnectionCounters::stats`]).
///
/// ```
/// let stats = bindery::serve::server::ConnectionCounters::default().stats();
/// assert_eq!((stats.open, stats.refused_full, stats.evicted), (0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionStats {
    /// The cap ([`Server::max_connections`](super::Server::max_connections)).
    pub cap: usize,
    /// The cap per client
    /// ([`Server::max_connections_per_client`](super::Server::max_connections_per_client)).
    pub per_client: usize,
    /// Open now.
    pub open: usize,
    /// The most connections one client (an IPv4 address, an IPv6 /64) holds now; trusted
    /// proxies are no client.
    pub largest_client: usize,
    /// Clients holding a connection now.
    pub clients: usize,
    /// Open connections handed over to the application by an upgrade (a WebSocket).
    pub upgraded: usize,
    /// Refused at accept since start: the cap was reached with nothing idle, and the newcomer
    /// itself held the most.
    pub refused_full: u64,
    /// Refused at accept: the client held its share, each with a request in flight.
    pub refused_per_client: u64,
    /// Idle connections closed to make room for a new one.
    pub evicted: u64,
    /// Busy connections closed at the cap to make room for another client's: the oldest of
    /// the client holding the most.
    pub evicted_busy: u64,
    /// Connections ended (GOAWAY) because their client reset too many answered streams.
    pub reset_limited: u64,
    /// Closed by the watchdog, by reason (in [`Expired::ALL`] order).
    pub expired: [u64; Expired::ALL.len()],
}
