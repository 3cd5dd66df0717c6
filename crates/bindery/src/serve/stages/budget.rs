//! The byte budget of heap bodies: decompressed bodies for clients without gzip (those not
//! shared through the cache) and `copy` mode's copies. Each such buffer carries its lease of the
//! budget for as long as any part of it lives ([`Lease::attach`]: a slow client, or h2 holding
//! the last frames of an answer whose body has ended, keeps it); a request whose body would take
//! the total past the budget, or its client past its share, is answered 503 with `Retry-After`
//! instead, as a full decompression queue is. Bodies lent from the binary or from the cache
//! lease nothing: their bytes exist anyway.
//!
//! The client is the connection's, told by the server that runs the service
//! ([`for_client`], which `Server` calls around each request); without one (another server,
//! or a trusted proxy's connection) only the whole budget bounds a request. Services left at
//! the default budget share one process-wide pool ([`Budget::shared`]), sized from the memory
//! limit (memory_plan.rs) as the default connection cap is.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use bytes::Bytes;

thread_local! {
    /// The client of the request being served on this thread, if known.
    static CLIENT: Cell<Option<u128>> = const { Cell::new(None) };
}

#[cfg_attr(not(feature = "server"), allow(dead_code))]
/// Runs `work` with `client` as the client of the request being served (what the budget
/// charges); the previous client is put back after, even on a panic.
pub(crate) fn for_client<R>(client: Option<u128>, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<u128>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CLIENT.with(|current| current.set(self.0));
        }
    }
    let _restore = Restore(CLIENT.with(|current| current.replace(client)));
    work()
}

/// The client of the request being served on this thread, if known.
pub(crate) fn current_client() -> Option<u128> {
    CLIENT.with(Cell::get)
}

/// The shared budget.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    /// The most one client may hold at once.
    share: usize,
    alive: AtomicUsize,
    peak: AtomicUsize,
    refused: AtomicU64,
    /// Bytes held by each client with a lease alive.
    by_client: Mutex<HashMap<u128, usize>>,
}

/// Bytes of the budget held; given back when dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    budget: Arc<Budget>,
    bytes: usize,
    client: Option<u128>,
}

/// A buffer and its lease: the owner of a leased `Bytes`.
struct Leased {
    bytes: Vec<u8>,
    _lease: Lease,
}

impl AsRef<[u8]> for Leased {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Budget {
    /// A budget of `limit` bytes, `share` of them at most for one client.
    pub(crate) fn new(limit: usize, share: usize) -> Arc<Budget> {
        Arc::new(Budget {
            limit,
            share: share.max(1),
            alive: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            by_client: Mutex::new(HashMap::new()),
        })
    }

    /// The process-wide budget of services left at the default (`limit` and `share` are the
    /// defaults, the same for every caller).
    pub(crate) fn shared(limit: usize, share: usize) -> Arc<Budget> {
        static SHARED: OnceLock<Arc<Budget>> = OnceLock::new();
        Arc::clone(SHARED.get_or_init(|| Budget::new(limit, share)))
    }

    fn clients(&self) -> std::sync::MutexGuard<'_, HashMap<u128, usize>> {
        self.by_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// `bytes` of the budget for the client of the request being served ([`for_client`]), or
    /// `None` (counted) when they do not fit.
    pub(crate) fn lease(self: &Arc<Self>, bytes: usize) -> Option<Lease> {
        self.lease_for(bytes, current_client())
    }

