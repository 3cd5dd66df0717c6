//! An optional, bounded cache of decompressed bodies for clients that do not accept gzip.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use lru::LruCache;

/// Counters of the decompressed-body cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CacheStats {
    /// Requests answered from the cache.
    pub hits: u64,
    /// Requests that had to decompress.
    pub misses: u64,
    /// Bodies held now.
    pub entries: usize,
    /// Bytes held now.
    pub bytes: usize,
    /// The byte budget.
    pub budget: usize,
}

#[derive(Debug)]
struct State {
    entries: LruCache<usize, Bytes>,
    bytes: usize,
}

/// Decompressed bodies by file index, least recently used evicted first, never above the budget.
#[derive(Debug)]
pub(crate) struct DecompressedCache {
    budget: usize,
    state: Mutex<State>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl DecompressedCache {
    pub(crate) fn new(budget: usize) -> Self {
        DecompressedCache {
            budget,
            state: Mutex::new(State {
                entries: LruCache::unbounded(),
                bytes: 0,
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The body for `index` if cached, counted as a hit or a miss.
    pub(crate) fn get(&self, index: usize) -> Option<Bytes> {
        let found = self.lock().entries.get(&index).cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `body` for `index` if it fits the budget, evicting the least recently used;
    /// whether it was kept.
    pub(crate) fn insert(&self, index: usize, body: Bytes) -> bool {
        if body.len() > self.budget {
            return false;
        }
        let len = body.len();
        let mut state = self.lock();
        if let Some(previous) = state.entries.put(index, body) {
            state.bytes -= previous.len();
        }
        state.bytes += len;
        while state.bytes > self.budget {
            match state.entries.pop_lru() {
                Some((_, evicted)) => state.bytes -= evicted.len(),
                None => break,
            }
        }
        true
    }

    /// Whether the body for `index` is cached, without touching its recency.
    pub(crate) fn contains(&self, index: usize) -> bool {
        self.lock().entries.contains(&index)
    }

    pub(crate) fn stats(&self) -> CacheStats {
        let state = self.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            entries: state.entries.len(),
            bytes: state.bytes,
            budget: self.budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
