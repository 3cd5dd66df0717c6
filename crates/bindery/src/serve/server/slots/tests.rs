use std::net::IpAddr;
use std::sync::Arc;

use super::registry::RESET_BURST;
use super::{Refused, Slots};
use crate::serve::server::activity::{Activity, Stop};
use crate::serve::server::clock::Clock;
use crate::serve::server::counters::ConnectionCounters;
use crate::serve::server::in_flight::InFlight;
use crate::serve::server::proxy::TrustedProxies;
use crate::serve::server::slots::DEFAULT_PER_CLIENT;

fn address(text: &str) -> IpAddr {
    text.parse().expect("address")
}

/// A connection with a request in flight (kept while the guard lives).
fn busy(clock: &Arc<Clock>) -> (Arc<Activity>, InFlight) {
    let activity = Activity::new(clock);
    let request = InFlight::start(&activity, false, false);
    (activity, request)
}

/// A connection whose one request has ended: idle, since now.
fn idle(clock: &Arc<Clock>) -> Arc<Activity> {
    let activity = Activity::new(clock);
    drop(InFlight::start(&activity, false, false));
    activity.flushed();
    assert!(activity.is_idle());
    activity
}

#[test]
fn at_the_cap_the_longest_idle_connection_makes_room() {
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        2,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let hog = address("192.0.2.1");
    let clock = Clock::new();
    let first = idle(&clock);
    let held_first = slots.take(hog, &first).expect("slot");
    std::thread::sleep(std::time::Duration::from_millis(5));
    clock.advance();
    let second = idle(&clock);
    let _held_second = slots.take(hog, &second).expect("slot");
    let other = slots
        .take(address("192.0.2.2"), &Activity::new(&clock))
        .expect("room made");
    assert_eq!(counters.stats().evicted, 1);
    assert_eq!(first.stop_reason(), Some(Stop::Evicted), "the older one");
    assert_eq!(second.stop_reason(), None);
    assert_eq!(counters.stats().open, 2);
    drop(held_first); // the evicted one's guard: a no-op now
    assert_eq!(counters.stats().open, 2);
    drop(other);
}

#[test]
fn a_connection_whose_first_request_has_not_come_is_not_closed_as_idle() {
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        2,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let clock = Clock::new();
    // Two fresh connections of two clients: neither is idle, and a third client holds no
    // fewer than them by two: nobody is closed for it.
    let _a = slots
        .take(address("192.0.2.1"), &Activity::new(&clock))
        .expect("slot");
    let _b = slots
        .take(address("198.51.100.1"), &Activity::new(&clock))
        .expect("slot");
    assert_eq!(
        slots
            .take(address("203.0.113.1"), &Activity::new(&clock))
            .err(),
        Some(Refused::Full)
    );
    let stats = counters.stats();
    assert_eq!(
        (stats.evicted, stats.evicted_busy, stats.refused_full),
        (0, 0, 1)
    );
}

#[test]
fn a_connection_turning_idle_is_filed_as_idle_and_busy_again_is_not() {
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        2,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let clock = Clock::new();
    let (first, request) = busy(&clock);
    let _held = slots.take(address("192.0.2.1"), &first).expect("slot");
    let (second, _busy) = busy(&clock);
    let _also = slots.take(address("192.0.2.1"), &second).expect("slot");
    drop(request);
    first.flushed();
    assert!(first.is_idle());
    // Busy again before the newcomer comes: it is no idle connection to close.
    let again = InFlight::start(&first, false, false);
    let newcomer = Activity::new(&clock);
    let _in = slots
        .take(address("198.51.100.9"), &newcomer)
        .expect("room made");
    let stats = counters.stats();
    assert_eq!(
        (stats.evicted, stats.evicted_busy),
        (0, 1),
        "busy, not idle"
    );
    drop(again);
}

#[test]
fn at_the_cap_with_nothing_idle_the_largest_holder_gives_up_its_oldest() {
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        6,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let clock = Clock::new();
    let mut held = Vec::new();
    let mut first_of_a = None;
    for (index, peer) in [
        "10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.1.1", "10.0.1.1",
    ]
    .iter()
    .enumerate()
    {
        let (activity, request) = busy(&clock);
        if index == 0 {
            first_of_a = Some(Arc::clone(&activity));
        }
        held.push((slots.take(address(peer), &activity).expect("slot"), request));
    }
    let (newcomer, _request) = busy(&clock);
    let _slot = slots
        .take(address("10.0.2.1"), &newcomer)
        .expect("room made");
    assert_eq!(
        first_of_a.expect("kept").stop_reason(),
        Some(Stop::Evicted),
        "the oldest connection of the client holding the most"
    );
    let stats = counters.stats();
    assert_eq!(
        (stats.evicted_busy, stats.largest_client, stats.clients),
        (1, 3, 3)
    );
    // The largest holder's own newcomer is refused, not paid for by another client.
    let (theirs, _request) = busy(&clock);
    assert_eq!(
        slots.take(address("10.0.0.1"), &theirs).err(),
        Some(Refused::Full)
    );
    assert_eq!(counters.stats().refused_full, 1);
}

#[test]
fn a_block_counts_as_one_client_at_the_cap() {
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        4,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let clock = Clock::new();
    let mut held = Vec::new();
    let mut in_block = Vec::new();
    // Three addresses of one /24, one connection each, and one address elsewhere with one.
    for peer in ["192.0.2.1", "192.0.2.2", "192.0.2.3", "198.51.100.1"] {
        let (activity, request) = busy(&clock);
        if peer.starts_with("192.0.2.") {
            in_block.push(Arc::clone(&activity));
        }
        held.push((slots.take(address(peer), &activity).expect("slot"), request));
    }
    let (newcomer, _request) = busy(&clock);
    let _slot = slots.take(address("203.0.113.1"), &newcomer).expect("room");
    let evicted = in_block
        .iter()
        .filter(|activity| activity.stop_reason() == Some(Stop::Evicted))
        .count();
    assert_eq!(evicted, 1, "one of the block's, not the lone address's");
}

