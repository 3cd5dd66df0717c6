//! `bindery::serve::Server` at its defaults, as a user runs it (docs/frameworks.md's axum
//! program, a release build of a crate outside the workspace, as `it::server` builds it), against
//! the attacks that got past it before: clients from 2, 4 and 16 addresses keeping every slot
//! busy, one client filling the budget of heap bodies under a 256 MiB memory limit, rapid
//! resets of answered streams, a head or header block left half-sent behind a request, window
//! updates too small to prove progress, and a client that never acknowledges the shutdown ping.
//! All at once, each against a server of its own; SECURITY.md quotes the figures printed.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bindery_test_support::budget::{BudgetAttack, MemoryGroup};
use bindery_test_support::busy::{self, BusyAttack};
use bindery_test_support::deployment::{self, BIG, Deployment, GZIP, SMALL};
use bindery_test_support::hostile::status_kib;
use bindery_test_support::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};

/// `Server`'s documented defaults (SECURITY.md, "Limits and timeouts"), which these tests hold.
const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// Builds the docs' axum program in release (the target folder `it::server` builds it in).
fn build() -> PathBuf {
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
    let binary = Deployment::Bindery.binary(&project);
    // The project folder goes when this returns; the binary is copied out of the shared target.
    let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-attacks-server");
    std::fs::copy(&binary, &kept).expect("copy the binary");
    kept
}

/// The connection cap when started with 576 open files (less the 64 kept back).
const CAP: usize = 512;

fn busy_slots(binary: &Path, addresses: u8) -> String {
    let running = deployment::start(binary, CAP as u64 + 64);
    let attack = BusyAttack {
        // Each from a /24 of its own: no block rule merges them.
        addresses: (0..addresses)
            .map(|index| IpAddr::from([127, 10 + index, 0, 1]))
            .collect(),
        per_address: CAP / usize::from(addresses) + 8,
        replace_every: Duration::from_secs(45),
        page: SMALL.to_owned(),
        large: BIG.to_owned(),
        probe_from: IpAddr::from([127, 250, 0, 1]),
        probe_every: Duration::from_secs(2),
        probe_timeout: Duration::from_secs(2),
        duration: Duration::from_secs(120),
    };
    let report = busy::run(running.address, running.pid(), &attack);
    let share = CAP.div_ceil(usize::from(addresses));
    let mut failures = Vec::new();
    if report.answered * 100 < report.probes * 95 {
        failures.push("fewer than 95% of the probes answered");
    }
    if report.held_most < CAP * 9 / 10 {
        failures.push("the attackers never held the slots");
    }
    // Counted from the server's descriptors every half second: a refused newcomer and the one
    // connection given up for room are being closed at any moment (the accept loop waits for
    // the latter's socket: without that wait, bursts of newcomers held up to 20 more).
    if report.held_most > CAP + 8 {
        failures.push("the server held more connections than its cap");
    }
    // Each attacker comes back a second after each connection it loses, so shares swing around
    // the fair one; a holder gives way once it holds two more than a newcomer would.
    if report.held_most_by_one > share + share / 4 + 2 {
        failures.push("an attacker held more than its share");
    }
    let line = format!(
        "{addresses} addresses: {} of {} probes answered, slowest {:.2} s, longest without \
         an answer {:.1} s; the server held {} of theirs at most, one address {} at most after \
         the first minute (share {share}), {:?} at the end; {} closed under them",
        report.answered,
        report.probes,
        report.slowest.as_secs_f64(),
        report.longest_without_answer.as_secs_f64(),
        report.held_most,
        report.held_most_by_one,
        report.held_at_end,
        report.closed_by_server,
    );
    assert!(failures.is_empty(), "{failures:?}: {line}");
    line
}

fn budget_under_256_mib(binary: &Path) -> String {
    let limit = 256u64 << 20;
    let group = MemoryGroup::new(&format!("bindery-test-{}", std::process::id()), limit)
        .expect("a memory cgroup (as root, cgroup v1 or v2): the test runs the server in one");
    let mut running = deployment::start_in(binary, 1024, Some(&group.procs()));
    let pid = running.pid();
    let before = status_kib(pid, "RssAnon");
    let attack = BudgetAttack {
        from: IpAddr::from([127, 20, 0, 1]),
        connections: 19,
        ranges: 1_100,
        path: GZIP.to_owned(),
        len: 256 << 10,
        hold: Duration::from_secs(50),
        other_from: IpAddr::from([127, 21, 0, 1]),
        other_every: Duration::from_millis(500),
    };
    let sampling = std::thread::spawn(move || {
        let mut peak = 0;
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(55) {
            peak = peak.max(status_kib(pid, "RssAnon"));
            std::thread::sleep(Duration::from_millis(200));
        }
        peak
    });
    let report = bindery_test_support::budget::run(running.address, &attack);
    let peak = sampling.join().expect("sampling");
    // The memory plan at 256 MiB: bodies an eighth (32 MiB), a client an eighth of that.
    let share_kib = (limit / 8 / 8) >> 10;
    let connections_kib = 19 * 384;
    let grown = peak.saturating_sub(before);
    let line = format!(
        "under a 256 MiB limit, one client's {} ranges: {} answered 206, {} refused 503; its \
         share {} KiB; anonymous memory {} KiB before, {} KiB at the peak (+{grown} KiB); the \
         group's peak {} KiB; the other client's whole file {} of {}",
        attack.ranges,
        report.partial,
        report.refused,
        share_kib,
        before,
        peak,
        group.peak().unwrap_or(0) >> 10,
        report.identity_answered,
        report.identity_requests,
    );
    assert!(running.is_running(), "the server was killed: {line}");
    assert_eq!(group.oom_kills(), 0, "{line}");
    assert!(report.refused > 0 && report.partial > 0, "{line}");
    assert!(
        report.identity_requests > 50 && report.identity_answered == report.identity_requests,
        "{line}"
    );
    assert!(
        grown <= share_kib + connections_kib + 8 * 1024,
        "the client pinned more than its share and its connections: {line}"
    );
    assert!(
        peak <= (limit / 2) >> 10,
        "past the memory plan's half: {line}"
    );
    drop(running);
    drop(group);
    line
}

