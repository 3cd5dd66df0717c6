//! [`Stats`]: what a service counted, read with [`ServeCatalog::stats`](super::ServeCatalog::stats).

/// The counters of a [`ServeCatalog`](super::ServeCatalog) (and its clones), from [`ServeCatalog::stats`](super::ServeCatalog::stats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Requests answered from the decompressed-body cache.
    pub cache_hits: u64,
    /// Requests that looked in the cache and had to decompress.
    pub cache_misses: u64,
    /// Bodies the cache holds now.
    pub cache_entries: usize,
    /// Bytes the cache holds now.
    pub cache_bytes: usize,
    /// The cache's budget (0: no cache).
    pub cache_budget: usize,
    /// Decompressions begun (each of one file up to one length), in place or not.
    pub decompressions: u64,
    /// Requests that waited for a decompression another request had begun.
    pub decompressions_merged: u64,
    /// Decompressions stopped because every request that wanted them was gone.
    pub decompressions_abandoned: u64,
    /// Requests answered 503: the queue for a turn was full.
    pub decompressions_refused: u64,
    /// Decompressions waiting for a turn now.
    pub decompressions_waiting: usize,
    /// Decompressions on the blocking pool now.
    pub decompressions_running: usize,
    /// The most that ever ran there at once; never above `Decompression::at_once`.
    pub decompressions_peak: usize,
    /// Bytes decompressed, all decompressions together.
    pub decompressed_bytes: u64,
    /// Bytes held by heap bodies now (decompressed and not cached, or copied).
    pub heap_bytes: usize,
    /// The most ever held at once; never above `heap_budget`.
    pub heap_peak: usize,
    /// The budget (`Decompression::heap_budget`).
    pub heap_budget: usize,
    /// The most one client may hold (`Decompression::heap_per_client`).
    pub heap_per_client: usize,
    /// Requests answered 503 because their body did not fit the budget or their client's share.
    pub heap_refused: u64,
}
