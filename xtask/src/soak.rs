//! `cargo xtask soak`: the release geo-server on loopback under mixed traffic and hostile
//! clients for a bounded time, while its memory-mapped database is replaced in every way a
//! deployment does it.
//!
//! - Well-behaved load: wrk with `benches/wrk/soak.lua` (lookups, the SPA with and without
//!   gzip, ranges, revalidations, bad paths), 32 connections.
//! - Hostile clients: 100 connections kept open at all times that send one byte (`P`, `G`), an
//!   HTTP/2 preface, a preface and a SETTINGS frame, or a request head one byte every 500 ms,
//!   then wait; each must be closed by the server within its deadline, and is replaced.
//! - Spoofers: `/geo/me` with `X-Forwarded-For: 8.8.8.8, 203.0.113.7:51234` from a peer outside
//!   `--trust-proxy 10.0.0.0/8`: the answer must be for the peer.
//! - The database, every 5 s in turn: renamed over, copied over in place (`cp`), truncated to
//!   nothing and then written (`curl -o`), and the SIGHUP race (`mv a live; kill -HUP; mv b live`).
//!
//! Passes when wrk saw no 5xx and no socket errors, every hostile connection was closed within
//! its deadline (plus a second), no spoof was believed, private RSS (`RssAnon`) less the answer
//! cache's bytes (from `/metrics` on the admin listener) at the end is within 2% of its value
//! after the first minute (short runs: within 4 MiB of it after 3 s), both read in the same
//! settled state, one private copy of the database is mapped, and the server shuts down cleanly. The figures go to `target/bench/soak.md`.
//! `--quick`: 20 s, on the sample database when no GeoLite2 file is present (CI).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};

use crate::process::{build_release_binary, ensure_wrk, geolite2, status_kib, wrk};

/// Flags of `cargo xtask soak`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds of load (default 600: ten minutes).
    #[arg(long, default_value_t = 600)]
    pub seconds: u64,
    /// 20 seconds, on the sample database when no GeoLite2 file is present.
    #[arg(long)]
    pub quick: bool,
}

/// The deadlines the server is started with, short so that hostile connections cycle.
const HEADER_TIMEOUT: u64 = 2;
const IDLE_TIMEOUT: u64 = 5;
/// Hostile connections held open at all times.
const HOSTILE: usize = 100;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

/// Private resident memory (heap, stacks) in KiB: what a leak grows. File-backed pages of the
/// mapped database come and go with reloads and are not counted.
fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    status_kib(pid, "RssAnon")
}

/// How many distinct private copies of the database are mapped (unnamed files in `dir`, or
/// memfds): 1 when every replaced one was released after its reload.
fn mapped_databases(pid: u32, dir: &Path) -> anyhow::Result<usize> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let dir = dir.to_string_lossy();
    let mut inodes: Vec<&str> = maps
        .lines()
        .filter(|line| {
            line.contains("memfd:geo-server-database")
                || line
                    .split_whitespace()
                    .nth(5)
                    .is_some_and(|path| path.starts_with(&*dir))
        })
        .filter_map(|line| line.split_whitespace().nth(4))
        .collect();
    inodes.sort_unstable();
    inodes.dedup();
    Ok(inodes.len())
}

/// One HTTP/1.1 GET with `Connection: close`; the whole answer as text.
fn get(address: &str, path: &str, headers: &[(&str, &str)]) -> anyhow::Result<String> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: soak\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    Ok(answer)
}

/// A gauge or counter from the admin listener's `/metrics`.
fn metric(admin: &str, name: &str) -> anyhow::Result<f64> {
    let text = get(admin, "/metrics", &[])?;
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
        .with_context(|| format!("no {name} in /metrics"))
}

/// Private RSS less the answer cache's own bytes, in KiB: what must stay flat.
fn steady_kib(pid: u32, admin: &str) -> anyhow::Result<f64> {
    let cache = metric(admin, "geo_answer_cache_bytes")?;
    Ok(rss_kib(pid)? as f64 - cache / 1024.0)
}

