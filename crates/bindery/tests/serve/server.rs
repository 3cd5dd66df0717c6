//! `bindery::serve::Server` through its public API on real sockets, with short deadlines: each
//! phase's deadline, the cap's refusal, the peer handed to a service, counters, graceful
//! shutdown, and a cap the open-file limit cannot hold refused at start. (The whole attack at
//! the defaults, on a user's release build: `tests/it/server.rs`.)

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bindery::serve::server::{ConnectionCounters, Expired};
use bindery::serve::{ServeCatalog, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::GZIP;

fn app() -> axum::Router {
    let assets = ServeCatalog::builder(&GZIP).build().expect("a valid setup");
    axum::Router::new()
        .route(
            "/slow",
            axum::routing::get(|| async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                "done"
            }),
        )
        .fallback_service(assets)
}

/// A server with `configure` on a free port, serving [`app`] until `stop` is sent.
async fn start(
    configure: impl FnOnce(Server) -> Server,
) -> (
    SocketAddr,
    ConnectionCounters,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = configure(Server::bind("127.0.0.1:0").await.expect("bind"))
        .with_graceful_shutdown(async move {
            let _ = stopped.await;
        });
    let address = server.local_addr().expect("address");
    let counters = server.counters();
    let running = tokio::spawn(server.serve(app()));
    (address, counters, stop, running)
}

/// Reads until the server closes the connection; how long that took from `since`.
async fn closed_after(stream: &mut TcpStream, since: Instant) -> Duration {
    let mut buffer = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("closed within 10 s");
        if matches!(read, Ok(0) | Err(_)) {
            return since.elapsed();
        }
    }
}

#[tokio::test]
async fn a_byte_then_silence_and_an_idle_keep_alive_are_closed_at_their_deadlines() {
    let (address, counters, stop, running) = start(|server| {
        server
            .header_read_timeout(Duration::from_millis(400))
            .idle_timeout(Duration::from_millis(800))
    })
    .await;
    let started = Instant::now();
    let mut silent = TcpStream::connect(address).await.expect("connect");
    silent.write_all(b"G").await.expect("one byte");
    let after = closed_after(&mut silent, started).await;
    assert!(
        after >= Duration::from_millis(350) && after < Duration::from_secs(2),
        "{after:?}"
    );

    let mut idle = TcpStream::connect(address).await.expect("connect");
    idle.write_all(b"GET /index.html HTTP/1.1\r\nhost: t\r\n\r\n")
        .await
        .expect("a request");
    let answered = Instant::now();
    let after = closed_after(&mut idle, answered).await;
    assert!(
        after >= Duration::from_millis(700) && after < Duration::from_secs(3),
        "{after:?}"
    );
    let stats = counters.stats();
    assert_eq!(stats.expired[Expired::FirstRequest.index()], 1);
    assert_eq!(stats.expired[Expired::Idle.index()], 1);
    stop.send(()).expect("still running");
    running.await.expect("task").expect("a clean stop");
}

#[tokio::test]
async fn a_connection_after_a_quiet_spell_is_timed_from_its_own_accept() {
    // With no connection open the server's clock stops; the first connection after a spell
    // longer than its deadline must get the whole deadline, not look as old as the spell.
    let (address, counters, stop, running) =
        start(|server| server.header_read_timeout(Duration::from_millis(400))).await;
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let mut stream = TcpStream::connect(address).await.expect("connect");
    // Long enough for the clock to tick, well within the deadline.
    tokio::time::sleep(Duration::from_millis(150)).await;
    stream
        .write_all(b"GET /index.html HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
        .await
        .expect("a request");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("answered within 10 s")
        .expect("read");
    assert!(
        answer.starts_with(b"HTTP/1.1 200 OK\r\n"),
        "{:?}",
        String::from_utf8_lossy(&answer[..answer.len().min(200)])
    );
    assert_eq!(counters.stats().expired, [0; 4]);
    stop.send(()).expect("still running");
    running.await.expect("task").expect("a clean stop");
}

#[tokio::test]
async fn at_the_cap_with_nothing_idle_a_new_connection_gets_one_503() {
    let (address, counters, stop, running) = start(|server| server.max_connections(1)).await;
    let mut busy = TcpStream::connect(address).await.expect("connect");
    busy.write_all(b"GET /slow HTTP/1.1\r\nhost: t\r\n\r\n")
        .await
        .expect("a slow request");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut refused = TcpStream::connect(address).await.expect("connect");
    let mut answer = Vec::new();
    refused.read_to_end(&mut answer).await.expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains("retry-after: 1"), "{answer}");
    let mut first = [0u8; 12];
    busy.read_exact(&mut first)
        .await
        .expect("the busy one is served");
    assert_eq!(&first, b"HTTP/1.1 200");
    let stats = counters.stats();
    assert_eq!((stats.cap, stats.refused_full), (1, 1));
    stop.send(()).expect("still running");
    running.await.expect("task").expect("a clean stop");
}

#[tokio::test]
async fn shutdown_lets_a_request_in_flight_finish_and_stops_accepting() {
    let (address, _counters, stop, running) = start(|server| server).await;
    let mut stream = TcpStream::connect(address).await.expect("connect");
    stream
        .write_all(b"GET /slow HTTP/1.1\r\nhost: t\r\n\r\n")
        .await
        .expect("a slow request");
    tokio::time::sleep(Duration::from_millis(50)).await;
    stop.send(()).expect("still running");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    assert!(answer.starts_with(b"HTTP/1.1 200"));
    assert!(answer.ends_with(b"done"));
    running.await.expect("task").expect("a clean stop");
    assert!(
        TcpStream::connect(address).await.is_err(),
        "no longer listening"
    );
}

#[tokio::test]
async fn each_connection_gets_a_service_made_for_its_peer() {
    let server = Server::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .with_graceful_shutdown(std::future::pending());
    let address = server.local_addr().expect("address");
    tokio::spawn(server.serve_per_connection(|peer: SocketAddr| {
        axum::Router::new().route(
            "/me",
            axum::routing::get(move || async move { peer.ip().to_string() }),
        )
    }));
    let mut stream = TcpStream::connect(address).await.expect("connect");
    stream
        .write_all(b"GET /me HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
        .await
        .expect("request");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read");
    assert!(answer.ends_with("\r\n\r\n127.0.0.1"), "{answer}");
}

#[tokio::test]
async fn a_cap_the_open_file_limit_cannot_hold_is_refused_at_start() {
    let server = Server::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .raise_open_file_limit(false)
        .max_connections(usize::MAX)
        .with_graceful_shutdown(std::future::pending());
    let error = server.serve(app()).await.expect_err("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("open-file limit"), "{error}");
}
