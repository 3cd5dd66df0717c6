//! Unit tests of inflate.rs: bounds, sharing and cancellation of decompressions.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use super::Inflater;

async fn until(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..1_000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("never: {what}");
}

#[tokio::test]
async fn a_flight_every_request_let_go_of_leaves_the_queue_at_once() {
    let inflater = Arc::new(Inflater::new(1, 8));
    let busy = Arc::clone(&inflater.turns)
        .try_acquire_owned()
        .expect("the only turn");
    let abandoned = Arc::new(Notify::new());
    let waiting = tokio::spawn({
        let (inflater, abandoned) = (Arc::clone(&inflater), Arc::clone(&abandoned));
        async move { inflater.turn_unless(&abandoned, Some(7)).await.is_none() }
    });
    until("it waits", || inflater.stats().waiting == 1).await;
    abandoned.notify_one();
    assert!(waiting.await.expect("task"), "it gave up its place");
    assert_eq!(inflater.stats().waiting, 0);
    assert!(inflater.clients_waiting().is_empty());
    drop(busy);
}

#[tokio::test]
async fn one_client_waits_in_an_eighth_of_the_queue_at_most() {
    let inflater = Arc::new(Inflater::new(1, 16));
    let busy = Arc::clone(&inflater.turns)
        .try_acquire_owned()
        .expect("the only turn");
    let mut waiting = Vec::new();
    for client in [1, 1, 2] {
        let inflater = Arc::clone(&inflater);
        waiting.push(tokio::spawn(async move {
            inflater.turn(Some(client)).await.is_some()
        }));
    }
    until("three wait", || inflater.stats().waiting == 3).await;
    assert!(
        inflater.turn(Some(1)).await.is_none(),
        "client 1 has its two places"
    );
    assert_eq!(inflater.stats().waiting, 3);
    drop(busy);
    for waiter in waiting {
        assert!(waiter.await.expect("task"), "each got its turn in the end");
    }
    assert_eq!(inflater.stats().waiting, 0);
}