/// The memory in one settled state, measured the same way after each stretch of load: the
/// well-behaved load stopped (the hostile clients go on), the last swap's reload landed, then a
/// SIGHUP reload of the same file, which empties the answer cache (and gives its memory back),
/// so what remains is what the server holds besides the cache. Private RSS less the cache's
/// bytes, in KiB.
fn settle(run: &Soak<'_>) -> anyhow::Result<f64> {
    std::thread::sleep(Duration::from_secs(3));
    let before = run.reloads.load(Ordering::Relaxed) + run.refusals.load(Ordering::Relaxed);
    let status = Command::new("kill")
        .args(["-HUP", &run.pid.to_string()])
        .status()?;
    ensure!(status.success(), "kill -HUP failed");
    let deadline = Instant::now() + Duration::from_secs(30);
    while run.reloads.load(Ordering::Relaxed) + run.refusals.load(Ordering::Relaxed) == before {
        ensure!(
            Instant::now() < deadline,
            "the settling reload never landed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(1));
    steady_kib(run.pid, run.admin)
}

/// What the hostile clients saw.
#[derive(Default)]
struct Hostile {
    opened: AtomicU64,
    /// Closed by the server within the deadline plus a second.
    closed_in_time: AtomicU64,
    /// Still open past the deadline plus a second (then dropped by the client).
    overdue: AtomicU64,
    /// The longest a connection lived, in milliseconds.
    longest_ms: AtomicU64,
}

/// One hostile connection: its opening, then silence (or a byte every 500 ms), until the server
/// closes it.
fn hostile_once(address: &str, kind: usize, seen: &Hostile) -> anyhow::Result<()> {
    let deadline = Duration::from_secs(HEADER_TIMEOUT + 1);
    let started = Instant::now();
    let mut stream = TcpStream::connect(address)?;
    seen.opened.fetch_add(1, Ordering::Relaxed);
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    match kind % 5 {
        0 => stream.write_all(b"P")?,
        1 => stream.write_all(b"G")?,
        2 => stream.write_all(PREFACE)?,
        3 => {
            stream.write_all(PREFACE)?;
            stream.write_all(SETTINGS)?;
        }
        _ => {}
    }
    let dribble = b"GET /geo/8.8.8.8 HTTP/1.1\r\nHost: slowloris\r\nX-Pad: ";
    let mut buffer = [0u8; 4096];
    let mut sent = 0;
    loop {
        if kind % 5 == 4 {
            // Slowloris: a byte of a head that never ends, every 500 ms.
            let byte = dribble.get(sent).copied().unwrap_or(b'a');
            if stream.write_all(&[byte]).is_err() {
                break;
            }
            sent += 1;
        }
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
        if started.elapsed() > deadline + Duration::from_secs(5) {
            break;
        }
    }
    let lived = started.elapsed();
    seen.longest_ms
        .fetch_max(lived.as_millis() as u64, Ordering::Relaxed);
    let counter = if lived <= deadline {
        &seen.closed_in_time
    } else {
        &seen.overdue
    };
    counter.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// The ways the live file is replaced, in turn.
#[derive(Debug, Clone, Copy)]
enum Swap {
    Rename,
    CopyInPlace,
    TruncateThenWrite,
    SighupRace,
}

const SWAPS: [Swap; 4] = [
    Swap::Rename,
    Swap::CopyInPlace,
    Swap::TruncateThenWrite,
    Swap::SighupRace,
];

fn swap(how: Swap, dir: &Path, live: &Path, database: &[u8], pid: u32) -> anyhow::Result<()> {
    match how {
        Swap::Rename => {
            let next = dir.join("next.mmdb");
            std::fs::write(&next, database)?;
            std::fs::rename(&next, live)?;
        }
        // `cp other.mmdb live.mmdb`: the same inode, truncated and written.
        Swap::CopyInPlace => {
            let other = dir.join("other.mmdb");
            std::fs::write(&other, database)?;
            std::fs::copy(&other, live)?;
        }
        // `truncate -s0 live.mmdb`, a pause, then the bytes (`curl -o` on a slow link).
        Swap::TruncateThenWrite => {
            std::fs::OpenOptions::new()
                .write(true)
                .open(live)?
                .set_len(0)?;
            std::thread::sleep(Duration::from_millis(1500));
            std::fs::write(live, database)?;
        }
        Swap::SighupRace => {
            let a = dir.join("a.mmdb");
            let b = dir.join("b.mmdb");
            std::fs::write(&a, database)?;
            std::fs::write(&b, database)?;
            std::fs::rename(&a, live)?;
            let status = Command::new("kill")
                .args(["-HUP", &pid.to_string()])
                .status()?;
            ensure!(status.success(), "kill -HUP failed");
            std::thread::sleep(Duration::from_millis(300));
            std::fs::rename(&b, live)?;
        }
    }
    Ok(())
}

/// The sample database the release build wrote (geodb's build script), for runs without a
/// GeoLite2 file.
fn sample_database() -> anyhow::Result<PathBuf> {
    let mut found: Vec<(std::time::SystemTime, PathBuf)> =
        std::fs::read_dir("target/release/build")?
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with("geodb-"))
            .map(|entry| entry.path().join("out/sample-city.mmdb"))
            .filter_map(|path| Some((std::fs::metadata(&path).ok()?.modified().ok()?, path)))
            .collect();
    found.sort();
    found
        .pop()
        .map(|(_, path)| path)
        .context("no sample database under target/release/build/geodb-*/out")
}

/// A free loopback port, for the admin listener.
fn free_address() -> anyhow::Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.to_string())
}

