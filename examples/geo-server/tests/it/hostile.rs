//! The built server against hostile clients, through real sockets: connections that send a byte
//! (or an HTTP/2 preface) and wait, idle keep-alive connections, HTTP/2 streams held at window
//! 0 (a raw client: frames by hand), one client holding every slot, forwarding headers from
//! untrusted peers and garbage from trusted ones.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bindery_test_support::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::process::{Server, start};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// An empty SETTINGS frame: length 0, type 4, no flags, stream 0.
const SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

fn address(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

fn socket_address(server: &Server) -> SocketAddr {
    address(server).parse().expect("a socket address")
}

/// A connection from another loopback address: another client to the connection cap.
async fn connect_from(address: &str, local: &str) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(format!("{local}:0").parse().expect("local address"))
        .expect("bind");
    socket
        .connect(address.parse().expect("address"))
        .await
        .expect("connect")
}

/// The server's `/metrics` (it must run with `--public-metrics`), over a connection of its own.
fn metrics_of(server: &Server) -> String {
    bindery_test_support::raw_request(socket_address(server), "GET", "/metrics", &[]).text()
}

/// Reads until the server closes the connection (EOF or reset); how long that took, or `None`
/// when it was still open after `patience`.
async fn until_closed(stream: &mut TcpStream, patience: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at((started + patience).into(), stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

/// One HTTP/1.1 request on an open connection; the status code of its answer.
async fn request(stream: &mut TcpStream, path: &str) -> u16 {
    let head = format!("GET {path} HTTP/1.1\r\nhost: test\r\n\r\n");
    stream.write_all(head.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 8192];
    // Enough of the answer to read the status line and know the body is complete.
    loop {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .expect("answered in time")
            .expect("read");
        assert!(read > 0, "closed before answering");
        answer.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&answer);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_owned)
                })
                .and_then(|value| value.trim().parse().ok())
                .expect("content-length");
            if body.len() >= length {
                return head[9..12].parse().expect("status");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_byte_or_a_preface_then_silence_is_closed_at_the_header_deadline() {
    let server = start(&[
        "--header-read-timeout",
        "2",
        "--idle-timeout",
        "30",
        "--public-metrics",
    ]);
    let address = address(&server);
    let openings: [&[&[u8]]; 4] = [&[b"P"], &[b"G"], &[PREFACE], &[PREFACE, SETTINGS]];
    let mut clients = Vec::new();
    for index in 0..200 {
        let address = address.clone();
        let opening = openings[index % openings.len()];
        clients.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(&address).await.expect("connect");
            for part in opening {
                stream.write_all(part).await.expect("write");
            }
            (
                index % openings.len(),
                until_closed(&mut stream, Duration::from_secs(20)).await,
            )
        }));
    }
    // A normal client is served while the 200 are open.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let answer = reqwest::get(format!("{}/geo/81.2.69.160", server.base))
        .await
        .expect("served");
    assert_eq!(answer.status(), 200);
    let mut longest = [Duration::ZERO; 4];
    for client in clients {
        let (kind, closed) = client.await.expect("client task");
        let closed = closed.unwrap_or_else(|| panic!("opening {kind} still open after 20 s"));
        assert!(
            closed >= Duration::from_millis(1500),
            "opening {kind} closed after {closed:?}, before its deadline"
        );
        longest[kind] = longest[kind].max(closed);
    }
    for (kind, longest) in longest.iter().enumerate() {
        assert!(
            *longest < Duration::from_secs(6),
            "opening {kind}: closed only after {longest:?} (deadline 2 s)"
        );
    }
    let metrics = metrics_of(&server);
    let expired = metric(
        &metrics,
        "geo_connections_expired_total",
        &[("phase", "first_request")],
    );
    assert!(
        expired >= 200.0,
        "{expired} closed by the watchdog\n{metrics}"
    );
}

/// A sample of the exposition, which must have it.
fn metric(exposition: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    bindery_test_support::metric(exposition, name, labels)
        .unwrap_or_else(|| panic!("{name} {labels:?} in\n{exposition}"))
}

