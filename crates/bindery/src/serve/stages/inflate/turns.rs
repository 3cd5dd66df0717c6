//! Turns: at most `at_once` decompressions run, at most `queue` wait for a turn (an eighth of
//! them for one client); a request that waits holds its place ([`Queued`]) and leaves the queue
//! when it goes.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use tokio::sync::{Notify, OwnedSemaphorePermit};

use super::Inflater;

/// A place in the queue for a turn (the client's too, when known), left when dropped.
pub(super) struct Queued<'a> {
    pub(super) inflater: &'a Inflater,
    pub(super) client: Option<u128>,
    pub(super) is_queued: bool,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        if self.is_queued {
            self.inflater.waiting.fetch_sub(1, Ordering::AcqRel);
        }
        if let Some(client) = self.client {
            let mut waiting = self.inflater.clients_waiting();
            if let Some(mine) = waiting.get_mut(&client) {
                *mine -= 1;
                if *mine == 0 {
                    waiting.remove(&client);
                }
            }
        }
    }
}

impl Inflater {
    /// [`turn`](Self::turn), or `None` as soon as `abandoned` is told (every request let go).
    pub(super) async fn turn_unless(
        &self,
        abandoned: &Notify,
        client: Option<u128>,
    ) -> Option<Option<OwnedSemaphorePermit>> {
        let turn = self.turn(client);
        let mut turn = std::pin::pin!(turn);
        let gone = abandoned.notified();
        let mut gone = std::pin::pin!(gone);
        std::future::poll_fn(|context| {
            if let std::task::Poll::Ready(turn) = turn.as_mut().poll(context) {
                return std::task::Poll::Ready(Some(turn));
            }
            gone.as_mut().poll(context).map(|()| None)
        })
        .await
    }

    /// A turn at once, or after waiting in the queue; `None` when the queue is full, or holds
    /// `client`'s part of it already (an eighth). Dropped while it waits, it leaves the queue.
    pub(super) async fn turn(&self, client: Option<u128>) -> Option<OwnedSemaphorePermit> {
        if let Ok(turn) = Arc::clone(&self.turns).try_acquire_owned() {
            return Some(turn);
        }
        let client = match client {
            Some(client) => {
                let mut waiting = self.clients_waiting();
                let mine = waiting.entry(client).or_default();
                if *mine >= (self.queue / 8).max(1) {
                    return None;
                }
                *mine += 1;
                Some(client)
            }
            None => None,
        };
        let is_queued = self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |waiting| {
                (waiting < self.queue).then_some(waiting + 1)
            })
            .is_ok();
        // Leaves the queue (and the client's part of it) when dropped, however this ends.
        let _queued = Queued {
            inflater: self,
            client,
            is_queued,
        };
        if !is_queued {
            return None;
        }
        // The semaphore is never closed, so this only ends with a turn.
        Arc::clone(&self.turns).acquire_owned().await.ok()
    }

    pub(super) fn clients_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<u128, usize>> {
        self.waiting_by_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
