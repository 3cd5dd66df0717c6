//! The connection cap, fair: at most `cap` connections open, at most `per_client` of them from
//! one client (an IPv4 address, an IPv6 /64). At either limit the connection idle the longest
//! (of that client, or of all; a connection is idle once its first request has ended) is closed
//! to make room. At the cap with nothing idle, the client holding the most (counted block by
//! block: holders.rs) gives up its oldest connection, busy or not, if it holds at least two more
//! than the newcomer would; otherwise the newcomer is refused. So no small group of addresses
//! can hold every slot, however busy they keep them, and clients of equal shares do not take
//! slots from each other.
//!
//! Every choice is O(log n): idle connections are kept ordered by when they went idle (each
//! connection reports its turns between idle and busy: [`Slots::reconcile`]), holders by count.
//! The order is kept only near a limit (from half the cap, or half a client's share, until
//! below a quarter), made in one pass when that begins: far from any limit a request takes no
//! lock.
//!
//! Connections from a trusted proxy count against the cap only: a proxy's pooled upstream
//! connections carry many clients in turn, so no one client can be charged for them (limit
//! clients at the proxy: nginx's `limit_conn`), and they are closed for room only when idle.
//!
//! Streams a client resets after they were answered (HTTP/2's rapid reset, past what h2 counts
//! before accept) are counted per client, in a bucket that outlives the connection: past
//! `RESET_BURST`, refilled at `RESETS_PER_SECOND` (registry.rs), the connection that resets is ended.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

use super::activity::{Activity, CapRecord, Stop};
use super::counters::ConnectionCounters;
use super::deadlines::Expired;
use super::holders::Lineage;
use super::proxy::TrustedProxies;

mod registry;

pub(super) use super::client_key::ClientKey;
use registry::{Open, Registry, Resets};

/// The default number of connections one client may hold open
/// ([`Server::max_connections_per_client`](super::Server::max_connections_per_client)).
pub(super) const DEFAULT_PER_CLIENT: usize = 256;

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// The cap is reached with nothing idle, and the newcomer holds the most.
    Full,
    /// The client holds its share, each with a request in flight.
    PerClient,
}

impl CapRecord for Slots {
    fn reconcile(&self, id: u64) {
        Slots::reconcile(self, id);
    }