#[tokio::test]
async fn keep_alive_lasts_the_idle_deadline_and_a_begun_head_the_header_deadline() {
    let server = start(&["--header-read-timeout", "1", "--idle-timeout", "3"]);
    let address = address(&server);

    let mut idle = TcpStream::connect(&address).await.expect("connect");
    assert_eq!(request(&mut idle, "/healthz").await, 200);
    let lived = until_closed(&mut idle, Duration::from_secs(10))
        .await
        .expect("HTTP/1 keep-alive closed");
    assert!(
        lived >= Duration::from_millis(2500) && lived < Duration::from_secs(5),
        "{lived:?} for an idle deadline of 3 s (the header deadline is 1 s)"
    );

    let mut dribbling = TcpStream::connect(&address).await.expect("connect");
    assert_eq!(request(&mut dribbling, "/healthz").await, 200);
    dribbling
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .expect("write");
    let lived = until_closed(&mut dribbling, Duration::from_secs(10))
        .await
        .expect("closed");
    assert!(
        lived >= Duration::from_millis(800) && lived < Duration::from_millis(2500),
        "{lived:?}: a begun head has the header deadline of 1 s"
    );
}

#[tokio::test]
async fn idle_http2_connections_are_closed_pings_or_not() {
    let server = start(&["--header-read-timeout", "5", "--idle-timeout", "2"]);
    let address = address(&server);
    // HTTP/2 with prior knowledge: one request, then nothing but the pings.
    let tcp = TcpStream::connect(&address).await.expect("connect");
    let (mut client, connection) = h2::client::handshake(tcp).await.expect("h2 handshake");
    let driver = tokio::spawn(async move {
        let started = Instant::now();
        let _ = connection.await;
        started.elapsed()
    });
    let request = http::Request::get(format!("http://{address}/healthz"))
        .body(())
        .expect("request");
    let (response, _) = client.send_request(request, true).expect("send");
    let response = response.await.expect("answer");
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    while let Some(chunk) = body.data().await {
        chunk.expect("body");
    }
    let lived = tokio::time::timeout(Duration::from_secs(10), driver)
        .await
        .expect("HTTP/2 idle connection closed")
        .expect("driver");
    assert!(lived < Duration::from_secs(6), "{lived:?}");
}

