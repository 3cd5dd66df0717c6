//! Rendered answers kept by database record. Many addresses share one record (a city, a
//! country: maxminddb's `LookupResult::offset` says which), so the record's part of the JSON —
//! everything after `ip` and `network` — is decoded and rendered once and then copied. MaxMind's
//! own readers keep a cache keyed the same way.
//!
//! Bounded by a byte budget (S3-FIFO eviction, from `quick_cache`). Keys carry the loaded
//! database's generation, so a reload can never serve a record of the database before it.

use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::language::Language;

/// The default budget in MiB, as `--answer-cache-mib` takes it.
pub const DEFAULT_MIB: usize = 16;

/// The default budget: 16 MiB, some 40,000 records' answers in one language.
pub const DEFAULT_BUDGET: usize = DEFAULT_MIB << 20;

/// A budget given in MiB (`--answer-cache-mib`), in bytes; absurd sizes saturate.
///
/// ```
/// use geo_server::answer_cache::{DEFAULT_BUDGET, DEFAULT_MIB, budget_from_mib};
/// assert_eq!(budget_from_mib(DEFAULT_MIB), DEFAULT_BUDGET);
/// assert_eq!(budget_from_mib(usize::MAX), usize::MAX);
/// ```
pub fn budget_from_mib(mib: usize) -> usize {
    mib.saturating_mul(1 << 20)
}

/// What a cached answer costs besides its bytes: the key, the handle and the cache's own
/// bookkeeping, roughly.
const ENTRY_OVERHEAD: u64 = 96;

/// The record part of an answer, for one record of one loaded database in one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// Which load of a database (each load gets a new one).
    pub generation: u64,
    /// The record's offset in the database's data section.
    pub offset: usize,
    pub language: Language,
}

#[derive(Debug, Clone, Copy)]
struct Weight;

impl quick_cache::Weighter<Key, Tail> for Weight {
    fn weight(&self, _: &Key, value: &Tail) -> u64 {
        value.len() as u64 + ENTRY_OVERHEAD
    }
}

/// A kept record part. An `Arc<[u8]>` keeps its counts right before its bytes, so that taking
/// one reads the memory the copy that follows reads anyway; a `Bytes` keeps them in an
/// allocation of their own, one more cache miss on every hit.
pub(crate) type Tail = Arc<[u8]>;

type Store = quick_cache::sync::Cache<Key, Tail, Weight>;

/// The cache: off with a budget of 0.
///
/// ```
/// let cache = geo_server::answer_cache::AnswerCache::new(1 << 20);
/// assert_eq!(cache.stats().budget, 1 << 20);
/// assert_eq!(cache.stats().hits, 0);
/// ```
pub struct AnswerCache {
    /// Replaced whole by [`AnswerCache::clear`]: emptying the store in place would keep its
    /// slots and hash table at their largest size.
    cache: Option<ArcSwap<Store>>,
    budget: usize,
    /// Hits and misses of the stores replaced, so that the totals never go back.
    retired: std::sync::Mutex<Retired>,
}

#[derive(Debug, Default)]
struct Retired {
    hits: u64,
    misses: u64,
}

impl std::fmt::Debug for AnswerCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerCache")
            .field("stats", &self.stats())
            .finish()
    }
}

/// How the cache is doing, for `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnswerCacheStats {
    /// Answers whose record part came from the cache.
    pub hits: u64,
    /// Answers whose record was decoded (and then kept).
    pub misses: u64,
    /// Bytes held now, overhead included.
    pub bytes: u64,
    /// The store's own slots and hash table, allocated now: they grow with the most answers held
    /// since the last [`AnswerCache::clear`].
    pub slot_bytes: u64,
    /// Records held now.
    pub entries: usize,
    /// The byte budget; 0 when the cache is off.
    pub budget: usize,
}

impl AnswerCache {
    /// A cache of at most `budget` bytes; 0 turns it off.
    pub fn new(budget: usize) -> Self {
        let cache = (budget > 0).then(|| ArcSwap::from_pointee(store(budget)));
        AnswerCache {
            cache,
            budget,
            retired: std::sync::Mutex::default(),
        }
    }

