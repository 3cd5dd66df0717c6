//! `bindery::serve::Server` as a user runs it: a crate outside the workspace whose `main.rs` is
//! docs/frameworks.md's axum program (the file the page shows), built in release mode and
//! started at an open-file limit of 1,024, against every hostile client at once
//! (`bindery_test_support::hostile`): 500 connections sending a header byte every 5 s, ten
//! HTTP/2 connections of 199 two-range streams at window 0 on a 17 MiB static file and a
//! gzip-stored one with `HEAD`s every 3 s, 50 readers of the 17 MiB file at 1 KB/s, and one
//! client opening 1,100 keep-alive connections; a normal client asks for a page throughout.
//! `cargo xtask bench-hostile` runs the same against plain `axum::serve`, actix-web and rocket.

use std::path::Path;
use std::time::Duration;

use bindery_test_support::deployment::{self, BIG, Deployment, GZIP, SMALL};
use bindery_test_support::hostile::{self, Attack, Closures};

/// `Server`'s documented defaults (SECURITY.md, "Limits and timeouts"), which these tests hold.
const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Every connection of `closures` was closed, none before `deadline` less a margin, none later
/// than half again the deadline.
fn closed_at(closures: &Closures, deadline: Duration, what: &str) {
    assert!(closures.opened > 0, "{what}: none connected ({closures:?})");
    assert_eq!(
        closures.open_at_end, 0,
        "{what}: still open at the end ({closures:?})"
    );
    let longest = closures.longest().expect("closed");
    assert!(
        longest <= deadline.mul_f64(1.5),
        "{what}: the last closed after {longest:?}, past its deadline of {deadline:?} + 50%"
    );
}

#[test]
fn the_docs_axum_program_on_the_library_server_closes_every_hostile_connection_in_time() {
    if !bindery_test_support::slow_test(
        "bindery",
        "server::the_docs_axum_program_on_the_library_server_closes_every_hostile_connection_in_time",
        "a release build of a throwaway crate and two minutes of attack",
    ) {
        return;
    }
    // A target folder of its own: it builds beside the throwaway crates' shared chain.
    let project =
        bindery_test_support::Project::new(Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile"));
    Deployment::Bindery.write(&project);
    let output = project
        .cargo(&["build", "--release"])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let running = deployment::start(&Deployment::Bindery.binary(&project), 1024);
    let report = hostile::run(
        running.address,
        running.pid(),
        &Attack::standard(BIG, GZIP, SMALL),
    );
    let header = DEFAULT_HEADER_READ_TIMEOUT;
    closed_at(&report.slow_headers, header, "slow heads");
    let earliest = report.slow_headers.closed_after[0];
    assert!(
        earliest >= header.mul_f64(0.9),
        "a slow head was closed after {earliest:?}, before the header deadline"
    );
    // Each stream of theirs is held from its start: the `HEAD`s renew nothing.
    closed_at(&report.window_zero, DEFAULT_IDLE_TIMEOUT, "window 0");
    assert_eq!(report.window_zero_without_http2, 0, "HTTP/2 is spoken");
    // Past its share (256) the hog's own longest idle connection makes room; the rest idle out.
    closed_at(&report.hog, DEFAULT_IDLE_TIMEOUT, "the hog");
    assert!(report.hog_answered > 0, "the hog's requests are answered");
    // Slow readers keep moving: they are served, not cut.
    assert_eq!(
        report.slow_readers.closed_after.len(),
        0,
        "slow readers cut: {report:?}"
    );
    assert!(
        report.slow_reader_least_bytes > 0,
        "a slow reader got nothing"
    );
    assert!(
        report.normal.requests > 10 && report.normal.answered == report.normal.requests,
        "the normal client: {:?}",
        report.normal
    );
    assert!(
        report.anon_back_after.is_some(),
        "memory: {} KiB before, {} KiB at the peak, {} KiB 30 s after the attack",
        report.anon_before,
        report.anon_peak,
        report.anon_after
    );
}