#[test]
fn a_client_at_its_share_is_refused_when_none_of_its_connections_is_idle() {
    let slots = Slots::new(10, 1, TrustedProxies::none(), ConnectionCounters::default());
    let clock = Clock::new();
    let (held_activity, _request) = busy(&clock);
    let _held = slots
        .take(address("2001:db8::1"), &held_activity)
        .expect("slot");
    assert_eq!(
        slots
            .take(address("2001:db8::2"), &Activity::new(&clock))
            .err(),
        Some(Refused::PerClient)
    );
    assert!(
        slots
            .take(address("2001:db8:0:1::1"), &Activity::new(&clock))
            .is_ok(),
        "another /64"
    );
}

#[test]
fn a_trusted_proxy_counts_against_the_cap_only() {
    let trusted: TrustedProxies = "10.0.0.0/8".parse().expect("ranges");
    let slots = Slots::new(3, 1, trusted, ConnectionCounters::default());
    let proxy = address("10.0.0.2");
    let clock = Clock::new();
    // Three pooled connections of one proxy, each busy: past the per-client share of 1.
    let mut held = Vec::new();
    for _ in 0..3 {
        let (activity, request) = busy(&clock);
        held.push((
            slots
                .take(proxy, &activity)
                .expect("counted against the cap only"),
            request,
        ));
    }
    let (another, _request) = busy(&clock);
    assert_eq!(
        slots.take(proxy, &another).err(),
        Some(Refused::Full),
        "the cap still holds"
    );
}

#[test]
fn resets_are_counted_per_client_across_reconnects() {
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        10,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let clock = Clock::new();
    let peer = address("192.0.2.50");
    let first = Activity::new(&clock);
    let slot = slots.take(peer, &first).expect("slot");
    let id = slot.id;
    let mut spent_after = None;
    for count in 1..=RESET_BURST + 1 {
        if slots.count_reset(id, 0) {
            spent_after = Some(count);
            break;
        }
    }
    assert_eq!(spent_after, Some(RESET_BURST + 1));
    assert_eq!(first.stop_reason(), Some(Stop::Resets));
    drop(slot);
    assert!(
        slots.is_reset_limited(peer, 0),
        "remembered without a connection"
    );
    // A new connection of the same client is ended at its first reset.
    let second = Activity::new(&clock);
    let slot = slots.take(peer, &second).expect("slot");
    assert!(slots.count_reset(slot.id, 0));
    assert_eq!(counters.stats().reset_limited, 2);
    // Another client is not.
    let other = slots
        .take(address("192.0.2.51"), &Activity::new(&clock))
        .expect("slot");
    assert!(!slots.count_reset(other.id, 0));
    // The allowance refills with time.
    assert!(!slots.is_reset_limited(peer, 60_000));
}

#[test]
fn at_16384_busy_connections_each_newcomer_evicts_exactly_the_largest_holders_oldest() {
    let open = 16_384;
    let counters = ConnectionCounters::default();
    let slots = Slots::new(
        open,
        DEFAULT_PER_CLIENT,
        TrustedProxies::none(),
        counters.clone(),
    );
    let clock = Clock::new();
    let mut held = Vec::with_capacity(open + 64);
    // 4,096 clients (each its own /24) with 4 connections each.
    for index in 0..open {
        let peer = IpAddr::from([10, (index % 64) as u8, ((index / 64) % 64) as u8, 1]);
        let (activity, request) = busy(&clock);
        held.push((
            slots.take(peer, &activity).expect("slot"),
            request,
            activity,
        ));
    }
    // Newcomers, each from a /24 of its own: each takes a slot from an old client.
    for index in 0..64u8 {
        let (activity, request) = busy(&clock);
        let slot = slots
            .take(IpAddr::from([11, index, 0, 1]), &activity)
            .expect("room");
        held.push((slot, request, activity));
        let stats = counters.stats();
        assert_eq!(
            (stats.open, stats.evicted_busy),
            (open, u64::from(index) + 1)
        );
    }
    let evicted: Vec<usize> = held
        .iter()
        .enumerate()
        .filter(|(_, (_, _, activity))| activity.stop_reason() == Some(Stop::Evicted))
        .map(|(index, _)| index)
        .collect();
    assert_eq!(evicted.len(), 64);
    assert!(evicted.iter().all(|index| *index < open), "{evicted:?}");
    // Newcomers of one /24 are one client: their block takes slots until it holds one less
    // than the old clients' four (3 + 1 would be 4); past that, they are refused.
    let before = counters.stats();
    let mut taken = 0;
    for index in 1..=8u8 {
        let (activity, request) = busy(&clock);
        if let Ok(slot) = slots.take(IpAddr::from([12, 0, 0, index]), &activity) {
            taken += 1;
            held.push((slot, request, activity));
        }
    }
    let after = counters.stats();
    assert_eq!(taken, 3);
    assert_eq!(after.evicted_busy - before.evicted_busy, 3);
    assert_eq!(after.refused_full - before.refused_full, 5);
}

impl Slots {
    /// Whether the client of `peer` has spent its reset allowance (its connections are then
    /// ended at their first reset).
    fn is_reset_limited(&self, peer: IpAddr, now: u64) -> bool {
        self.lock()
            .resets
            .get(&super::ClientKey::of(peer))
            .is_some_and(|resets| resets.drained(now) >= RESET_BURST)
    }
}
