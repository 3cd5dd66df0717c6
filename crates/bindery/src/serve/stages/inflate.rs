//! Decompressing gzip-stored files for clients that do not accept gzip, within bounds: one
//! decompression in flight per file and length (the requests that want the same bytes wait
//! for it, and share its buffer and its lease of the byte budget), at most
//! [`Decompression::at_once`](crate::serve::Decompression::at_once) at once across the service and its
//! clones, at most [`Decompression::queue`](crate::serve::Decompression::queue) more waiting for a turn
//! (an eighth of them for one client, as the server tells it: budget.rs)
//! (beyond that, or beyond the byte budget, a request gets 503 with `Retry-After` at once), no
//! further than the end of the range asked for, and stopped when every request that wanted it
//! is gone (one waiting for its turn leaves the queue at once). No timer is needed: the bounds
//! are counts, so the service works in any tokio runtime.
//!
//! Without these, `xargs -P500 curl -H 'Range: bytes=0-0'` on a large gzip-stored file (curl
//! sends no `Accept-Encoding`) kept every core busy decompressing whole files for one byte each.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use bytes::Bytes;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::EmbeddedFile;
use crate::serve::stages::budget::{self, Budget};
use crate::serve::stages::cache::DecompressedCache;

mod turns;

/// Counters of the bounded decompression.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DecompressionStats {
    /// Decompressions begun (each of one file up to one length).
    pub started: u64,
    /// Requests that waited for a decompression another request had begun, instead of
    /// beginning their own.
    pub merged: u64,
    /// Decompressions stopped because every request that wanted them was gone.
    pub abandoned: u64,
    /// Requests answered 503: the queue for a turn was full.
    pub refused: u64,
    /// Decompressions waiting for a turn now.
    pub waiting: usize,
    /// Decompressions running now.
    pub in_flight: usize,
    /// The most that ever ran at once; never above `limit`.
    pub peak_in_flight: usize,
    /// Bytes decompressed, all decompressions together.
    pub bytes: u64,
    /// The bound on decompressions at once.
    pub limit: usize,
    /// The bound on decompressions waiting for a turn.
    pub queue: usize,
}

/// Why no body came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The queue for a turn, or the byte budget, was full: 503.
    Busy,
    /// The stored bytes do not decompress to the file: 500.
    Corrupt,
}

/// A decompressed buffer (carrying its lease of the byte budget, unless the cache holds it),
/// shared by the bodies made of it.
#[derive(Debug, Clone)]
pub(crate) struct Inflated {
    pub(crate) bytes: Bytes,
    /// For a prefix (a range's bytes), the decompression's turn, held until the bodies have
    /// taken what they need of it (a small range is copied out, the prefix freed): so that at
    /// most [`Decompression::at_once`](crate::serve::Decompression::at_once) prefixes are alive
    /// beyond what bodies keep, however slowly the waiting requests are polled. A whole file
    /// gives its turn back at once: its body keeps all of it anyway.
    pub(crate) turn: Option<Arc<OwnedSemaphorePermit>>,
}

/// One decompression, shared by the requests that wait for it. They hold it; the work holds
/// it weakly, and stops when no request does (told by `abandoned` when the last lets go).
struct Flight {
    result: OnceLock<Result<Inflated, Failure>>,
    done: Notify,
    abandoned: Arc<Notify>,
}

impl Drop for Flight {
    fn drop(&mut self) {
        // A permit is kept if the work is not waiting yet: it sees it when it does.
        self.abandoned.notify_one();
    }
}

/// Which bytes a flight makes: a file (by address: every file of a catalog is `'static`) up to
/// a length.
type Key = (usize, usize);

/// The shared state of the bounded decompression.
pub(crate) struct Inflater {
    turns: Arc<Semaphore>,
    limit: usize,
    queue: usize,
    waiting: AtomicUsize,
    /// Decompressions waiting for a turn, by client.
    waiting_by_client: Mutex<HashMap<u128, usize>>,
    flights: Mutex<HashMap<Key, Weak<Flight>>>,
    started: AtomicU64,
    merged: AtomicU64,
    abandoned: AtomicU64,
    refused: AtomicU64,
    in_flight: AtomicUsize,
    peak_in_flight: AtomicUsize,
    bytes: AtomicU64,
}

