//! Rendered answers kept by database record. Many addresses share one record (a city, a
//! country: maxminddb's `LookupResult::offset` says which), so the record's part of the JSON —
//! everything after `ip` and `network` — is decoded and rendered once and then copied. MaxMind's
//! own readers keep a cache keyed the same way.
//!
//! Bounded by a byte budget (S3-FIFO eviction, from `quick_cache`). Keys carry the loaded
//! database's generation, so a reload can never serve a record of the database before it.

use bytes::Bytes;

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

/// What a cached answer costs besides its bytes: the key, the `Bytes` handle and the cache's
/// own bookkeeping, roughly.
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

impl quick_cache::Weighter<Key, Bytes> for Weight {
    fn weight(&self, _: &Key, value: &Bytes) -> u64 {
        value.len() as u64 + ENTRY_OVERHEAD
    }
}

/// The cache: off with a budget of 0.
///
/// ```
/// let cache = geo_server::answer_cache::AnswerCache::new(1 << 20);
/// assert_eq!(cache.stats().budget, 1 << 20);
/// assert_eq!(cache.stats().hits, 0);
/// ```
pub struct AnswerCache {
    cache: Option<quick_cache::sync::Cache<Key, Bytes, Weight>>,
    budget: usize,
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
    /// Records held now.
    pub entries: usize,
    /// The byte budget; 0 when the cache is off.
    pub budget: usize,
}

impl AnswerCache {
    /// A cache of at most `budget` bytes; 0 turns it off.
    pub fn new(budget: usize) -> Self {
        let cache = (budget > 0).then(|| {
            // A record's answer is about 400 bytes.
            let estimated_items = (budget / 512).max(16);
            quick_cache::sync::Cache::with_weighter(estimated_items, budget as u64, Weight)
        });
        AnswerCache { cache, budget }
    }

    /// The record part of an answer, if it is kept.
    pub(crate) fn get(&self, key: &Key) -> Option<Bytes> {
        self.cache.as_ref()?.get(key)
    }

    /// Keeps the record part of an answer (a no-op when the cache is off).
    pub(crate) fn insert(&self, key: Key, tail: &[u8]) {
        if let Some(cache) = &self.cache {
            cache.insert(key, Bytes::copy_from_slice(tail));
        }
    }

    /// Whether answers are kept at all.
    pub(crate) fn is_on(&self) -> bool {
        self.cache.is_some()
    }

    /// Drops every answer (after a reload: the old generation's answers are never read again).
    pub fn clear(&self) {
        if let Some(cache) = &self.cache {
            cache.clear();
        }
    }

    /// Hits, misses and size.
    pub fn stats(&self) -> AnswerCacheStats {
        match &self.cache {
            None => AnswerCacheStats::default(),
            Some(cache) => AnswerCacheStats {
                hits: cache.hits(),
                misses: cache.misses(),
                bytes: cache.weight(),
                entries: cache.len(),
                budget: self.budget,
            },
        }
    }
}
