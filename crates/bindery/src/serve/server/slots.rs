//! The connection cap, fair: at most `cap` connections open, at most `per_client` of them from
//! one client (an IPv4 address, an IPv6 /64), and at either limit the connection idle the
//! longest (of that client, or of all) is closed to make room before a new one is refused. So
//! one client holding every slot with idle keep-alive connections delays nobody else.
//!
//! Connections from a trusted proxy count against the cap only: a proxy's pooled upstream
//! connections carry many clients in turn, so no one client can be charged for them (limit
//! clients at the proxy: nginx's `limit_conn`). SECURITY.md has the reasoning.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::deadlines::{Activity, Expired};
use super::proxy::TrustedProxies;

/// The default number of connections one client may hold open
/// ([`Server::max_connections_per_client`](super::Server::max_connections_per_client)).
pub const DEFAULT_PER_CLIENT: usize = 256;

/// Who a connection is charged to: an IPv4 address, or the /64 network of an IPv6 one (one
/// subscriber's allocation); IPv4-mapped IPv6 addresses count as IPv4.
///
/// ```
/// use bindery::serve::server::ClientKey;
/// let a = ClientKey::of("2001:db8:1:2::1".parse().unwrap());
/// assert_eq!(a, ClientKey::of("2001:db8:1:2:ffff::9".parse().unwrap()));
/// assert_ne!(a, ClientKey::of("2001:db8:1:3::1".parse().unwrap()));
/// assert_eq!(ClientKey::of("::ffff:10.0.0.1".parse().unwrap()), ClientKey::of("10.0.0.1".parse().unwrap()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The key of a peer address.
    pub fn of(address: IpAddr) -> ClientKey {
        match address.to_canonical() {
            IpAddr::V6(v6) => {
                let network = u128::from(v6) & !((1u128 << 64) - 1);
                ClientKey(IpAddr::V6(network.into()))
            }
            v4 => ClientKey(v4),
        }
    }
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// Every slot is taken by a connection with a request in flight.
    Full,
    /// The client holds its share, each with a request in flight.
    PerClient,
}

struct Open {
    client: Option<ClientKey>,
    activity: Arc<Activity>,
}

#[derive(Default)]
struct Registry {
    open: HashMap<u64, Open>,
    by_client: HashMap<ClientKey, usize>,
    next_id: u64,
}

impl Registry {
    /// The connection idle the longest, among those of `client` (or all): the one to close.
    fn longest_idle(&self, client: Option<ClientKey>) -> Option<u64> {
        self.open
            .iter()
            .filter(|(_, open)| client.is_none() || open.client == client)
            .filter(|(_, open)| open.activity.is_idle())
            .min_by_key(|(_, open)| open.activity.idle_since())
            .map(|(id, _)| *id)
    }

    /// Closes connection `id` (its task is told; its slot is free now).
    fn evict(&mut self, id: u64) {
        if let Some(open) = self.remove(id) {
            open.activity.evict();
        }
    }

    fn remove(&mut self, id: u64) -> Option<Open> {
        let open = self.open.remove(&id)?;
        if let Some(client) = open.client {
            if let Some(count) = self.by_client.get_mut(&client) {
                *count -= 1;
                if *count == 0 {
                    self.by_client.remove(&client);
                }
            }
        }
        Some(open)
    }
}

/// How many connections are open, against the caps: a slot is taken at accept and given back
/// when its guard drops (or when the cap closes its connection).
pub(super) struct Slots {
    cap: usize,
    per_client: usize,
    trusted: TrustedProxies,
    registry: Mutex<Registry>,
    counters: ConnectionCounters,
}

impl std::fmt::Debug for Slots {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Slots")
            .field("cap", &self.cap)
            .field("per_client", &self.per_client)
            .finish_non_exhaustive()
    }
}

