//! Graceful shutdown with a response truly in flight: 17 MiB does not fit in the kernel's socket
//! buffers (a few MiB at most), so when SIGTERM arrives most of the body is still to be written by
//! the server. It must finish; with no grace period it would be cut.

use std::io::{Read, Write};
use std::process::Command;
use std::time::Duration;

use bindery_test_support::spawn_with_first_line;

const LARGE: usize = 17 * 1024 * 1024;

/// Downloads the 17 MiB file, sending SIGTERM after the first MiB; returns the body length.
fn download_across_sigterm(grace_seconds: &str) -> usize {
    let (mut server, line) = spawn_with_first_line(
        Command::new(env!("CARGO_BIN_EXE_bench-server")).args(["--shutdown-grace", grace_seconds]),
    );
    let address = line
        .strip_prefix("listening addr=")
        .expect("listening line")
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&address).expect("connect");
    write!(
        stream,
        "GET /bench/static/large/noise.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut received = vec![0u8; 1024 * 1024];
    stream
        .read_exact(&mut received)
        .expect("the response has started");
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    // Reading slowly for a moment makes sure the server is in its shutdown with bytes to write.
    std::thread::sleep(Duration::from_millis(300));
    let _ = stream.read_to_end(&mut received);
    let _ = server.wait();
    let text = &received[..received.len().min(4096)];
    let head_end = text
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a full head")
        + 4;
    assert!(received.starts_with(b"HTTP/1.1 200"));
    received.len() - head_end
}

#[test]
fn a_response_in_flight_finishes_after_sigterm() {
    assert_eq!(
        download_across_sigterm("30"),
        LARGE,
        "the whole body arrived after SIGTERM"
    );
}

#[test]
fn without_a_grace_period_the_same_response_is_cut() {
    // Proves the test above can fail: the response really was in flight.
    assert!(download_across_sigterm("0") < LARGE);
}