    /// The record part of an answer, if it is kept.
    pub(crate) fn get(&self, key: &Key) -> Option<Tail> {
        self.cache.as_ref()?.load().get(key)
    }

    /// Keeps the record part of an answer (a no-op when the cache is off).
    pub(crate) fn insert(&self, key: Key, tail: &[u8]) {
        if let Some(cache) = &self.cache {
            cache.load().insert(key, Arc::from(tail));
        }
    }

    /// Whether answers are kept at all.
    pub(crate) fn is_on(&self) -> bool {
        self.cache.is_some()
    }

    /// Drops every answer (after a reload: the old generation's answers are never read again)
    /// and the store's slots and hash table with them, which grow with the most answers it ever
    /// held and would otherwise stay that size. A request still holding the old store finishes
    /// with it; it is freed when the last one lets go.
    ///
    /// ```
    /// let cache = geo_server::answer_cache::AnswerCache::new(1 << 20);
    /// cache.clear();
    /// let stats = cache.stats();
    /// assert_eq!((stats.entries, stats.bytes, stats.slot_bytes), (0, 0, 0));
    /// ```
    pub fn clear(&self) {
        if let Some(cache) = &self.cache {
            let mut retired = self.lock_retired();
            let old = cache.swap(Arc::new(store(self.budget)));
            retired.hits += old.hits();
            retired.misses += old.misses();
        }
    }

    /// The totals of the stores replaced; held while one is replaced, so that a reader never
    /// sees a total go back.
    fn lock_retired(&self) -> std::sync::MutexGuard<'_, Retired> {
        // The totals are plain numbers, whole even if a holder panicked.
        self.retired
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hits, misses and size.
    pub fn stats(&self) -> AnswerCacheStats {
        match &self.cache {
            None => AnswerCacheStats::default(),
            Some(cache) => {
                let retired = self.lock_retired();
                let cache = cache.load();
                AnswerCacheStats {
                    hits: retired.hits + cache.hits(),
                    misses: retired.misses + cache.misses(),
                    bytes: cache.weight(),
                    slot_bytes: cache.memory_used().total() as u64,
                    entries: cache.len(),
                    budget: self.budget,
                }
            }
        }
    }
}

/// An empty store for `budget` bytes. Its slots and table start empty and grow as answers
/// arrive: a server whose answers repeat never pays for the most it could hold.
fn store(budget: usize) -> Store {
    // A record's answer is about 400 bytes.
    let estimated_items = (budget / 512).max(16);
    quick_cache::sync::Cache::with_weighter(estimated_items, budget as u64, Weight)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(offset: usize) -> Key {
        Key {
            generation: 1,
            offset,
            language: Language::English,
        }
    }

    #[test]
    fn clearing_gives_back_the_slots_and_keeps_the_totals() {
        let cache = AnswerCache::new(1 << 20);
        for offset in 0..2_000 {
            cache.insert(key(offset), &[b'x'; 300]);
        }
        assert!(cache.get(&key(1_999)).is_some());
        assert!(cache.get(&key(usize::MAX)).is_none());
        let full = cache.stats();
        assert!(full.entries > 1_000, "{full:?}");
        assert!(full.slot_bytes > 0, "{full:?}");
        cache.clear();
        let cleared = cache.stats();
        assert_eq!(
            (cleared.entries, cleared.bytes, cleared.slot_bytes),
            (0, 0, 0)
        );
        assert!(cache.get(&key(1_999)).is_none());
        assert_eq!((cleared.hits, cleared.misses), (full.hits, full.misses));
        assert_eq!(cache.stats().misses, full.misses + 1);
    }

    #[test]
    fn a_cache_that_is_off_keeps_nothing() {
        let cache = AnswerCache::new(0);
        cache.insert(key(1), b"tail");
        assert!(cache.get(&key(1)).is_none());
        cache.clear();
        assert_eq!(cache.stats(), AnswerCacheStats::default());
    }
}
