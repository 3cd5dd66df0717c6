//! The byte budget of heap bodies: decompressed bodies for clients without gzip (those not
//! shared through the cache) and `copy` mode's copies. Each such body leases its bytes for as
//! long as it lives (a slow client keeps it alive); a request whose body would take the total
//! past the budget is answered 503 with `Retry-After` instead, as a full decompression queue is.
//! Bodies lent from the binary or from the cache lease nothing: their bytes exist anyway.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The shared budget.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    alive: AtomicUsize,
    peak: AtomicUsize,
    refused: AtomicU64,
}

/// Bytes of the budget held by one body; given back when dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Arc<Budget> {
        Arc::new(Budget {
            limit,
            alive: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
        })
    }

    /// `bytes` of the budget, or `None` (counted) when they do not fit.
    pub(crate) fn lease(self: &Arc<Self>, bytes: usize) -> Option<Lease> {
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
                })
            }
            Err(_) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
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
}

impl Lease {
    /// Keeps only `bytes` of the lease (a body smaller than what was reserved for making it).
    pub(crate) fn shrink_to(&mut self, bytes: usize) {
        if bytes < self.bytes {
            self.budget
                .alive
                .fetch_sub(self.bytes - bytes, Ordering::AcqRel);
            self.bytes = bytes;
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.budget.alive.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::Budget;

    #[test]
    fn leases_fit_the_budget_and_give_it_back() {
        let budget = Budget::new(10);
        let mut first = budget.lease(8).expect("fits");
        assert!(budget.lease(3).is_none(), "8 + 3 > 10");
        first.shrink_to(2);
        let second = budget.lease(8).expect("fits after the shrink");
        assert_eq!(budget.figures(), (10, 10, 1, 10));
        drop((first, second));
        assert_eq!(budget.figures().0, 0);
        assert!(budget.lease(usize::MAX).is_none(), "no overflow");
    }
}
