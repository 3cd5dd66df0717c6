//! `bindery::serve::Server` against hostile clients, in process with short deadlines: busy
//! clients cannot fill the cap, upgraded connections keep their slot and a deadline and end
//! with shutdown, a client that never acknowledges the shutdown ping gets nothing after the
//! grace, resets of answered streams end the connection and follow the client, the deadline
//! gaps are closed, and one client holds no more than its share of the body budget. (The same
//! attacks at the defaults on a user's release build: `tests/it/server.rs`.)

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bindery::serve::server::{ConnectionCounters, Expired};
use bindery::serve::{Decompression, ServeCatalog, Server};
use bindery_test_support::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::{GZIP, SPA, VUE_GZIP};

/// Requests to `/hold` that have begun (each then waits 30 s).
static HOLDING: AtomicUsize = AtomicUsize::new(0);

/// An answer to `/upgrade`: 101, then the socket echoes what it reads, in the application's
/// hands (as a WebSocket's would be).
async fn upgrade(mut request: axum::extract::Request) -> axum::response::Response {
    let upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        let Ok(upgraded) = upgrade.await else {
            return;
        };
        let mut io = hyper_util::rt::TokioIo::new(upgraded);
        let mut buffer = [0u8; 1024];
        loop {
            match io.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    if io.write_all(&buffer[..read]).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    axum::response::Response::builder()
        .status(101)
        .header("connection", "upgrade")
        .header("upgrade", "echo")
        .body(axum::body::Body::empty())
        .expect("a response")
}

/// The fixtures (gzip) as the fallback, the SPA under `/spa/`, a route that holds its
/// request, and an upgrade route.
fn app() -> axum::Router {
    let spa = ServeCatalog::builder(&SPA)
        .mounted_at("/spa")
        .build()
        .expect("a valid setup");
    axum::Router::new()
        .route(
            "/hold",
            axum::routing::get(|| async {
                HOLDING.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_secs(30)).await;
                "held"
            }),
        )
        .route("/upgrade", axum::routing::get(upgrade))
        .route_service("/spa/{*rest}", spa)
        .fallback_service(ServeCatalog::builder(&GZIP).build().expect("a valid setup"))
}

struct Running {
    address: SocketAddr,
    counters: ConnectionCounters,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// A server with `configure` on a free port, serving `app`.
async fn start(configure: impl FnOnce(Server) -> Server, app: axum::Router) -> Running {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = configure(Server::bind("127.0.0.1:0").await.expect("bind"))
        .with_graceful_shutdown(async move {
            let _ = stopped.await;
        });
    let address = server.local_addr().expect("address");
    let counters = server.counters();
    let task = tokio::spawn(server.serve(app));
    Running {
        address,
        counters,
        stop,
        task,
    }
}

/// A connection from `local` (another loopback address is another client).
async fn connect_from(address: SocketAddr, local: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::new(local.parse().expect("address"), 0))
        .expect("bind");
    socket.connect(address).await.expect("connect")
}