impl Slots {
    /// At most `cap` connections, `per_client` of one client; peers in `trusted` count
    /// against `cap` only. What happens is counted in `counters`.
    pub(super) fn new(
        cap: usize,
        per_client: usize,
        trusted: TrustedProxies,
        counters: ConnectionCounters,
    ) -> Arc<Self> {
        let (cap, per_client) = (cap.max(1), per_client.max(1));
        counters.0.cap.store(cap, Ordering::Relaxed);
        counters.0.per_client.store(per_client, Ordering::Relaxed);
        Arc::new(Slots {
            cap,
            per_client,
            trusted,
            registry: Mutex::new(Registry::default()),
            counters,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Every update completes under the lock: a panic elsewhere leaves it consistent.
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a connection from `peer` with `activity`, closing the connection idle the
    /// longest where a limit is reached; refused (and counted) when none is idle.
    pub(super) fn take(
        self: &Arc<Self>,
        peer: IpAddr,
        activity: &Arc<Activity>,
    ) -> Result<Slot, Refused> {
        let client = (!self.trusted.trusts(peer)).then(|| ClientKey::of(peer));
        let counters = &self.counters.0;
        let mut registry = self.lock();
        let share = client.map_or(0, |client| {
            registry.by_client.get(&client).copied().unwrap_or(0)
        });
        if client.is_some() && share >= self.per_client {
            let Some(victim) = registry.longest_idle(client) else {
                counters.refused_per_client.fetch_add(1, Ordering::Relaxed);
                return Err(Refused::PerClient);
            };
            registry.evict(victim);
            counters.evicted.fetch_add(1, Ordering::Relaxed);
        }
        if registry.open.len() >= self.cap {
            let Some(victim) = registry.longest_idle(None) else {
                counters.refused_full.fetch_add(1, Ordering::Relaxed);
                return Err(Refused::Full);
            };
            registry.evict(victim);
            counters.evicted.fetch_add(1, Ordering::Relaxed);
        }
        let id = registry.next_id;
        registry.next_id += 1;
        registry.open.insert(
            id,
            Open {
                client,
                activity: Arc::clone(activity),
            },
        );
        if let Some(client) = client {
            *registry.by_client.entry(client).or_default() += 1;
        }
        counters.open.store(registry.open.len(), Ordering::Relaxed);
        counters
            .peak
            .fetch_max(registry.open.len(), Ordering::Relaxed);
        Ok(Slot {
            slots: Arc::clone(self),
            id,
        })
    }

    /// Counts a connection the watchdog closed.
    pub(super) fn record_expired(&self, reason: Expired) {
        self.counters.0.expired[reason.index()].fetch_add(1, Ordering::Relaxed);
    }

    fn release(&self, id: u64) {
        let mut registry = self.lock();
        registry.remove(id);
        self.counters
            .0
            .open
            .store(registry.open.len(), Ordering::Relaxed);
    }
}

/// A taken connection slot.
#[derive(Debug)]
pub(super) struct Slot {
    slots: Arc<Slots>,
    id: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.release(self.id);
    }
}

#[derive(Debug, Default)]
struct Counters {
    cap: AtomicUsize,
    per_client: AtomicUsize,
    open: AtomicUsize,
    /// The most open at once since [`ConnectionCounters::peak_open_since_read`] last read it.
    peak: AtomicUsize,
    refused_full: AtomicU64,
    refused_per_client: AtomicU64,
    evicted: AtomicU64,
    expired: [AtomicU64; Expired::ALL.len()],
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
pub struct ConnectionCounters(Arc<Counters>);

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
            refused_full: counters.refused_full.load(Ordering::Relaxed),
            refused_per_client: counters.refused_per_client.load(Ordering::Relaxed),
            evicted: counters.evicted.load(Ordering::Relaxed),
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
pub struct ConnectionStats {
    /// The cap ([`Server::max_connections`](super::Server::max_connections)).
    pub cap: usize,
    /// The cap per client
    /// ([`Server::max_connections_per_client`](super::Server::max_connections_per_client)).
    pub per_client: usize,
    /// Open now.
    pub open: usize,
    /// Refused at accept since start: every slot held by a connection with a request in flight.
    pub refused_full: u64,
    /// Refused at accept: the client held its share, each with a request in flight.
    pub refused_per_client: u64,
    /// Idle connections closed to make room for a new one.
    pub evicted: u64,
    /// Closed by the watchdog, by reason (in [`Expired::ALL`] order).
    pub expired: [u64; Expired::ALL.len()],
}

#[cfg(test)]
mod tests {
    use super::{ConnectionCounters, DEFAULT_PER_CLIENT, Refused, Slots};
    use crate::serve::server::deadlines::{Activity, Clock};
    use crate::serve::server::proxy::TrustedProxies;

    #[test]
    fn at_the_cap_the_longest_idle_connection_makes_room() {
        let counters = ConnectionCounters::default();
        let slots = Slots::new(
            2,
            DEFAULT_PER_CLIENT,
            TrustedProxies::none(),
            counters.clone(),
        );
        let hog: std::net::IpAddr = "192.0.2.1".parse().expect("address");
        let clock = Clock::new();
        let first = Activity::new(&clock);
        let held_first = slots.take(hog, &first).expect("slot");
        std::thread::sleep(std::time::Duration::from_millis(5));
        clock.advance();
        let second = Activity::new(&clock);
        let _held_second = slots.take(hog, &second).expect("slot");
        let other = slots
            .take(
                "192.0.2.2".parse().expect("address"),
                &Activity::new(&Clock::new()),
            )
            .expect("room made");
        assert_eq!(counters.stats().evicted, 1);
        assert_eq!(counters.stats().open, 2);
        drop(held_first); // the evicted one's guard: a no-op now
        assert_eq!(counters.stats().open, 2);
        drop(other);
    }

    #[test]
    fn a_client_at_its_share_is_refused_when_none_of_its_connections_is_idle() {
        let slots = Slots::new(10, 1, TrustedProxies::none(), ConnectionCounters::default());
        let peer: std::net::IpAddr = "2001:db8::1".parse().expect("address");
        let busy = Activity::new(&Clock::new());
        let _request = busy.request_started(false);
        let _held = slots.take(peer, &busy).expect("slot");
        let same_network = "2001:db8::2".parse().expect("address");
        assert_eq!(
            slots
                .take(same_network, &Activity::new(&Clock::new()))
                .err(),
            Some(Refused::PerClient)
        );
        let elsewhere = "2001:db8:0:1::1".parse().expect("address");
        assert!(
            slots.take(elsewhere, &Activity::new(&Clock::new())).is_ok(),
            "another /64"
        );
    }

    #[test]
    fn a_trusted_proxy_counts_against_the_cap_only() {
        let trusted: TrustedProxies = "10.0.0.0/8".parse().expect("ranges");
        let slots = Slots::new(3, 1, trusted, ConnectionCounters::default());
        let proxy: std::net::IpAddr = "10.0.0.2".parse().expect("address");
        let busy = Activity::new(&Clock::new());
        let _request = busy.request_started(false);
        // Three pooled connections of one proxy, each busy: past the per-client share of 1.
        let held: Vec<_> = (0..3)
            .map(|_| {
                slots
                    .take(proxy, &busy)
                    .expect("counted against the cap only")
            })
            .collect();
        assert_eq!(
            slots.take(proxy, &busy).err(),
            Some(Refused::Full),
            "the cap still holds"
        );
        drop(held);
    }
}