/// Runs the soak and fails on any 5xx, socket error, overdue hostile connection, believed
/// spoof, RSS growth over 2%, or unclean shutdown.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let seconds = if args.quick { 20 } else { args.seconds.max(30) };
    ensure_wrk()?;
    build_release_binary("geo-server", "geo-server")?;
    let (database, which) = match geolite2() {
        Some(path) => (std::fs::read(&path)?, path.display().to_string()),
        None if args.quick => {
            let path = sample_database()?;
            (std::fs::read(&path)?, "the sample database".to_owned())
        }
        None => bail!("the soak maps a real database: run `cargo xtask geodb` first (or --quick)"),
    };
    let dir = tempfile::tempdir()?;
    let live = dir.path().join("live.mmdb");
    std::fs::write(&live, &database)?;
    let admin = free_address()?;

    let mut server = Command::new("taskset")
        .args([
            "-c",
            "0",
            "target/release/geo-server",
            "--addr",
            "127.0.0.1:0",
        ])
        .args(["--admin-addr", &admin, "--trust-proxy", "10.0.0.0/8"])
        .args(["--header-read-timeout", &HEADER_TIMEOUT.to_string()])
        .args(["--idle-timeout", &IDLE_TIMEOUT.to_string()])
        .args(["--geodb-mode", "mmap", "--reload-poll", "1", "--geodb"])
        .arg(&live)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start geo-server")?;
    let pid = server.id();
    let mut lines = BufReader::new(server.stdout.take().context("stdout")?).lines();
    let address = loop {
        let line = lines.next().context("geo-server exited")??;
        if line.contains("admin listening") {
            continue;
        }
        if let Some((_, rest)) = line.split_once("listening addr=") {
            break rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
        }
    };
    let reloads = Arc::new(AtomicU32::new(0));
    let refusals = Arc::new(AtomicU32::new(0));
    let (counter, refused) = (Arc::clone(&reloads), Arc::clone(&refusals));
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if line.contains("database reloaded") {
                counter.fetch_add(1, Ordering::Relaxed);
            } else if line.contains("reload refused") {
                refused.fetch_add(1, Ordering::Relaxed);
            }
        }
    });

    let result = soak(&Soak {
        seconds,
        pid,
        address: &address,
        admin: &admin,
        dir: dir.path(),
        live: &live,
        database: &database,
        which: &which,
        reloads: &reloads,
        refusals: &refusals,
    });
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let status = server.wait()?;
    result?;
    ensure!(
        status.success(),
        "geo-server did not shut down cleanly: {status}"
    );
    println!("soak: passed; geo-server shut down cleanly");
    Ok(())
}

