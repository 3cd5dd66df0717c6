//! Each framework's program of docs/frameworks.md, started as a real server on 127.0.0.1 and
//! checked over real HTTP for every behaviour the catalog gives. (xtask's docs test keeps the
//! page's copies equal to these files.)

use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bindery_test_support::{RawResponse, free_port, raw_request};

/// The catalog the programs embed, for the ETags and bytes to expect.
static SITE: bindery::Catalog =
    bindery::embed!("site", mode = "gzip", precompress = ["br", "zstd"]);

/// A program running as a server, stopped when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `binary` on a free loopback port and waits until it accepts connections.
fn start(binary: &str) -> Server {
    start_with(binary, Stdio::null(), "off")
}

/// [`start`], the program's standard output going to `stdout`, rocket logging at `log_level`.
fn start_with(binary: &str, stdout: Stdio, log_level: &str) -> Server {
    let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let child = Command::new(binary)
        .env("BIND", address.to_string())
        .env("ROCKET_LOG_LEVEL", log_level)
        .env("ROCKET_CLI_COLORS", "false")
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("the program starts");
    let mut server = Server { child, address };
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(address).is_err() {
        if let Ok(Some(status)) = server.child.try_wait() {
            panic!("{binary} exited with {status} before listening");
        }
        assert!(
            Instant::now() < deadline,
            "{binary} never listened on {address}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server
}

fn request(server: &Server, method: &str, target: &str, headers: &[(&str, &str)]) -> RawResponse {
    raw_request(server.address, method, target, headers)
}

fn file(path: &str) -> &'static bindery::EmbeddedFile {
    SITE.file(path).expect("in the catalog")
}

fn identity(path: &str) -> Vec<u8> {
    SITE.get(path).expect("in the catalog").into_owned()
}

/// Every behaviour, on one framework's server.
fn check(framework: &str, binary: &str) {
    let server = start(binary);
    let script = file("assets/app.js");
    let url = "/static/assets/app.js";
    conditional_and_head(&server, framework, script, url);
    ranges_and_encodings(&server, framework, script, url);
    misses_escapes_and_routes(&server, framework);
}

/// GET, HEAD, `If-None-Match` (304) and `If-Match` (412).
fn conditional_and_head(
    server: &Server,
    framework: &str,
    script: &bindery::EmbeddedFile,
    url: &str,
) {
    let ok = request(server, "GET", url, &[]);
    assert_eq!(ok.status, 200, "{framework}: {}", ok.status_line);
    assert_eq!(
        ok.header("content-type"),
        Some("text/javascript; charset=utf-8"),
        "{framework}"
    );
    assert_eq!(ok.header("etag"), Some(script.etag()), "{framework}");
    assert_eq!(ok.body, identity("assets/app.js"), "{framework}");
    // The program's per-path headers, through every adapter, on a 304 too.
    assert_eq!(
        ok.header("referrer-policy"),
        Some("no-referrer"),
        "{framework}"
    );

    let head = request(server, "HEAD", url, &[]);
    assert_eq!(head.status, 200, "{framework}: HEAD");
    assert!(head.body.is_empty(), "{framework}: HEAD has no body");
    assert_eq!(
        head.header("content-length"),
        Some(script.len().to_string().as_str()),
        "{framework}: HEAD"
    );

    let not_modified = request(server, "GET", url, &[("if-none-match", script.etag())]);
    assert_eq!(not_modified.status, 304, "{framework}: If-None-Match");
    assert_eq!(
        not_modified.header("referrer-policy"),
        Some("no-referrer"),
        "{framework}: 304"
    );
    let failed = request(server, "GET", url, &[("if-match", "\"x\"")]);
    assert_eq!(failed.status, 412, "{framework}: If-Match");
}

/// One range, two ranges (multipart), and the smallest accepted encoding.
fn ranges_and_encodings(
    server: &Server,
    framework: &str,
    script: &bindery::EmbeddedFile,
    url: &str,
) {
    let one = request(server, "GET", url, &[("range", "bytes=0-9")]);
    assert_eq!(one.status, 206, "{framework}: one range");
    assert_eq!(
        one.header("content-range"),
        Some(format!("bytes 0-9/{}", script.len()).as_str()),
        "{framework}"
    );
    assert_eq!(one.body, identity("assets/app.js")[..10], "{framework}");
    let two = request(server, "GET", url, &[("range", "bytes=0-9,100-109")]);
    assert_eq!(two.status, 206, "{framework}: two ranges");
    assert!(
        two.header("content-type")
            .is_some_and(|value| value.starts_with("multipart/byteranges; boundary=")),
        "{framework}: {:?}",
        two.header("content-type")
    );

    let browser = request(
        server,
        "GET",
        url,
        &[("accept-encoding", "gzip, deflate, br, zstd")],
    );
    assert_eq!(
        browser.header("content-encoding"),
        Some("br"),
        "{framework}: the smallest accepted"
    );
    assert_eq!(
        Some(browser.body.as_slice()),
        script.encoded(bindery::Encoding::Br),
        "{framework}"
    );
    let gzip = request(server, "GET", url, &[("accept-encoding", "gzip")]);
    assert_eq!(gzip.header("content-encoding"), Some("gzip"), "{framework}");
    assert_eq!(Some(gzip.body.as_slice()), script.gzip(), "{framework}");
}

/// A deep link gets the app, a missing asset the 404 page, escapes nothing; the application's
/// own route answers.
fn misses_escapes_and_routes(server: &Server, framework: &str) {
    let deep_link = request(
        server,
        "GET",
        "/static/lookup/8.8.8.8",
        &[("accept", "text/html,*/*;q=0.8")],
    );
    assert_eq!(
        deep_link.status, 200,
        "{framework}: a navigation gets the app"
    );
    assert_eq!(deep_link.body, identity("index.html"), "{framework}");
    let missing = request(
        server,
        "GET",
        "/static/assets/missing.js",
        &[("accept", "*/*")],
    );
    assert_eq!(missing.status, 404, "{framework}: a missing asset");
    assert_eq!(
        missing.body,
        identity("404.html"),
        "{framework}: with the 404 page"
    );

    for escape in [
        "/static/../Cargo.toml",
        "/static/%2e%2e/Cargo.toml",
        "/static/%2e%2e%2fCargo.toml",
    ] {
        let refused = request(server, "GET", escape, &[]);
        assert!(
            [400, 404].contains(&refused.status),
            "{framework}: {escape} gave {}",
            refused.status_line
        );
        assert!(
            !refused.text().contains("[package]"),
            "{framework}: {escape} served a file outside the catalog"
        );
    }

    let ping = request(server, "GET", "/api/ping", &[]);
    assert_eq!(
        ping.text(),
        "pong",
        "{framework}: the application's own route still answers"
    );
}

#[test]
fn axum() {
    check("axum", env!("CARGO_BIN_EXE_axum"));
}

#[test]
fn actix_web() {
    check("actix-web", env!("CARGO_BIN_EXE_actix"));
}

#[test]
fn rocket() {
    check("rocket", env!("CARGO_BIN_EXE_rocket"));
}

/// Rocket's default Shield sets `X-Content-Type-Options` itself and warns on every response
/// that already has one: the adapter leaves that header to Shield, which still sends it.
#[test]
fn rocket_shield_sends_nosniff_and_warns_of_nothing() {
    let log = tempfile::NamedTempFile::new().expect("log file");
    let server = start_with(
        env!("CARGO_BIN_EXE_rocket"),
        Stdio::from(log.reopen().expect("log file")),
        "normal",
    );
    for target in [
        "/static/assets/app.js",
        "/static/no/such/page",
        "/static/missing.js",
    ] {
        let reply = request(&server, "GET", target, &[("accept", "text/html")]);
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{target}: {}",
            reply.status_line
        );
    }
    drop(server);
    let log = std::fs::read_to_string(log.path()).expect("log");
    assert!(
        log.contains("GET /static/assets/app.js"),
        "rocket logged: {log}"
    );
    assert!(
        !log.contains("Shield: response contains"),
        "Shield warned:\n{log}"
    );
}

#[test]
fn poem() {
    check("poem", env!("CARGO_BIN_EXE_poem"));
}

#[test]
fn salvo() {
    check("salvo", env!("CARGO_BIN_EXE_salvo"));
}

#[test]
fn warp() {
    check("warp", env!("CARGO_BIN_EXE_warp"));
}
