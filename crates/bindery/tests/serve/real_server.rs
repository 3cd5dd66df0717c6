//! The wiring: a real axum server on 127.0.0.1 and a real HTTP client.

use axum::serve::ListenerExt;
use bindery::serve::ServeCatalog;

use crate::support::{GZIP, on_disk};

async fn start() -> std::net::SocketAddr {
    let service = ServeCatalog::builder(&GZIP)
        .spa_fallback("index.html")
        .build()
        .expect("a valid setup");
    let app = axum::Router::new()
        .route("/api/ping", axum::routing::get(|| async { "pong" }))
        .fallback_service(service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    address
}

#[tokio::test]
async fn a_real_client_gets_gzip_identity_and_head_right() {
    let address = start().await;
    let base = format!("http://{address}");

    let decoding = reqwest::Client::builder()
        .gzip(true)
        .build()
        .expect("client");
    let body = decoding
        .get(format!("{base}/index.html"))
        .send()
        .await
        .expect("get")
        .bytes()
        .await
        .expect("body");
    assert_eq!(body, on_disk("index.html"), "transparently decompressed");

    let raw = reqwest::Client::builder()
        .gzip(false)
        .build()
        .expect("client");
    let response = raw
        .get(format!("{base}/index.html"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .expect("get");
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let wire = response.bytes().await.expect("body");
    assert_eq!(
        wire,
        GZIP.file("index.html")
            .expect("file")
            .gzip()
            .expect("compressed"),
        "passthrough"
    );

    let identity = raw
        .get(format!("{base}/index.html"))
        .send()
        .await
        .expect("get");
    assert!(identity.headers().get("content-encoding").is_none());
    assert_eq!(identity.bytes().await.expect("body"), on_disk("index.html"));

    let head = raw
        .head(format!("{base}/style.css"))
        .send()
        .await
        .expect("head");
    assert_eq!(
        head.headers()["content-length"],
        on_disk("style.css").len().to_string().as_str()
    );
    assert!(head.bytes().await.expect("body").is_empty());

    let api = raw
        .get(format!("{base}/api/ping"))
        .send()
        .await
        .expect("get");
    assert_eq!(api.text().await.expect("text"), "pong");
}

#[tokio::test]
async fn raw_requests_the_client_would_never_send_are_refused() {
    let address = start().await;
    for target in [
        "/..\\..\\Cargo.toml",
        "/../../Cargo.toml",
        "/%2e%2e/%2e%2e/Cargo.toml",
    ] {
        let status = tokio::task::spawn_blocking(move || {
            bindery_test_support::raw_request(address, "GET", target, &[("Accept", "text/html")])
                .status
        })
        .await
        .expect("joined");
        assert!(status == 400 || status == 404, "{target}: {status}");
    }
}