    fn count_reset(&self, id: u64, now: u64) -> bool {
        Slots::count_reset(self, id, now)
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
    /// Told when the last connection is gone.
    emptied: Notify,
    /// Whether idle connections are kept in order now (near a limit), shared with each
    /// connection's activity.
    tracking: Arc<AtomicBool>,
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
            emptied: Notify::new(),
            tracking: Arc::new(AtomicBool::new(false)),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Every update completes under the lock: a panic elsewhere leaves it consistent.
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a connection from `peer` with `activity`, closing another where a limit is
    /// reached (see the module docs); refused (and counted) when none may be closed.
    pub(super) fn take(
        self: &Arc<Self>,
        peer: IpAddr,
        activity: &Arc<Activity>,
    ) -> Result<Slot, Refused> {
        let client = (!self.trusted.trusts(peer)).then(|| {
            let key = ClientKey::of(peer);
            (key, Lineage::of(key.0))
        });
        let counters = &self.counters.0;
        let mut evicted = Vec::new();
        let mut registry = self.lock();
        if let Some((_, lineage)) = &client
            && registry.holders.count(lineage) >= self.per_client
        {
            let Some(victim) = registry.holders.longest_idle(lineage.client()) else {
                counters.refused_per_client.fetch_add(1, Ordering::Relaxed);
                return Err(Refused::PerClient);
            };
            registry.evict(victim, &mut evicted);
            counters.evicted.fetch_add(1, Ordering::Relaxed);
        }
        if registry.open.len() >= self.cap {
            match registry.victim_at_cap(client.as_ref().map(|(_, lineage)| lineage)) {
                Ok((victim, is_busy)) => {
                    registry.evict(victim, &mut evicted);
                    let counter = if is_busy {
                        &counters.evicted_busy
                    } else {
                        &counters.evicted
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                Err(refused) => {
                    counters.refused_full.fetch_add(1, Ordering::Relaxed);
                    return Err(refused);
                }
            }
        }
        let id = registry.next_id;
        registry.next_id += 1;
        if let Some((_, lineage)) = &client {
            registry.holders.add(lineage, id);
        }
        registry.open.insert(
            id,
            Open {
                client,
                activity: Arc::clone(activity),
                idle_since: None,
                resets: Resets::default(),
            },
        );
        let record: Arc<dyn CapRecord> = Arc::clone(self) as Arc<dyn CapRecord>;
        activity.link(Arc::downgrade(&record), id, Arc::clone(&self.tracking));
        if self.tracking.load(Ordering::Relaxed) {
            Self::reconcile_locked(&mut registry, id);
        } else if self.is_near_a_limit(&registry) {
            self.start_tracking(&mut registry);
        }
        self.publish(&registry);
        Ok(Slot {
            slots: Arc::clone(self),
            id,
            client: client.map(|(key, _)| key.bits()),
            evicted,
        })
    }

    /// Whether the open connections are near the cap, or a client's near its share: idle
    /// connections are then kept in order.
    fn is_near_a_limit(&self, registry: &Registry) -> bool {
        registry.open.len() >= self.cap.div_ceil(2)
            || registry.holders.figures().0 >= self.per_client.div_ceil(2)
    }

    /// Whether they are far from both (a quarter): the order is then dropped.
    fn is_far_from_limits(&self, registry: &Registry) -> bool {
        registry.open.len() < self.cap / 4 && registry.holders.figures().0 < self.per_client / 4
    }

    /// Starts keeping idle connections in order: the flag first, then one pass over every
    /// connection (a turn that missed the flag is seen by the pass: `Activity::turned`).
    fn start_tracking(&self, registry: &mut Registry) {
        self.tracking.store(true, Ordering::Relaxed);
        std::sync::atomic::fence(Ordering::SeqCst);
        let ids: Vec<u64> = registry.open.keys().copied().collect();
        for id in ids {
            Self::reconcile_locked(registry, id);
        }
    }

    /// Stops keeping idle connections in order, and forgets the order.
    fn stop_tracking(&self, registry: &mut Registry) {
        self.tracking.store(false, Ordering::Relaxed);
        let Registry {
            open,
            idle,
            holders,
            ..
        } = registry;
        idle.clear();
        for (id, open) in open.iter_mut() {
            if let (Some(since), Some((_, lineage))) = (open.idle_since.take(), &open.client) {
                holders.set_idle(lineage, *id, Some(since), None);
            }
        }
    }

    /// Files connection `id` as idle or busy, as its activity says now: called after each of
    /// its turns between the two (and reading the state under the lock, so that the last of
    /// two racing turns files what both left).
    pub(super) fn reconcile(&self, id: u64) {
        Self::reconcile_locked(&mut self.lock(), id);
    }

    fn reconcile_locked(registry: &mut Registry, id: u64) {
        let Registry {
            open,
            idle,
            holders,
            ..
        } = registry;
        let Some(open) = open.get_mut(&id) else {
            return;
        };
        let now = open.activity.is_idle().then(|| open.activity.idle_since());
        if open.idle_since == now {
            return;
        }
        if let Some(since) = open.idle_since {
            idle.remove(&(since, id));
        }
        if let Some(since) = now {
            idle.insert((since, id));
        }
        if let Some((_, lineage)) = &open.client {
            holders.set_idle(lineage, id, open.idle_since, now);
        }
        open.idle_since = now;
    }

    /// Counts a stream of connection `id` reset after it was answered, at `now`; whether the
    /// connection's or its client's allowance is spent (the connection is then told to end).
    pub(super) fn count_reset(&self, id: u64, now: u64) -> bool {
        let mut registry = self.lock();
        let Some(open) = registry.open.get_mut(&id) else {
            return false;
        };
        let mut is_spent = open.resets.count(now);
        let client = open.client.map(|(key, _)| key);
        let activity = Arc::clone(&open.activity);
        if let Some(key) = client {
            is_spent |= registry.resets.entry(key).or_default().count(now);
        }
        if is_spent {
            self.counters
                .0
                .reset_limited
                .fetch_add(1, Ordering::Relaxed);
            activity.stop(Stop::Resets);
        }
        is_spent
    }

    /// Counts a connection the watchdog closed.
    pub(super) fn record_expired(&self, reason: Expired) {
        self.counters.0.expired[reason.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a connection upgraded (`+1`) or one such gone (`-1`).
    pub(super) fn record_upgraded(&self, delta: isize) {
        let upgraded = &self.counters.0.upgraded;
        if delta > 0 {
            upgraded.fetch_add(1, Ordering::Relaxed);
        } else {
            upgraded.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// How many connections are open now.
    pub(super) fn open(&self) -> usize {
        self.lock().open.len()
    }

    /// Completes when no connection is open.
    pub(super) async fn emptied(&self) {
        loop {
            let emptied = self.emptied.notified();
            let mut emptied = std::pin::pin!(emptied);
            // Registered before the check, so a release in between still wakes this.
            emptied.as_mut().enable();
            if self.open() == 0 {
                return;
            }
            emptied.await;
        }
    }

    /// Tells every open connection to stop for `reason`.
    pub(super) fn stop_all(&self, reason: Stop) {
        let activities: Vec<Arc<Activity>> = self
            .lock()
            .open
            .values()
            .map(|open| Arc::clone(&open.activity))
            .collect();
        for activity in activities {
            activity.stop(reason);
        }
    }

    fn publish(&self, registry: &Registry) {
        let counters = &self.counters.0;
        let open = registry.open.len();
        counters.open.store(open, Ordering::Relaxed);
        counters.peak.fetch_max(open, Ordering::Relaxed);
        let (largest, clients) = registry.holders.figures();
        counters.largest_client.store(largest, Ordering::Relaxed);
        counters.clients.store(clients, Ordering::Relaxed);
    }

    fn release(&self, id: u64) {
        let mut registry = self.lock();
        if self.tracking.load(Ordering::Relaxed) && self.is_far_from_limits(&registry) {
            self.stop_tracking(&mut registry);
        }
        if let Some(open) = registry.remove(id)
            && let Some((key, _)) = open.client
        {
            let now = open.activity.now();
            // The client's allowance outlives its connections until it refills.
            if registry
                .resets
                .get(&key)
                .is_some_and(|resets| resets.drained(now) == 0)
                && registry.holders.count(&Lineage::of(key.0)) == 0
            {
                registry.resets.remove(&key);
            }
            registry.forget_refilled(now);
        }
        self.publish(&registry);
        if registry.open.is_empty() {
            self.emptied.notify_waiters();
        }
    }
}

/// A taken connection slot, given back when dropped.
#[derive(Debug)]
pub(super) struct Slot {
    slots: Arc<Slots>,
    id: u64,
    /// The client it is charged to (none for a trusted proxy), as the byte budget counts it.
    client: Option<u128>,
    /// The connections closed to make room for it, until the accept loop has seen them go.
    evicted: Vec<Arc<Activity>>,
}

impl Slot {
    /// The client it is charged to, as the byte budget counts it.
    pub(super) fn client(&self) -> Option<u128> {
        self.client
    }

    /// The connections closed to make room for this one (their tasks are told; their sockets
    /// close when the tasks next run).
    pub(super) fn take_evicted(&mut self) -> Vec<Arc<Activity>> {
        std::mem::take(&mut self.evicted)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.release(self.id);
    }
}

#[cfg(test)]
mod tests;