/// Reads until the server closes `stream`; how long that took from `since`.
fn closed_after(stream: &mut std::net::TcpStream, since: Instant) -> Duration {
    use std::io::Read;
    let mut buffer = [0u8; 4096];
    stream
        .set_read_timeout(Some(Duration::from_secs(200)))
        .expect("timeout");
    while matches!(stream.read(&mut buffer), Ok(1..)) {}
    since.elapsed()
}

/// A head pipelined behind a request, never finished: how long until the server closed.
fn pipelined_head(address: SocketAddr) -> JoinHandle<Duration> {
    std::thread::spawn(move || {
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(address).expect("connect");
        let head = format!("GET {SMALL} HTTP/1.1\r\nhost: t\r\n\r\nGET {SMALL} HT");
        stream.write_all(head.as_bytes()).expect("write");
        closed_after(&mut stream, Instant::now())
    })
}

/// A second HTTP/2 header block left open after an answered request: how long until closed.
fn second_header_block(address: SocketAddr) -> JoinHandle<Duration> {
    std::thread::spawn(move || {
        let connection = RawH2::connect(address, &[]);
        connection.request("GET", SMALL, &[]);
        std::thread::sleep(Duration::from_millis(500));
        let opened = Instant::now();
        connection.open_header_block(SMALL);
        connection
            .wait_closed(Duration::from_secs(200))
            .expect("closed");
        opened.elapsed()
    })
}

/// A window update of `bytes` every `every`, too small to prove any frame sent: how long from
/// the connect (the request went right after) until the server closed.
fn trickle(
    address: SocketAddr,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    every: Duration,
    bytes: u32,
) -> JoinHandle<Duration> {
    std::thread::spawn(move || {
        let connection = RawH2::connect(address, &[(INITIAL_WINDOW_SIZE, 0)]);
        let asked = Instant::now();
        let stream = connection.request("GET", path, headers);
        while connection.received().closed_after.is_none()
            && asked.elapsed() < Duration::from_secs(200)
        {
            std::thread::sleep(every);
            connection.window_update(stream, bytes);
        }
        connection.received().closed_after.unwrap_or(Duration::MAX)
    })
}

/// Streams opened and reset as fast as the client can from one address: after how many the
/// connection ended, and after how many a new connection's did.
fn rapid_resets(address: SocketAddr) -> JoinHandle<(Option<usize>, Option<usize>)> {
    std::thread::spawn(move || {
        let local = Some(IpAddr::from([127, 30, 0, 1]));
        let window_zero = [(INITIAL_WINDOW_SIZE, 0)];
        let reset = |connection: &RawH2, times: usize| {
            for sent in 0..times {
                let received = connection.received();
                if received.goaway || received.closed_after.is_some() {
                    return Some(sent);
                }
                let stream = connection.request("GET", SMALL, &[]);
                std::thread::sleep(Duration::from_millis(2));
                connection.reset(stream);
            }
            None
        };
        let first = reset(&RawH2::connect_from(address, local, &window_zero), 20_000);
        let again = reset(&RawH2::connect_from(address, local, &window_zero), 100);
        (first, again)
    })
}

