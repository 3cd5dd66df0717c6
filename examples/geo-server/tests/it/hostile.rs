//! The built server against hostile clients, through real sockets: connections that send a byte
//! (or an HTTP/2 preface) and wait, idle keep-alive connections, a flood past the connection
//! cap, forwarding headers from untrusted peers.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::process::{Server, start};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// An empty SETTINGS frame: length 0, type 4, no flags, stream 0.
const SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

fn address(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
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
    let server = start(&["--header-read-timeout", "2", "--idle-timeout", "30"]);
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
    let metrics = reqwest::get(format!("{}/metrics", server.base))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    let expired = metric(
        &metrics,
        "geo_connections_expired_total{phase=\"first_request\"}",
    );
    // hyper's own header timer may close an HTTP/1 one (`G`) first; the rest are the watchdog's.
    assert!(
        expired >= 150.0,
        "{expired} closed by the watchdog\n{metrics}"
    );
}

fn metric(exposition: &str, name: &str) -> f64 {
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} in\n{exposition}"))
}

#[tokio::test]
async fn idle_keep_alive_connections_are_closed_http1_and_http2() {
    let server = start(&["--header-read-timeout", "5", "--idle-timeout", "2"]);
    let address = address(&server);

    let mut http1 = TcpStream::connect(&address).await.expect("connect");
    assert_eq!(request(&mut http1, "/healthz").await, 200);
    let idle = until_closed(&mut http1, Duration::from_secs(10))
        .await
        .expect("HTTP/1 keep-alive closed");
    assert!(
        idle >= Duration::from_millis(1500) && idle < Duration::from_secs(4),
        "{idle:?} for an idle deadline of 2 s"
    );

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

#[tokio::test]
async fn beyond_the_cap_new_connections_are_refused_and_open_ones_served() {
    let server = start(&["--max-connections", "5", "--header-read-timeout", "30"]);
    let address = address(&server);
    let mut served = TcpStream::connect(&address).await.expect("connect");
    assert_eq!(request(&mut served, "/healthz").await, 200);
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(&address).await.expect("connect"));
    }
    // The server takes a slot at accept: give it the time to accept all five.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut refused = TcpStream::connect(&address)
        .await
        .expect("the kernel accepts");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), refused.read_to_end(&mut answer))
        .await
        .expect("refused at once");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    assert!(answer.contains("retry-after: 1"), "{answer:?}");

    // The open connection is still served.
    assert_eq!(request(&mut served, "/geo/81.2.69.160").await, 200);
    let metrics_refused = {
        let head = "GET /metrics HTTP/1.1\r\nhost: test\r\n\r\n";
        served.write_all(head.as_bytes()).await.expect("write");
        let mut text = String::new();
        let mut buffer = [0u8; 65536];
        while !text.contains("geo_connections_expired_total{phase=\"stalled\"}") {
            let read = served.read(&mut buffer).await.expect("read");
            assert!(read > 0);
            text.push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
        metric(&text, "geo_connections_refused_total")
    };
    assert!(metrics_refused >= 1.0);

    // Slots come back when connections close.
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut again = TcpStream::connect(&address).await.expect("connect");
        let head = "GET /healthz HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n";
        again.write_all(head.as_bytes()).await.expect("write");
        let mut answer = Vec::new();
        let _ = again.read_to_end(&mut answer).await;
        if answer.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still refused after the idle ones closed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn forwarding_headers_are_believed_only_from_trusted_peers() {
    let ip_of = |body: serde_json::Value| body["ip"].as_str().unwrap_or_default().to_owned();
    let get = |base: String, value: &'static str| async move {
        let response = reqwest::Client::new()
            .get(format!("{base}/geo/me"))
            .header("x-forwarded-for", value)
            .send()
            .await
            .expect("request");
        response.json::<serde_json::Value>().await.expect("json")
    };
    // The test connects from 127.0.0.1, outside 10.0.0.0/8: never believed.
    let untrusted = start(&["--trust-proxy", "10.0.0.0/8"]);
    assert_eq!(
        ip_of(get(untrusted.base.clone(), "81.2.69.160").await),
        "127.0.0.1"
    );
    // The bare flag trusts loopback; the proxy's own entry wins whatever its form.
    let trusted = start(&["--trust-proxy"]);
    for (header, expected) in [
        ("8.8.8.8, 203.0.113.7:51234", "203.0.113.7"),
        ("8.8.8.8, [2001:db8::1]", "2001:db8::1"),
        ("8.8.8.8, unknown", "127.0.0.1"),
    ] {
        assert_eq!(
            ip_of(get(trusted.base.clone(), header).await),
            expected,
            "{header}"
        );
    }
    // Nothing trusted unless asked.
    let plain = start(&[]);
    assert_eq!(
        ip_of(get(plain.base.clone(), "81.2.69.160").await),
        "127.0.0.1"
    );
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
}