    /// `bytes` of the budget for `client`, or `None` (counted) when they do not fit the budget
    /// or the client's share.
    pub(crate) fn lease_for(self: &Arc<Self>, bytes: usize, client: Option<u128>) -> Option<Lease> {
        if let Some(client) = client {
            let mut clients = self.clients();
            let held = clients.entry(client).or_default();
            match held.checked_add(bytes).filter(|total| *total <= self.share) {
                Some(total) => *held = total,
                None => {
                    if *held == 0 {
                        clients.remove(&client);
                    }
                    self.refused.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
            }
        }
        let taken = self
            .alive
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |alive| {
                alive
                    .checked_add(bytes)
                    .filter(|total| *total <= self.limit)
            });
        match taken {
            Ok(before) => {
                self.peak.fetch_max(before + bytes, Ordering::Relaxed);
                Some(Lease {
                    budget: Arc::clone(self),
                    bytes,
                    client,
                })
            }
            Err(_) => {
                // The client's part taken above goes back.
                self.give_back(bytes, client, false);
                self.refused.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Whether `bytes` more fit `client`'s share now (always, for no client).
    pub(crate) fn has_room(&self, client: Option<u128>, bytes: usize) -> bool {
        client.is_none_or(|client| {
            let held = self.clients().get(&client).copied().unwrap_or(0);
            held.saturating_add(bytes) <= self.share
        })
    }

    /// Counts a request refused before it asked for a lease (its client was past its share).
    pub(crate) fn count_refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// (bytes alive now, the most ever alive, requests refused, the limit).
    pub(crate) fn figures(&self) -> (usize, usize, u64, usize) {
        (
            self.alive.load(Ordering::Relaxed),
            self.peak.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
            self.limit,
        )
    }

    /// The most one client may hold.
    pub(crate) fn share(&self) -> usize {
        self.share
    }

    /// What `client` holds now.
    #[cfg(test)]
    fn held_by(&self, client: u128) -> usize {
        self.clients().get(&client).copied().unwrap_or(0)
    }

    fn give_back(&self, bytes: usize, client: Option<u128>, from_budget: bool) {
        if from_budget {
            self.alive.fetch_sub(bytes, Ordering::AcqRel);
        }
        if let Some(client) = client {
            let mut clients = self.clients();
            if let Some(held) = clients.get_mut(&client) {
                *held = held.saturating_sub(bytes);
                if *held == 0 {
                    clients.remove(&client);
                }
            }
        }
    }
}

impl Lease {
    /// Keeps only `bytes` of the lease (a body smaller than what was reserved for making it).
    pub(crate) fn shrink_to(&mut self, bytes: usize) {
        if bytes < self.bytes {
            self.budget.give_back(self.bytes - bytes, self.client, true);
            self.bytes = bytes;
        }
    }

    /// `bytes` as one `Bytes` that holds this lease (shrunk to their length) for as long as
    /// any slice of them lives.
    pub(crate) fn attach(mut self, bytes: Vec<u8>) -> Bytes {
        self.shrink_to(bytes.len());
        Bytes::from_owner(Leased {
            bytes,
            _lease: self,
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes, self.client, true);
    }
}

#[cfg(test)]
mod tests {
    use super::{Budget, for_client};

    #[test]
    fn leases_fit_the_budget_and_give_it_back() {
        let budget = Budget::new(10, 10);
        let mut first = budget.lease(8).expect("fits");
        assert!(budget.lease(3).is_none(), "8 + 3 > 10");
        first.shrink_to(2);
        let second = budget.lease(8).expect("fits after the shrink");
        assert_eq!(budget.figures(), (10, 10, 1, 10));
        drop((first, second));
        assert_eq!(budget.figures().0, 0);
        assert!(budget.lease(usize::MAX).is_none(), "no overflow");
    }

    #[test]
    fn a_client_holds_no_more_than_its_share_and_others_still_fit() {
        let budget = Budget::new(100, 30);
        let greedy = for_client(Some(1), || budget.lease(20)).expect("fits");
        assert!(
            for_client(Some(1), || budget.lease(20)).is_none(),
            "past its share"
        );
        assert_eq!(budget.held_by(1), 20, "the refusal took nothing");
        let other = for_client(Some(2), || budget.lease(30)).expect("another client");
        let unknown = budget.lease(40).expect("no client: the whole budget only");
        // The budget is full: a refusal by the budget gives the client's part back.
        assert!(for_client(Some(3), || budget.lease(20)).is_none());
        assert_eq!(budget.held_by(3), 0);
        drop((greedy, other, unknown));
        assert_eq!(
            (budget.figures().0, budget.held_by(1), budget.held_by(2)),
            (0, 0, 0)
        );
    }

    #[test]
    fn bytes_attached_to_a_lease_hold_it_while_any_slice_lives() {
        let budget = Budget::new(100, 100);
        let lease = for_client(Some(7), || budget.lease(50)).expect("fits");
        let bytes = lease.attach(vec![1; 40]);
        assert_eq!(
            (budget.figures().0, budget.held_by(7)),
            (40, 40),
            "shrunk to the bytes"
        );
        let slice = bytes.slice(0..1);
        drop(bytes);
        assert_eq!(budget.figures().0, 40, "a slice still holds it");
        drop(slice);
        assert_eq!((budget.figures().0, budget.held_by(7)), (0, 0));
    }
}