/// Polls `condition` every 10 ms for up to 10 s.
async fn until(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reads until the server closes `stream`; how long after `since`, or `None` after `patience`.
async fn closed_after(
    stream: &mut TcpStream,
    since: Instant,
    patience: Duration,
) -> Option<Duration> {
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at((since + patience).into(), stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(since.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

/// Sends `request` on `stream` and reads the answer's head; its status line.
async fn status_of(stream: &mut TcpStream, request: &str) -> String {
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut byte)).await {
            Ok(Ok(1)) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// A connection from `local` whose request to `/hold` is in flight.
async fn holding(address: SocketAddr, local: &str) -> TcpStream {
    let before = HOLDING.load(Ordering::SeqCst);
    let mut stream = connect_from(address, local).await;
    stream
        .write_all(b"GET /hold HTTP/1.1\r\nhost: t\r\n\r\n")
        .await
        .expect("write");
    until("the request is held", || {
        HOLDING.load(Ordering::SeqCst) > before
    })
    .await;
    stream
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_busy_clients_give_way_to_a_newcomer_by_size_and_equals_do_not_fight() {
    let running = start(|server| server.max_connections(4), app()).await;
    let address = running.address;
    let stats = || running.counters.stats();
    // A holds three busy connections, B one: the cap is full and nothing is idle.
    let mut a_first = holding(address, "127.0.0.2").await;
    let _a = [
        holding(address, "127.0.0.2").await,
        holding(address, "127.0.0.2").await,
    ];
    let _b = holding(address, "127.0.0.3").await;
    let since = Instant::now();
    let mut newcomer = connect_from(address, "127.0.0.9").await;
    let status = status_of(
        &mut newcomer,
        "GET /hello.txt HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        closed_after(&mut a_first, since, Duration::from_secs(5))
            .await
            .is_some(),
        "the oldest connection of the client holding the most gave way"
    );
    assert_eq!(
        (stats().evicted_busy, stats().evicted),
        (1, 0),
        "{:?}",
        stats()
    );
    drop(newcomer);
    until("the newcomer's slot is free", || stats().open == 3).await;
    // A takes the free slot; then, holding the most, it gets no more by taking others'.
    let _a_again = holding(address, "127.0.0.2").await;
    let mut refused = connect_from(address, "127.0.0.2").await;
    let mut answer = String::new();
    let _ = refused.read_to_string(&mut answer).await;
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert_eq!(stats().refused_full, 1);
    // B (1) takes one of A's (3); then A and B hold two each, and neither takes the other's.
    let _b_second = holding(address, "127.0.0.3").await;
    assert_eq!(stats().evicted_busy, 2);
    let mut equal = connect_from(address, "127.0.0.3").await;
    let mut answer = String::new();
    let _ = equal.read_to_string(&mut answer).await;
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    let stats = stats();
    assert_eq!((stats.refused_full, stats.evicted_busy), (2, 2));
    assert_eq!((stats.open, stats.largest_client, stats.clients), (4, 2, 2));
    running.task.abort();
}

/// An upgraded connection from `local`: the 101 read, the socket echoing.
async fn upgraded(address: SocketAddr) -> Option<TcpStream> {
    let mut stream = TcpStream::connect(address).await.expect("connect");
    let status = status_of(
        &mut stream,
        "GET /upgrade HTTP/1.1\r\nhost: t\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\n",
    )
    .await;
    status.starts_with("HTTP/1.1 101").then_some(stream)
}

/// Echoes through `stream` every 100 ms until the server closes it; when it did.
async fn keep_echoing(mut stream: TcpStream, quiet: Arc<tokio::sync::Notify>) -> Instant {
    let mut buffer = [0u8; 16];
    loop {
        tokio::select! {
            () = quiet.notified() => {
                // Silent from now on: only wait for the close.
                let _ = stream.read(&mut buffer).await;
                return Instant::now();
            }
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
        if stream.write_all(b"ping").await.is_err() {
            return Instant::now();
        }
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return Instant::now(),
            Ok(_) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgraded_connections_keep_their_slot_have_a_deadline_and_end_with_shutdown() {
    let limit = Duration::from_millis(600);
    let grace = Duration::from_millis(300);
    let running = start(
        |server| {
            server
                .max_connections(10)
                .upgrade_idle_timeout(limit)
                .shutdown_grace(grace)
        },
        app(),
    )
    .await;
    let stats = || running.counters.stats();
    let mut echoes = Vec::new();
    let mut quiets = Vec::new();
    for _ in 0..10 {
        let stream = upgraded(running.address).await.expect("upgraded");
        let quiet = Arc::new(tokio::sync::Notify::new());
        quiets.push(Arc::clone(&quiet));
        echoes.push(tokio::spawn(keep_echoing(stream, quiet)));
    }
    until("ten upgraded", || stats().upgraded == 10).await;
    assert_eq!(stats().open, 10, "{:?}", stats());
    // The eleventh: the cap is full of busy (upgraded) connections of the one client.
    assert!(
        upgraded(running.address).await.is_none(),
        "refused at the cap"
    );
    assert!(stats().open <= 10, "{:?}", stats());
    // One falls silent: closed by its deadline.
    let silent_since = Instant::now();
    quiets[0].notify_one();
    let closed = echoes.remove(0).await.expect("task");
    let after = closed - silent_since;
    assert!(
        after >= limit.mul_f64(0.8) && after <= limit.mul_f64(1.5),
        "an idle upgraded connection closed after {after:?} (deadline {limit:?})"
    );
    until("its slot given back", || stats().open == 9).await;
    assert_eq!(stats().expired[Expired::Idle.index()], 1);
    // Shutdown: the others keep moving, and are closed at the end of the grace.
    let shutdown = Instant::now();
    running.stop.send(()).expect("running");
    for echo in echoes {
        let closed = echo.await.expect("task");
        assert!(
            closed - shutdown <= grace + Duration::from_secs(1),
            "an upgraded connection outlived the grace: {:?}",
            closed - shutdown
        );
    }
    tokio::time::timeout(grace + Duration::from_secs(2), running.task)
        .await
        .expect("serve returns")
        .expect("task")
        .expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_acknowledges_the_shutdown_ping_is_closed_at_the_end_of_the_grace() {
    let grace = Duration::from_millis(400);
    let running = start(|server| server.shutdown_grace(grace), app()).await;
    let address = running.address;
    let connection = tokio::task::spawn_blocking(move || {
        let connection = RawH2::connect(address, &[(INITIAL_WINDOW_SIZE, 0)]);
        connection.stop_acking_pings();
        // A stream held at window 0 keeps the connection busy through the grace.
        connection.request("GET", "/spa/world.svg", &[]);
        connection
    })
    .await
    .expect("connected");
    let connection = Arc::new(connection);
    until("the held stream answered", || {
        !connection.received().answered.is_empty()
    })
    .await;
    let shutdown = Instant::now();
    running.stop.send(()).expect("running");
    // It goes on opening streams, as h2's first GOAWAY (the last stream id unknown until the
    // ping comes back) lets it.
    let opener = Arc::clone(&connection);
    let (late, closed_at) = tokio::task::spawn_blocking(move || {
        let mut late = 0;
        let mut closed_at = None;
        while shutdown.elapsed() < grace + Duration::from_millis(1_500) {
            let before = opener.received().answered.len();
            opener.request("GET", "/hello.txt", &[]);
            std::thread::sleep(Duration::from_millis(20));
            let received = opener.received();
            if shutdown.elapsed() > grace + Duration::from_secs(1)
                && received.answered.len() > before
            {
                late += 1;
            }
            if closed_at.is_none() && received.closed_after.is_some() {
                closed_at = Some(Instant::now());
            }
        }
        (late, closed_at)
    })
    .await
    .expect("opener");
    assert_eq!(late, 0, "answers after the grace + 1 s");
    let closed_at = closed_at.expect("the connection was closed");
    assert!(
        closed_at - shutdown <= grace + Duration::from_secs(1),
        "closed {:?} after the shutdown (grace {grace:?})",
        closed_at - shutdown
    );
    assert!(connection.received().goaway, "a GOAWAY came at shutdown");
    tokio::time::timeout(Duration::from_secs(2), running.task)
        .await
        .expect("serve returns")
        .expect("task")
        .expect("a clean stop");
}

/// HEADERS, then RST_STREAM 2 ms later, up to `times` times on `connection`; how many before
/// the server ended the connection (GOAWAY or close), if it did.
fn reset_rapidly(connection: &RawH2, path: &str, times: usize) -> Option<usize> {
    for sent in 0..times {
        let received = connection.received();
        if received.goaway || received.closed_after.is_some() {
            return Some(sent);
        }
        let stream = connection.request("GET", path, &[]);
        std::thread::sleep(Duration::from_millis(2));
        connection.reset(stream);
    }
    let received = connection.received();
    (received.goaway || received.closed_after.is_some()).then_some(times)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resets_of_answered_streams_end_the_connection_and_reconnecting_does_not_reset_the_count() {
    let running = start(|server| server, app()).await;
    let address = running.address;
    let local = Some("127.0.0.5".parse().expect("address"));
    let (first, again, other) = tokio::task::spawn_blocking(move || {
        let window_zero = [(INITIAL_WINDOW_SIZE, 0)];
        // At window 0 every answer is still in flight when its reset comes.
        let connection = RawH2::connect_from(address, local, &window_zero);
        let first = reset_rapidly(&connection, "/spa/world.svg", 20_000);
        let reconnected = RawH2::connect_from(address, local, &window_zero);
        let again = reset_rapidly(&reconnected, "/spa/world.svg", 100);
        let elsewhere = RawH2::connect_from(
            address,
            Some("127.0.0.6".parse().expect("address")),
            &window_zero,
        );
        let other = reset_rapidly(&elsewhere, "/spa/world.svg", 50);
        (first, again, other)
    })
    .await
    .expect("clients");
    let first = first.expect("the connection was ended before 20,000 resets");
    assert!((500..2_000).contains(&first), "ended after {first} resets");
    let again = again.expect("the same client, reconnected, is ended again");
    assert!(again <= 3, "ended after {again} resets");
    assert_eq!(other, None, "another client is not limited");
    assert!(running.counters.stats().reset_limited >= 2);
    running.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_pipelined_behind_a_request_has_the_header_deadline() {
    let header = Duration::from_millis(400);
    let running = start(
        |server| {
            server
                .header_read_timeout(header)
                .idle_timeout(Duration::from_secs(5))
        },
        app(),
    )
    .await;
    let mut stream = TcpStream::connect(running.address).await.expect("connect");
    let status = status_of(
        &mut stream,
        "GET /hello.txt HTTP/1.1\r\nhost: t\r\n\r\nGET /hello.txt HT",
    )
    .await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    let answered = Instant::now();
    let after = closed_after(&mut stream, answered, Duration::from_secs(10))
        .await
        .expect("closed");
    assert!(after <= header.mul_f64(1.5), "closed after {after:?}");
    assert_eq!(running.counters.stats().expired[Expired::Header.index()], 1);
    running.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_http2_header_block_left_open_has_the_header_deadline() {
    let header = Duration::from_millis(400);
    let running = start(
        |server| {
            server
                .header_read_timeout(header)
                .idle_timeout(Duration::from_secs(5))
        },
        app(),
    )
    .await;
    let address = running.address;
    let after = tokio::task::spawn_blocking(move || {
        let connection = RawH2::connect(address, &[]);
        connection.request("GET", "/hello.txt", &[]);
        let deadline = Instant::now() + Duration::from_secs(5);
        while connection.received().data.values().sum::<usize>() < 16 {
            assert!(Instant::now() < deadline, "the first request is answered");
            std::thread::sleep(Duration::from_millis(5));
        }
        let opened = Instant::now();
        connection.open_header_block("/hello.txt");
        connection
            .wait_closed(Duration::from_secs(10))
            .expect("closed");
        opened.elapsed()
    })
    .await
    .expect("client");
    assert!(after <= header.mul_f64(1.5), "closed after {after:?}");
    assert_eq!(running.counters.stats().expired[Expired::Header.index()], 1);
    running.task.abort();
}

/// A stream at window 0 whose client lets a little through now and then, with `feed`; how
/// long after the request the connection was closed.
async fn fed_stream_closes_after(
    idle: Duration,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    feed: fn(&RawH2, u32, Duration),
) -> (Duration, ConnectionCounters) {
    let running = start(|server| server.idle_timeout(idle), app()).await;
    let address = running.address;
    let after = tokio::task::spawn_blocking(move || {
        let connection = RawH2::connect(address, &[(INITIAL_WINDOW_SIZE, 0)]);
        let requested = Instant::now();
        let stream = connection.request("GET", path, headers);
        while connection.received().closed_after.is_none() && requested.elapsed() < idle * 4 {
            feed(&connection, stream, requested.elapsed());
            std::thread::sleep(Duration::from_millis(50));
        }
        connection
            .wait_closed(Duration::from_secs(1))
            .expect("closed");
        requested.elapsed()
    })
    .await
    .expect("client");
    running.task.abort();
    (after, running.counters)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_multipart_parts_let_through_a_few_hundred_bytes_at_a_time_are_no_progress() {
    let idle = Duration::from_millis(800);
    // Sixteen one-byte parts of a file: each part is a small frame.
    const RANGES: &str = "bytes=0-0,200-200,400-400,600-600,800-800,1000-1000,1200-1200,\
        1400-1400,1600-1600,1800-1800,2000-2000,2200-2200,2400-2400,2600-2600,2800-2800,3000-3000";
    let (after, counters) = fed_stream_closes_after(
        idle,
        "/random.bin",
        &[("range", RANGES)],
        |connection, stream, _| {
            connection.window_update(stream, 60);
        },
    )
    .await;
    assert!(
        after <= idle.mul_f64(1.5),
        "closed after {after:?} (idle {idle:?})"
    );
    assert_eq!(counters.stats().expired[Expired::Stalled.index()], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_byte_window_update_is_no_progress() {
    let idle = Duration::from_millis(800);
    // world.svg (75 KiB) is two frames of 64 KiB at most: one byte lets hyper hand over the
    // first and take the second, which proves nothing sent.
    let (after, counters) = fed_stream_closes_after(
        idle,
        "/spa/world.svg",
        &[],
        |connection, stream, elapsed| {
            if (500..550).contains(&elapsed.as_millis()) {
                connection.window_update(stream, 1);
            }
        },
    )
    .await;
    assert!(
        after <= idle.mul_f64(1.5),
        "closed after {after:?} (idle {idle:?})"
    );
    assert_eq!(counters.stats().expired[Expired::Stalled.index()], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_holds_no_more_than_its_share_of_the_body_budget() {
    let share = 256 * 1024;
    let decompression = Decompression {
        heap_budget: 4 << 20,
        heap_per_client: share,
        ..Decompression::default()
    };
    let vue = ServeCatalog::builder(&VUE_GZIP)
        .decompression(decompression)
        .build()
        .expect("a valid setup");
    let service = vue.clone();
    let running = start(|server| server, axum::Router::new().fallback_service(vue)).await;
    // One client at window 0 asks 40 ranges of distinct lengths, without gzip: each a prefix
    // decompressed for it and held unsent.
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind("127.0.0.2:0".parse().expect("address"))
        .expect("bind");
    let tcp = socket.connect(running.address).await.expect("connect");
    let (mut client, connection) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, bytes::Bytes>(tcp)
        .await
        .expect("h2");
    tokio::spawn(connection);
    let mut statuses = Vec::new();
    let mut held = Vec::new();
    for index in 0..40 {
        let end = 60_000 + index * 1_000;
        let request = http::Request::get("http://test/vue.min.js")
            .header("range", format!("bytes=0-{end}"))
            .body(())
            .expect("request");
        client = client.ready().await.expect("ready");
        let (response, _) = client.send_request(request, true).expect("sent");
        let response = response.await.expect("a head");
        statuses.push(response.status().as_u16());
        held.push(response);
    }
    let stats = service.stats();
    assert!(
        statuses.contains(&206) && statuses.contains(&503),
        "{statuses:?}"
    );
    assert!(stats.heap_bytes <= share, "{stats:?}");
    assert_eq!(stats.heap_per_client, share);
    // Another client, at the same time, gets the whole file.
    let mut other = connect_from(running.address, "127.0.0.3").await;
    let status = status_of(
        &mut other,
        "GET /vue.min.js HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    drop(held);
    drop(client);
    until("the held bodies let go", || service.stats().heap_bytes == 0).await;
    running.task.abort();
}