struct Soak<'a> {
    seconds: u64,
    pid: u32,
    address: &'a str,
    admin: &'a str,
    dir: &'a Path,
    live: &'a Path,
    database: &'a [u8],
    which: &'a str,
    reloads: &'a AtomicU32,
    refusals: &'a AtomicU32,
}

fn soak(run: &Soak<'_>) -> anyhow::Result<()> {
    // Warm-up: the same traffic (it brings up the blocking pool and fills caches).
    let warm = wrk(Some(1), 32, 5)
        .args(["-s", "benches/wrk/soak.lua"])
        .arg(format!("http://{}", run.address))
        .output()?;
    ensure!(warm.status.success(), "warm-up wrk failed");

    let stop = Arc::new(AtomicBool::new(false));
    let hostile = Arc::new(Hostile::default());
    let spoofs_believed = Arc::new(AtomicU64::new(0));
    let spoofs_sent = Arc::new(AtomicU64::new(0));
    let mut helpers = Vec::new();
    for kind in 0..HOSTILE {
        let (stop, seen, address) = (
            Arc::clone(&stop),
            Arc::clone(&hostile),
            run.address.to_owned(),
        );
        helpers.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if hostile_once(&address, kind, &seen).is_err() {
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }));
    }
    {
        let (stop, believed, sent, address) = (
            Arc::clone(&stop),
            Arc::clone(&spoofs_believed),
            Arc::clone(&spoofs_sent),
            run.address.to_owned(),
        );
        helpers.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let spoof = [("X-Forwarded-For", "8.8.8.8, 203.0.113.7:51234")];
                if let Ok(answer) = get(&address, "/geo/me", &spoof) {
                    sent.fetch_add(1, Ordering::Relaxed);
                    if answer.contains("8.8.8.8") || answer.contains("203.0.113.7") {
                        believed.fetch_add(1, Ordering::Relaxed);
                    }
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }));
    }

    // Two stretches of load: the first minute (3 s in short runs), then the rest; after each,
    // the memory is read in the same settled state (see `settle`).
    let first = if run.seconds >= 120 { 60 } else { 3 };
    let mut swaps = [0u32; 4];
    let mut turn = 0;
    let mut samples = Vec::new();
    let mut settled = Vec::new();
    for stretch in [first, run.seconds - first] {
        let load = wrk(Some(1), 32, stretch)
            .args(["-s", "benches/wrk/soak.lua"])
            .arg(format!("http://{}", run.address))
            .stdout(Stdio::piped())
            .spawn()?;
        let started = Instant::now();
        // Swap the database every 5 s while the load runs, the ways in turn.
        while started.elapsed() + Duration::from_secs(7) < Duration::from_secs(stretch) {
            std::thread::sleep(Duration::from_secs(5));
            let how = SWAPS[turn % SWAPS.len()];
            swap(how, run.dir, run.live, run.database, run.pid)?;
            swaps[turn % SWAPS.len()] += 1;
            turn += 1;
        }
        let output = load.wait_with_output()?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        ensure!(output.status.success(), "wrk failed: {text}");
        samples.push(text);
        settled.push(settle(run)?);
    }
    let (baseline, end) = (settled[0], settled[1]);
    stop.store(true, Ordering::Relaxed);
    for helper in helpers {
        let _ = helper.join();
    }
    let baseline_at = Duration::from_secs(first);
    let maps = mapped_databases(run.pid, run.dir)?;
    let mut requests = 0;
    let mut errors = 0;
    let mut server_errors = 0u64;
    let mut p99 = 0.0f64;
    for text in &samples {
        let sample = crate::bench_http::parse_wrk(text)?;
        requests += sample.requests;
        errors += sample.errors;
        p99 = p99.max(sample.p99_ms);
        server_errors += text
            .lines()
            .find_map(|line| line.strip_prefix("server_errors="))
            .and_then(|value| value.trim().parse::<u64>().ok())
            .context("the script reports server_errors")?;
    }
    let requests_per_second = requests as f64 / run.seconds as f64;
    let growth = (end - baseline) / baseline * 100.0;
    let refused_connections = metric(run.admin, "geo_connections_refused_total")?;
    let expired = metric(
        run.admin,
        "geo_connections_expired_total{phase=\"first_request\"}",
    )?;
    let summary = format!(
        "soak of {}: {} s, {requests} requests ({requests_per_second:.0}/s), p99 {p99:.2} ms (the worse stretch), 5xx {server_errors}, socket errors {errors}; \
         hostile connections {} opened, {} closed within {} s, {} overdue, longest {:.1} s, \
         {expired:.0} closed by the first-request deadline, {refused_connections:.0} refused at the cap; \
         spoofed /geo/me {} sent, {} believed; database swaps: {} renames, {} cp in place, \
         {} truncate-then-write, {} SIGHUP races ({} reloads, {} refused loads logged), \
         {maps} private copy mapped at the end; private RSS less the answer cache after {} s \
         {:.1} MiB, at the end {:.1} MiB ({growth:+.2}%)",
        run.which,
        run.seconds,
        hostile.opened.load(Ordering::Relaxed),
        hostile.closed_in_time.load(Ordering::Relaxed),
        HEADER_TIMEOUT + 1,
        hostile.overdue.load(Ordering::Relaxed),
        hostile.longest_ms.load(Ordering::Relaxed) as f64 / 1000.0,
        spoofs_sent.load(Ordering::Relaxed),
        spoofs_believed.load(Ordering::Relaxed),
        swaps[0],
        swaps[1],
        swaps[2],
        swaps[3],
        run.reloads.load(Ordering::Relaxed),
        run.refusals.load(Ordering::Relaxed),
        baseline_at.as_secs(),
        baseline / 1024.0,
        end / 1024.0,
    );
    println!("{summary}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/soak.md", format!("{summary}\n"))?;
    ensure!(server_errors == 0, "{server_errors} answers were 5xx");
    ensure!(errors == 0, "{errors} socket errors");
    ensure!(
        hostile.overdue.load(Ordering::Relaxed) == 0,
        "hostile connections outlived their deadline"
    );
    ensure!(
        spoofs_believed.load(Ordering::Relaxed) == 0,
        "a spoofed X-Forwarded-For was believed"
    );
    // After a minute the server has met every kind of request and swap: 2%. A short run's
    // baseline after 3 s is not warm yet (buffers, the blocking pool's threads): a leak shows
    // there as megabytes, not percents.
    let grown_kib = end - baseline;
    ensure!(
        growth.abs() <= 2.0 || (run.seconds < 120 && grown_kib.abs() < 4096.0),
        "private RSS moved {growth:+.2}% ({grown_kib:.0} KiB) from its baseline"
    );
    ensure!(
        maps == 1,
        "{maps} database copies are mapped: replaced ones were not released"
    );
    // The server must still answer from the last database, and say which.
    let health = get(run.address, "/geo/81.2.69.160", &[])?;
    ensure!(
        health.starts_with("HTTP/1.1 200"),
        "after the soak: {health}"
    );
    Ok(())
}