fn resets_and_deadline_gaps(binary: &Path) -> String {
    let running = deployment::start(binary, 1024);
    let address = running.address;
    let header = DEFAULT_HEADER_READ_TIMEOUT;
    let idle = DEFAULT_IDLE_TIMEOUT;
    let pipelined = pipelined_head(address);
    let header_block = second_header_block(address);
    // Sixteen one-byte parts (the most a multipart answer has): too long to finish at the rate.
    const PARTS: &str = "bytes=0-0,200-200,400-400,600-600,800-800,1000-1000,1200-1200,\
        1400-1400,1600-1600,1800-1800,2000-2000,2200-2200,2400-2400,2600-2600,2800-2800,3000-3000";
    let multipart = trickle(
        address,
        BIG,
        &[("range", PARTS)],
        Duration::from_secs(5),
        100,
    );
    let one_byte = trickle(address, BIG, &[], Duration::from_secs(20), 1);
    let resets = rapid_resets(address);
    let pipelined = pipelined.join().expect("pipelined");
    let header_block = header_block.join().expect("header block");
    let multipart = multipart.join().expect("multipart");
    let one_byte = one_byte.join().expect("one byte");
    let (first, again) = resets.join().expect("resets");
    let line = format!(
        "a head pipelined behind a request: closed after {:.1} s; a second HTTP/2 header \
         block left open: {:.1} s; small multipart parts let through 100 bytes every 5 s: \
         {:.1} s; a one-byte window update every 20 s: {:.1} s; rapid resets: the connection \
         ended after {first:?} of 20,000, reconnected after {again:?}",
        pipelined.as_secs_f64(),
        header_block.as_secs_f64(),
        multipart.as_secs_f64(),
        one_byte.as_secs_f64(),
    );
    assert!(
        pipelined <= header.mul_f64(1.5) && pipelined >= header.mul_f64(0.9),
        "{line}"
    );
    assert!(
        header_block <= header.mul_f64(1.5) && header_block >= header.mul_f64(0.9),
        "{line}"
    );
    assert!(multipart <= idle.mul_f64(1.5), "{line}");
    assert!(one_byte <= idle.mul_f64(1.5), "{line}");
    assert!(first.is_some_and(|first| first < 20_000), "{line}");
    // The client's allowance outlives its connection: a new one is ended within a few resets
    // (a fresh client would get 512). "A few": the allowance refills at 64 a second while the
    // client reconnects, and the client sees the GOAWAY some 2 ms resets after it is sent, more
    // on a loaded machine.
    assert!(again.is_some_and(|again| again <= 32), "{line}");
    line
}

fn shutdown_without_ping_acknowledgements(binary: &Path) -> String {
    let mut running = deployment::start(binary, 1024);
    let address: SocketAddr = running.address;
    let connection = RawH2::connect(address, &[(INITIAL_WINDOW_SIZE, 0)]);
    connection.stop_acking_pings();
    connection.request("GET", BIG, &[]);
    while connection.received().answered.is_empty() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = std::process::Command::new("kill")
        .args(["-TERM", &running.pid().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let shutdown = Instant::now();
    let grace = DEFAULT_SHUTDOWN_GRACE;
    let (mut late, mut closed_at) = (0, None);
    while shutdown.elapsed() < grace + Duration::from_secs(3) {
        let before = connection.received().answered.len();
        connection.request("GET", SMALL, &[]);
        std::thread::sleep(Duration::from_millis(200));
        let received = connection.received();
        if shutdown.elapsed() > grace + Duration::from_secs(1) && received.answered.len() > before {
            late += 1;
        }
        if closed_at.is_none() && received.closed_after.is_some() {
            closed_at = Some(shutdown.elapsed());
        }
    }
    let exited = running.wait_exit(Duration::from_secs(5));
    let line = format!(
        "a client that never acknowledges the shutdown ping: closed {:?} after SIGTERM \
         (grace {} s), {late} answers after grace + 1 s; the process exited: {}",
        closed_at,
        grace.as_secs(),
        exited.is_some()
    );
    assert_eq!(late, 0, "{line}");
    assert!(
        closed_at.is_some_and(|closed| closed <= grace + Duration::from_secs(1)),
        "{line}"
    );
    assert!(exited.is_some(), "{line}");
    line
}

#[test]
fn the_docs_axum_program_keeps_room_budget_and_deadlines_against_busy_and_resetting_clients() {
    if !bindery_test_support::slow_test(
        "bindery",
        "server_attacks::the_docs_axum_program_keeps_room_budget_and_deadlines_against_busy_and_resetting_clients",
        "a release build of a throwaway crate, then two minutes of attacks on six servers",
    ) {
        return;
    }
    let open_files = busy::raise_open_file_limit();
    assert!(
        open_files >= 4096,
        "the clients need descriptors: {open_files}"
    );
    let binary = build();
    let runs: Vec<std::thread::JoinHandle<String>> = vec![
        std::thread::spawn({
            let binary = binary.clone();
            move || busy_slots(&binary, 2)
        }),
        std::thread::spawn({
            let binary = binary.clone();
            move || busy_slots(&binary, 4)
        }),
        std::thread::spawn({
            let binary = binary.clone();
            move || busy_slots(&binary, 16)
        }),
        std::thread::spawn({
            let binary = binary.clone();
            move || budget_under_256_mib(&binary)
        }),
        std::thread::spawn({
            let binary = binary.clone();
            move || resets_and_deadline_gaps(&binary)
        }),
        std::thread::spawn({
            let binary = binary.clone();
            move || shutdown_without_ping_acknowledgements(&binary)
        }),
    ];
    let mut failures = Vec::new();
    for run in runs {
        match run.join() {
            Ok(line) => eprintln!("server_attacks: {line}"),
            Err(panic) => failures.push(
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
                    .unwrap_or_default(),
            ),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