#[test]
fn http2_streams_held_at_window_0_close_their_connection_and_free_their_memory() {
    let server = start(&[
        "--idle-timeout",
        "2",
        "--header-read-timeout",
        "5",
        "--public-metrics",
    ]);
    let address = socket_address(&server);
    let heap = || metric(&metrics_of(&server), "geo_heap_in_use_bytes", &[]);
    let baseline = heap();
    let attackers: Vec<RawH2> = (0..10)
        .map(|_| RawH2::connect(address, &[(INITIAL_WINDOW_SIZE, 0)]))
        .collect();
    for attacker in &attackers {
        for _ in 0..62 {
            attacker.request("GET", "/world.svg", &[("range", "bytes=0-0,2-")]);
        }
    }
    // A HEAD (no body, so no window needed) every half second on every connection: each is
    // answered, and none renews the held streams' deadline.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(6)
        && attackers
            .iter()
            .any(|attacker| attacker.received().closed_after.is_none())
    {
        for attacker in &attackers {
            attacker.request("HEAD", "/healthz", &[]);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    for attacker in &attackers {
        let closed = attacker
            .wait_closed(Duration::from_secs(5))
            .expect("the connection is closed");
        assert!(
            closed >= Duration::from_millis(1800) && closed < Duration::from_secs(5),
            "closed after {closed:?} for an idle deadline of 2 s"
        );
        let received = attacker.received();
        assert!(received.answered.len() > 62, "the HEADs were answered");
        assert!(received.data.is_empty(), "window 0: no DATA");
    }
    let metrics = metrics_of(&server);
    assert!(
        metric(
            &metrics,
            "geo_connections_expired_total",
            &[("phase", "stalled")]
        ) >= 10.0,
        "{metrics}"
    );
    // Everything the held streams took is freed once their connections close.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let now = heap();
        if now <= baseline + 1024.0 * 1024.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "heap {now} bytes, {baseline} before the attack"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test]
async fn one_client_holding_every_slot_with_keep_alive_does_not_lock_out_another() {
    let server = start(&[
        "--max-connections",
        "20",
        "--idle-timeout",
        "30",
        "--public-metrics",
    ]);
    let address = address(&server);
    // The hog: 20 keep-alive connections from 127.0.0.1, each sending a HEAD now and then.
    let mut hog = Vec::new();
    for _ in 0..20 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        assert_eq!(request(&mut stream, "/healthz").await, 200);
        hog.push(stream);
    }
    let mut others = Vec::new();
    for round in 0..5 {
        // The other client, from 127.0.0.2, is served every time, its connections kept.
        let mut other = connect_from(&address, "127.0.0.2").await;
        assert_eq!(
            request(&mut other, "/geo/81.2.69.160").await,
            200,
            "round {round}"
        );
        others.push(other);
        for stream in &mut hog {
            let head = "HEAD /healthz HTTP/1.1\r\nhost: test\r\n\r\n";
            let _ = stream.write_all(head.as_bytes()).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let metrics = metrics_of(&server);
    assert!(
        metric(&metrics, "geo_connections_evicted_total", &[]) >= 5.0,
        "{metrics}"
    );
    assert_eq!(
        metric(
            &metrics,
            "geo_connections_refused_total",
            &[("limit", "cap")]
        ),
        0.0
    );
}

/// 200 connections at once, with nobody accepting: each completes its handshake and waits in
/// the backlog. A listener with tokio's default backlog (128) drops the SYNs past it, and those
/// clients wait a second or more for a retransmission (here: fail at the timeout).
#[tokio::test]
async fn a_burst_of_connections_waits_in_the_backlog_instead_of_losing_its_syns() {
    // A server bound and never served: its listener accepts nothing.
    let listener = bindery::serve::Server::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    // The kernel caps every backlog at this; since Linux 5.4 it is 4096 by default.
    let somaxconn: usize = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .expect("somaxconn")
        .trim()
        .parse()
        .expect("a number");
    let burst = 200.min(somaxconn);
    let held = tokio::task::spawn_blocking(move || {
        (0..burst)
            .map(|index| {
                std::net::TcpStream::connect_timeout(&address, Duration::from_millis(900))
                    .unwrap_or_else(|error| panic!("connection {index} of {burst}: {error}"))
            })
            .collect::<Vec<_>>()
    })
    .await
    .expect("connects");
    assert_eq!(held.len(), burst);
    drop(listener);
}

#[test]
fn at_the_cap_with_nothing_idle_new_connections_are_refused_and_open_ones_served() {
    let server = start(&[
        "--max-connections",
        "5",
        "--idle-timeout",
        "30",
        "--public-metrics",
    ]);
    let address = socket_address(&server);
    // Five connections, each with a request in flight (an answer held at window 0).
    let busy: Vec<RawH2> = (0..5)
        .map(|_| {
            let connection = RawH2::connect(address, &[(INITIAL_WINDOW_SIZE, 0)]);
            connection.request("GET", "/world.svg", &[]);
            connection
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let refused = bindery_test_support::raw_request(address, "GET", "/healthz", &[]);
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert_eq!(refused.header("retry-after"), Some("1"));
    // Each open one is still served.
    for connection in &busy {
        let stream = connection.request("HEAD", "/healthz", &[]);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !connection.received().answered.contains(&stream) {
            assert!(Instant::now() < deadline, "stream {stream} answered");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    // A slot comes back when a connection closes.
    drop(busy);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let reply = bindery_test_support::raw_request(address, "GET", "/metrics", &[]);
        if reply.status == 200 {
            assert!(
                metric(
                    &reply.text(),
                    "geo_connections_refused_total",
                    &[("limit", "cap")]
                ) >= 1.0
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still refused after the busy ones closed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test]
async fn forwarding_headers_are_believed_only_from_trusted_peers() {
    let get = |base: String, value: &'static str| async move {
        let response = reqwest::Client::new()
            .get(format!("{base}/geo/me"))
            .header("x-forwarded-for", value)
            .header("forwarded", "for=8.8.4.4")
            .send()
            .await
            .expect("request");
        let status = response.status().as_u16();
        let body = response.json::<serde_json::Value>().await.expect("json");
        (status, body["ip"].as_str().unwrap_or_default().to_owned())
    };
    // The test connects from 127.0.0.1, outside 10.0.0.0/8: never believed.
    let untrusted = start(&["--trust-proxy", "10.0.0.0/8"]);
    assert_eq!(
        get(untrusted.base.clone(), "81.2.69.160").await.1,
        "127.0.0.1"
    );
    // The bare flag trusts loopback; the proxy's own entry wins whatever its form, the
    // client's own `Forwarded` is not read, and an entry naming no address is a 400.
    let trusted = start(&["--trust-proxy"]);
    for (header, expected) in [
        ("8.8.8.8, 203.0.113.7:51234", (404, "203.0.113.7")),
        ("8.8.8.8, [2001:db8::1]", (404, "2001:db8::1")),
        ("garbage, 81.2.69.160", (200, "81.2.69.160")),
        ("8.8.8.8, unknown", (400, "")),
        ("127.0.0.5", (400, "")),
    ] {
        let (status, ip) = get(trusted.base.clone(), header).await;
        assert_eq!((status, ip.as_str()), expected, "{header}");
    }
    let forwarded = start(&["--trust-proxy", "--trust-proxy-header", "forwarded"]);
    assert_eq!(
        get(forwarded.base.clone(), "81.2.69.160").await,
        (200, "8.8.4.4".to_owned())
    );
    // Nothing trusted unless asked.
    let plain = start(&[]);
    assert_eq!(get(plain.base.clone(), "81.2.69.160").await.1, "127.0.0.1");
}

#[test]
fn a_bad_trusted_range_is_a_usage_error() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_geo-server"))
        .args(["--trust-proxy", "10.1.2.3/8"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not an address range"), "{stderr}");
}

#[tokio::test]
async fn metrics_move_to_the_admin_listener() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("free port")
        .local_addr()
        .expect("address")
        .port();
    let admin = format!("127.0.0.1:{port}");
    let server = start(&["--admin-addr", &admin]);
    let status = |url: String| async move {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match reqwest::get(&url).await {
                Ok(response) => return response.status().as_u16(),
                // The admin listener binds just after the public one logs.
                Err(error) if Instant::now() < deadline => {
                    let _ = error;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(error) => panic!("{url}: {error}"),
            }
        }
    };
    assert_eq!(status(format!("http://{admin}/metrics")).await, 200);
    assert_eq!(status(format!("http://{admin}/healthz")).await, 200);
    assert_eq!(status(format!("http://{admin}/geo/81.2.69.160")).await, 404);
    assert_eq!(status(format!("{}/metrics", server.base)).await, 404);
    assert_eq!(
        status(format!("{}/geo/81.2.69.160", server.base)).await,
        200
    );
    // Without either flag, no `/metrics` at all, loopback or not.
    let quiet = start(&[]);
    assert_eq!(status(format!("{}/metrics", quiet.base)).await, 404);
    let public = start(&["--public-metrics"]);
    assert_eq!(status(format!("{}/metrics", public.base)).await, 200);
}

#[test]
fn a_timeout_out_of_range_is_a_usage_error_not_a_panic() {
    for flag in [
        "--idle-timeout",
        "--header-read-timeout",
        "--request-timeout",
    ] {
        for value in ["0", "18446744073709551615"] {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_geo-server"))
                .args([flag, value])
                .output()
                .expect("runs");
            assert_eq!(output.status.code(), Some(2), "{flag} {value}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("not in 1..=86400"), "{stderr}");
        }
    }
}
