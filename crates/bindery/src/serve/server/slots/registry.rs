//! What the cap's lock guards: the open connections, the idle ones in order, the holders by
//! count, and the reset allowances by client.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::super::activity::{Activity, Stop};
use super::super::holders::{Holders, Lineage};
use super::{ClientKey, Refused};

/// Answered HTTP/2 streams one client may reset at once before the connection that resets is
/// ended; the allowance refills at [`RESETS_PER_SECOND`].
pub(in crate::serve::server) const RESET_BURST: u64 = 512;

/// How fast the reset allowance refills.
pub(in crate::serve::server) const RESETS_PER_SECOND: u64 = 64;

/// The most reset allowances remembered for clients with no connection open; past it the
/// refilled ones are forgotten.
const REMEMBERED_RESETS: usize = 4096;

/// A reset allowance: resets counted, draining at [`RESETS_PER_SECOND`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Resets {
    pub(super) level: u64,
    pub(super) at: u64,
}

impl Resets {
    /// The level at `now` (milliseconds).
    pub(super) fn drained(self, now: u64) -> u64 {
        let drained = now
            .saturating_sub(self.at)
            .saturating_mul(RESETS_PER_SECOND)
            / 1000;
        self.level.saturating_sub(drained)
    }

    /// Counts one reset at `now`; whether the allowance is spent.
    pub(super) fn count(&mut self, now: u64) -> bool {
        self.level = self.drained(now) + 1;
        self.at = now;
        self.level > RESET_BURST
    }
}

pub(super) struct Open {
    pub(super) client: Option<(ClientKey, Lineage)>,
    pub(super) activity: Arc<Activity>,
    /// When it went idle, as filed in the idle sets; `None` while busy.
    pub(super) idle_since: Option<u64>,
    pub(super) resets: Resets,
}

#[derive(Default)]
pub(super) struct Registry {
    pub(super) open: HashMap<u64, Open>,
    /// Every idle connection: (idle since, id).
    pub(super) idle: BTreeSet<(u64, u64)>,
    pub(super) holders: Holders,
    /// Reset allowances by client, kept while a client's is not refilled.
    pub(super) resets: HashMap<ClientKey, Resets>,
    pub(super) next_id: u64,
}

impl Registry {
    /// Closes connection `id` (its task is told; its slot is free now), into `evicted`.
    pub(super) fn evict(&mut self, id: u64, evicted: &mut Vec<Arc<Activity>>) {
        if let Some(open) = self.remove(id) {
            open.activity.stop(Stop::Evicted);
            evicted.push(open.activity);
        }
    }

    pub(super) fn remove(&mut self, id: u64) -> Option<Open> {
        let open = self.open.remove(&id)?;
        if let Some(since) = open.idle_since {
            self.idle.remove(&(since, id));
        }
        if let Some((_, lineage)) = &open.client {
            self.holders.remove(lineage, id, open.idle_since);
        }
        Some(open)
    }

    /// The connection to close for a newcomer `client` at the cap: the longest idle, else the
    /// oldest of the client holding the most, if it holds at least two more than the newcomer
    /// would (holders.rs).
    pub(super) fn victim_at_cap(&self, client: Option<&Lineage>) -> Result<(u64, bool), Refused> {
        if let Some((_, id)) = self.idle.first() {
            return Ok((*id, false));
        }
        let victim = self.holders.victim_for(client).ok_or(Refused::Full)?;
        let id = self.holders.oldest(victim).ok_or(Refused::Full)?;
        Ok((id, true))
    }

    /// Forgets the refilled allowances of clients with no connection, when there are many.
    pub(super) fn forget_refilled(&mut self, now: u64) {
        if self.resets.len() > REMEMBERED_RESETS {
            self.resets.retain(|_, resets| resets.drained(now) > 0);
        }
    }
}
