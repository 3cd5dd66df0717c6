//! The real binary: start-up errors, usage errors, a real socket, reloads and shutdown.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{sample_file, write_other_database};

const BINARY: &str = env!("CARGO_BIN_EXE_geo-server");

/// A running server; killed when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) base: String,
    /// Log lines up to and including "listening".
    startup_log: Vec<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server on a free port and waits for its "listening" log line.
pub(crate) fn start(args: &[&str]) -> Server {
    let mut child = Command::new(BINARY)
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("server starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut startup_log = Vec::new();
    let address = loop {
        let line = lines
            .next()
            .expect("server logs before exiting")
            .expect("UTF-8 log");
        startup_log.push(line.clone());
        if let Some((_, rest)) = line.split_once("listening addr=") {
            break rest.split_whitespace().next().expect("address").to_owned();
        }
    };
    // Keep draining the log so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server {
        child,
        base: format!("http://{address}"),
        startup_log,
    }
}

fn signal(server: &Server, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &server.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

async fn city(base: &str, ip: &str) -> String {
    let json: serde_json::Value = reqwest::get(format!("{base}/geo/{ip}"))
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    json["city"].as_str().unwrap_or_default().to_owned()
}

/// Polls until the server answers `expected` for 81.2.69.160, for at most ten seconds.
async fn wait_for_city(base: &str, expected: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = city(base, "81.2.69.160").await;
        if now == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "still {now:?}, expected {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A `key=value` field of the "database loaded" log line, as a number.
fn loaded_field(server: &Server, key: &str) -> u64 {
    let line = server
        .startup_log
        .iter()
        .find(|line| line.contains("database loaded"))
        .expect("the server logs what it loaded");
    let value = line
        .split_whitespace()
        .find_map(|field| field.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {line}"));
    value
        .parse()
        .unwrap_or_else(|_| panic!("{key}={value} is a number"))
}

#[test]
fn only_the_copy_mode_retains_the_database_in_heap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = sample_file(dir.path());
    let sample_text = sample.to_str().expect("UTF-8 path");
    for args in [
        &["--geodb-mode", "embed"][..],
        &["--geodb-mode", "copy"],
        &["--geodb-mode", "copy", "--geodb", sample_text],
        &["--geodb-mode", "mmap", "--geodb", sample_text],
    ] {
        let server = start(args);
        let size = loaded_field(&server, "size");
        let retained = loaded_field(&server, "reader_heap_bytes");
        if args[1] == "copy" {
            assert!(retained >= size, "{args:?}: {retained} < {size}");
        } else {
            assert!(retained < 64 * 1024, "{args:?}: {retained} bytes retained");
        }
    }
}

#[test]
fn bad_database_files_exit_1_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let truncated = dir.path().join("truncated.mmdb");
    std::fs::write(&truncated, &geodb::SAMPLE[..1000]).expect("write");
    let empty = dir.path().join("empty.mmdb");
    std::fs::write(&empty, b"").expect("write");
    let asn = dir.path().join("asn.mmdb");
    write_other_database(&asn, "GeoLite2-ASN", "x");
    let missing = dir.path().join("missing.mmdb");
    for mode in ["copy", "mmap"] {
        for path in [&truncated, &empty, &asn, &missing] {
            let output = Command::new(BINARY)
                .args(["--addr", "127.0.0.1:0", "--geodb-mode", mode, "--geodb"])
                .arg(path)
                .env("NO_COLOR", "1")
                .output()
                .expect("runs");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{mode} {}: {stderr}",
                path.display()
            );
            assert_eq!(
                stderr.lines().count(),
                1,
                "{mode} {}: {stderr}",
                path.display()
            );
            assert!(stderr.starts_with("geo-server: "), "{stderr}");
        }
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--geodb-mode", "mmap"][..],
        &["--geodb-mode", "zip"],
        &["--geodb-mode", "embed", "--geodb", "x.mmdb"],
        &["--addr", "not-an-address"],
        &["--no-such-flag"],
    ] {
        let output = Command::new(BINARY).args(args).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    let help = Command::new(BINARY).arg("--help").output().expect("runs");
    assert_eq!(help.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("rename"),
        "--help explains replacing a mapped file"
    );
}

#[tokio::test]
async fn the_embedded_default_answers_on_a_real_socket_and_stops_on_sigterm() {
    let mut server = start(&[]);
    let response = reqwest::get(format!("{}/geo/8.8.8.8", server.base))
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let json: serde_json::Value = response.json().await.expect("json");
    assert_eq!(json["country"]["iso_code"], "US");
    let page = reqwest::get(format!("{}/lookup/8.8.8.8", server.base))
        .await
        .expect("request");
    assert_eq!(
        page.status(),
        404,
        "reqwest does not ask for text/html, so no fallback"
    );
    signal(&server, "TERM");
    let status = server.child.wait().expect("exits");
    assert!(status.success(), "graceful exit: {status}");
}

#[tokio::test]
async fn sighup_reloads_a_replaced_mapped_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = sample_file(dir.path());
    let live_text = live.to_str().expect("UTF-8 path");
    let server = start(&[
        "--geodb-mode",
        "mmap",
        "--geodb",
        live_text,
        "--reload-poll",
        "3600",
    ]);
    assert_eq!(city(&server.base, "81.2.69.160").await, "London");

    let next = dir.path().join("next.mmdb");
    write_other_database(&next, "Test-City", "Testville");
    std::fs::rename(&next, &live).expect("rename");
    signal(&server, "HUP");
    wait_for_city(&server.base, "Testville").await;

    let corrupt = dir.path().join("corrupt.mmdb");
    std::fs::write(&corrupt, b"garbage").expect("write");
    std::fs::rename(&corrupt, &live).expect("rename");
    signal(&server, "HUP");
    // The refusal is logged; answers must stay from the last good database.
    for _ in 0..20 {
        assert_eq!(city(&server.base, "81.2.69.160").await, "Testville");
    }
}