impl std::fmt::Debug for Inflater {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Inflater")
            .field("limit", &self.limit)
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

/// What one flight decompresses, and the budget it holds for the result.
struct Job {
    key: Key,
    file: &'static EmbeddedFile,
    upto: usize,
    cache: Option<(Arc<DecompressedCache>, usize)>,
    budget: Arc<Budget>,
    /// The client of the request that began it: the one its lease is charged to.
    client: Option<u128>,
    abandoned: Arc<Notify>,
}

impl Inflater {
    pub(crate) fn new(limit: usize, queue: usize) -> Self {
        let limit = limit.max(1);
        Inflater {
            turns: Arc::new(Semaphore::new(limit)),
            limit,
            queue,
            waiting: AtomicUsize::new(0),
            waiting_by_client: Mutex::new(HashMap::new()),
            flights: Mutex::new(HashMap::new()),
            started: AtomicU64::new(0),
            merged: AtomicU64::new(0),
            abandoned: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            peak_in_flight: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    pub(crate) fn stats(&self) -> DecompressionStats {
        DecompressionStats {
            started: self.started.load(Ordering::Relaxed),
            merged: self.merged.load(Ordering::Relaxed),
            abandoned: self.abandoned.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            waiting: self.waiting.load(Ordering::Relaxed),
            in_flight: self.in_flight.load(Ordering::Relaxed),
            peak_in_flight: self.peak_in_flight.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            limit: self.limit,
            queue: self.queue,
        }
    }

    /// Counts a decompression done in place (no runtime, or a file under the off-thread
    /// threshold): it is bounded by the caller, but still counted.
    pub(crate) fn count_in_place(&self, bytes: usize) {
        self.started.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// The first `upto` bytes of `file` (all of them when `upto` is its length), joined to a
    /// decompression in flight for the same bytes or begun on tokio's blocking pool (leasing
    /// `upto` bytes of `budget` once it has a turn); a whole body goes into `cache` (`index` its key) when
    /// there is one. Must run inside a tokio runtime.
    pub(crate) async fn body(
        self: &Arc<Self>,
        file: &'static EmbeddedFile,
        upto: usize,
        cache: Option<(Arc<DecompressedCache>, usize)>,
        budget: &Arc<Budget>,
    ) -> Result<Inflated, Failure> {
        let key = (std::ptr::from_ref(file) as usize, upto);
        let flight = {
            let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
            match flights.get(&key).and_then(Weak::upgrade) {
                Some(flight) => {
                    self.merged.fetch_add(1, Ordering::Relaxed);
                    flight
                }
                None => {
                    let abandoned = Arc::new(Notify::new());
                    let flight = Arc::new(Flight {
                        result: OnceLock::new(),
                        done: Notify::new(),
                        abandoned: Arc::clone(&abandoned),
                    });
                    flights.insert(key, Arc::downgrade(&flight));
                    let job = Job {
                        key,
                        file,
                        upto,
                        cache,
                        budget: Arc::clone(budget),
                        client: budget::current_client(),
                        abandoned,
                    };
                    tokio::spawn(Arc::clone(self).fly(job, Arc::downgrade(&flight)));
                    flight
                }
            }
        };
        loop {
            let notified = flight.done.notified();
            tokio::pin!(notified);
            // Registered before the check, so a result set in between still wakes us.
            notified.as_mut().enable();
            if let Some(result) = flight.result.get() {
                return result.clone();
            }
            notified.await;
        }
    }

    /// The work of one flight: a turn, then the decompression on the blocking pool, then the
    /// result handed to whoever still waits. A flight every request let go of while it waited
    /// for its turn leaves the queue at once.
    async fn fly(self: Arc<Self>, job: Job, flight: Weak<Flight>) {
        let Job {
            key,
            file,
            upto,
            cache,
            budget,
            client,
            abandoned,
        } = job;
        // The bytes are leased once the work may start: waiting for a turn holds nothing. A
        // client already past its share waits for nothing.
        if !budget.has_room(client, upto) {
            budget.count_refused();
            self.finish(key, &flight, Err(Failure::Busy));
            return;
        }
        let Some(turn) = self.turn_unless(&abandoned, client).await else {
            self.abandoned.fetch_add(1, Ordering::Relaxed);
            self.forget(key, &flight);
            return;
        };
        let result = match turn {
            Some(turn) => match budget.lease_for(upto, client) {
                Some(lease) => self
                    .decompress(file, upto, &flight)
                    .await
                    .map(|result| result.map(|bytes| (bytes, lease, turn))),
                None => Some(Err(Failure::Busy)),
            },
            None => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                Some(Err(Failure::Busy))
            }
        };
        let result = result.map(|result| {
            result.map(|(decompressed, lease, turn)| {
                let is_whole = decompressed.len() == file.len();
                let bytes = match cache.as_ref().filter(|_| is_whole) {
                    Some((cache, index)) => {
                        let bytes = Bytes::from(decompressed);
                        if cache.insert(*index, bytes.clone()) {
                            // The cache holds the bytes now, under its own budget.
                            bytes
                        } else {
                            lease.attach(Vec::from(bytes))
                        }
                    }
                    None => lease.attach(decompressed),
                };
                Inflated {
                    bytes,
                    turn: (!is_whole).then(|| Arc::new(turn)),
                }
            })
        });
        match result {
            Some(result) => self.finish(key, &flight, result),
            None => self.forget(key, &flight),
        }
    }

    /// Hands `result` to whoever still waits for `flight`, which is done.
    fn finish(&self, key: Key, flight: &Weak<Flight>, result: Result<Inflated, Failure>) {
        self.forget(key, flight);
        if let Some(flight) = flight.upgrade() {
            let _ = flight.result.set(result);
            flight.done.notify_waiters();
        }
    }

    /// Removes `flight` from the flights in progress, if it is the one known under `key`.
    fn forget(&self, key: Key, flight: &Weak<Flight>) {
        let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        if flights.get(&key).is_some_and(|known| known.ptr_eq(flight)) {
            flights.remove(&key);
        }
    }

    /// Decompresses (the caller holds a turn); `None` when abandoned.
    async fn decompress(
        &self,
        file: &'static EmbeddedFile,
        upto: usize,
        flight: &Weak<Flight>,
    ) -> Option<Result<Vec<u8>, Failure>> {
        let Some(compressed) = file.gzip() else {
            return Some(Err(Failure::Corrupt));
        };
        if flight.strong_count() == 0 {
            self.abandoned.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        self.started.fetch_add(1, Ordering::Relaxed);
        let running = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak_in_flight.fetch_max(running, Ordering::Relaxed);
        let wanted = flight.clone();
        let job = tokio::task::spawn_blocking(move || {
            file.decompress_upto(compressed, upto, &|| wanted.strong_count() > 0)
        })
        .await;
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        match job {
            Ok(Ok(Some(body))) => {
                self.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
                Some(Ok(body))
            }
            Ok(Ok(None)) => {
                self.abandoned.fetch_add(1, Ordering::Relaxed);
                None
            }
            Ok(Err(_)) | Err(_) => Some(Err(Failure::Corrupt)),
        }
    }
}

#[cfg(test)]
mod tests;