#[tokio::test]
async fn a_mapped_database_replaced_by_rename_is_picked_up_without_a_signal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = sample_file(dir.path());
    let live_text = live.to_str().expect("UTF-8 path");
    let server = start(&[
        "--geodb-mode",
        "mmap",
        "--geodb",
        live_text,
        "--reload-poll",
        "1",
    ]);
    assert_eq!(city(&server.base, "81.2.69.160").await, "London");
    let next = dir.path().join("next.mmdb");
    write_other_database(&next, "Test-City", "Renamedville");
    std::fs::rename(&next, &live).expect("rename");
    wait_for_city(&server.base, "Renamedville").await;
}

/// Sends one complete request on a fresh connection and returns the status line.
fn status_line(address: &str, path: &str) -> String {
    bindery_test_support::raw_request(address, "GET", path, &[]).status_line
}

#[test]
fn slow_and_idle_connections_are_closed_by_the_header_timeout_and_block_nobody() {
    use std::io::{Read, Write};
    let server = start(&["--header-read-timeout", "1"]);
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut slow = Vec::new();
    for index in 0..150 {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        if index < 100 {
            // Slowloris: part of a request head, then nothing.
            stream
                .write_all(b"GET /geo/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .expect("partial head");
        }
        slow.push(stream);
    }
    for _ in 0..20 {
        assert_eq!(
            status_line(&address, "/healthz"),
            "HTTP/1.1 200 OK",
            "normal requests are served meanwhile"
        );
    }
    // Each held connection must be closed by the server (an answer such as 408 may come first).
    // The read timeout is a liveness bound far above the 1 s header timeout, not a speed claim.
    for (index, mut stream) in slow.into_iter().enumerate() {
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let mut buffer = [0u8; 1024];
        let closed = loop {
            match stream.read(&mut buffer) {
                Ok(0) => break true,
                Ok(_) => continue,
                Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => break true,
                Err(_) => break false,
            }
        };
        assert!(
            closed,
            "connection {index} ({}) was left open",
            if index < 100 { "slow" } else { "idle" }
        );
    }
    assert_eq!(status_line(&address, "/healthz"), "HTTP/1.1 200 OK");
}

#[tokio::test]
async fn renames_right_after_a_sighup_end_on_the_last_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = sample_file(dir.path());
    let live_text = live.to_str().expect("UTF-8 path");
    let server = start(&[
        "--geodb-mode",
        "mmap",
        "--geodb",
        live_text,
        "--reload-poll",
        "1",
    ]);
    assert_eq!(city(&server.base, "81.2.69.160").await, "London");
    let a = dir.path().join("a.mmdb");
    write_other_database(&a, "Test-City", "Aville");
    let b = dir.path().join("b.mmdb");
    write_other_database(&b, "Test-City", "Bville");
    // Whichever the SIGHUP's load reads, `b` must be what the server ends on.
    std::fs::rename(&a, &live).expect("mv a live");
    signal(&server, "HUP");
    std::fs::rename(&b, &live).expect("mv b live");
    wait_for_city(&server.base, "Bville").await;
}

#[tokio::test]
async fn a_mapped_database_truncated_or_rewritten_in_place_keeps_the_server_answering() {
    for copy in ["tmpfile", "memfd"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let live = sample_file(dir.path());
        let live_text = live.to_str().expect("UTF-8 path");
        let server = start(&[
            "--geodb-mode",
            "mmap",
            "--geodb",
            live_text,
            "--geodb-copy",
            copy,
            "--reload-poll",
            "1",
        ]);
        assert_eq!(city(&server.base, "81.2.69.160").await, "London");
        // `truncate -s0 live.mmdb`: the same inode, now empty. The server keeps the database it
        // copied (the reload of an empty file is refused) and answers from it.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&live)
            .expect("open")
            .set_len(0)
            .expect("truncate");
        for _ in 0..30 {
            assert_eq!(city(&server.base, "81.2.69.160").await, "London", "{copy}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // `cp other.mmdb live.mmdb`: written in place, same inode; picked up when complete.
        let other = dir.path().join("other.mmdb");
        write_other_database(&other, "Test-City", "Copiedville");
        std::fs::copy(&other, &live).expect("cp other live");
        wait_for_city(&server.base, "Copiedville").await;
        let mut server = server;
        assert!(
            server.child.try_wait().expect("status").is_none(),
            "{copy}: the server is alive"
        );
    }
}
