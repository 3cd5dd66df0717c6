//! `cargo xtask soak`: the geo-server (release) on loopback under mixed traffic and hostile
//! clients for a bounded time, while its memory-mapped database is replaced in every way a
//! deployment does it.
//!
//! - Well-behaved load: wrk with `benches/wrk/soak.lua` (lookups, the SPA with and without
//!   gzip, ranges, revalidations, bad paths), 32 connections.
//! - Beside it, the clients of clients.rs: connections that open and wait, HTTP/2 streams held
//!   at window 0, slow readers of two ranges, a client hogging connections from another
//!   address, spoofers.
//! - The database, every 5 s in turn (swaps.rs): renamed over, copied over in place, truncated
//!   and then written, and the SIGHUP race.
//!
//! Passes ([`Report::check`]) when the load saw no 5xx and no socket error, every hostile
//! connection was closed within its deadline, every slow reader got its answer whole, no spoof
//! was believed, RSS less the answer cache (and less the mapped database's pages) in the last
//! minute is within 2% of its second minute's (each the median of its measures; short runs:
//! the last measure within 4 MiB of the one after 3 s), one private copy of the database is
//! mapped, and the server shuts down cleanly. The memory is measured every half minute after
//! the first (the load stopped each time), so the report shows its course, private RSS and the
//! heap in use beside it. The figures go to `target/bench/soak.md`, with `/proc/PID/smaps` and
//! `status` at each measure.
//! `--quick`: 20 s, on the sample database when no GeoLite2 file is present, with the debug
//! build the other CI steps already made (CI checks the behaviour; a release build of its own
//! would add two minutes to every run for memory figures a short run does not judge closely).

mod clients;
mod report;
mod server;
mod swaps;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail, ensure};

use crate::process::{build_geo_server, ensure_wrk, geolite2, wrk};
use report::Report;
use server::Server;
use swaps::Swapper;

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

/// Runs this long or longer start measuring after a minute and judge memory in percent; shorter
/// ones (CI's) after 3 s, in MiB.
const LONG_RUN: u64 = 120;
/// Seconds of load between two measures of the memory after the first minute: a glibc heap's
/// resident size moves from one settled state to the next with no trend (where its threads'
/// caches hold freed blocks; BENCHMARKS.md, "Memory under the soak", has the figures), so each
/// end of the soak is taken as the median of the measures of a minute (report.rs).
const STEP: u64 = 30;
/// The deadlines the server is started with, short so that hostile connections cycle.
const HEADER_TIMEOUT: u64 = 2;
const IDLE_TIMEOUT: u64 = 5;
/// The caps: the hog's connections pass its share, and all of them together the cap.
const CAP: usize = 360;
const PER_CLIENT: usize = 200;
/// Hostile connections held open at all times that open and wait.
const OPENINGS: usize = 100;
/// HTTP/2 connections holding streams at window 0 at all times.
const WINDOW_ZERO: usize = 8;
/// Slow readers of two ranges at all times.
const SLOW_READERS: usize = 8;
/// The hog's keep-alive connections.
const HOG: usize = 240;

/// Runs the soak and fails on what [`Report::check`] refuses or an unclean shutdown.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let seconds = if args.quick { 20 } else { args.seconds.max(30) };
    ensure_wrk()?;
    let binary = build_geo_server(args.quick)?;
    let (database, which) = match geolite2() {
        Some(path) => (std::fs::read(&path)?, path.display().to_string()),
        None if args.quick => {
            let path = sample_database(&binary)?;
            (std::fs::read(&path)?, "the sample database".to_owned())
        }
        None => bail!("the soak maps a real database: run `cargo xtask geodb` first (or --quick)"),
    };
    let dir = tempfile::tempdir()?;
    let mut swapper = Swapper::new(dir.path(), &database)?;
    let server = Server::start(&binary, &swapper.live)?;
    let measured = soak(&server, &mut swapper, seconds, which);
    let stopped = server.stop();
    let report = measured?;
    println!("{report}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/soak.md", format!("{report}\n"))?;
    report.check()?;
    stopped?;
    println!("soak: passed; geo-server shut down cleanly");
    Ok(())
}

/// The load, the clients and the swaps, in stretches: the first minute (3 s in short runs), then
/// half a minute at a time (the rest at once in short runs); after each, with the load and every
/// client stopped (their connections closed), the memory in the same settled state, so the
/// report shows its course and not only its two ends.
fn soak(
    server: &Server,
    swapper: &mut Swapper<'_>,
    seconds: u64,
    which: String,
) -> anyhow::Result<Report> {
    // Warm-up: the same traffic (it brings up the blocking pool and fills caches).
    let warm = load_for(server, 5)?;
    ensure!(warm.status.success(), "warm-up wrk failed");
    let tallies = std::sync::Arc::new(clients::Tallies::default());
    let mut samples = Vec::new();
    let mut course = Vec::new();
    let mut elapsed = 0;
    for stretch in stretches(seconds) {
        samples.push(one_stretch(server, swapper, &tallies, stretch)?);
        elapsed += stretch;
        course.push(server.settled(elapsed, swapper.dir)?);
    }
    let mut report = Report {
        which,
        seconds,
        requests: 0,
        server_errors: 0,
        socket_errors: 0,
        p99_ms: 0.0,
        clients: tallies,
        expired_first_request: server.metric(
            "geo_connections_expired_total",
            &[("phase", "first_request")],
        )?,
        expired_stalled: server.metric("geo_connections_expired_total", &[("phase", "stalled")])?,
        evicted: server.metric("geo_connections_evicted_total", &[])?,
        refused: server.metric("geo_connections_refused_total", &[("limit", "cap")])?
            + server.metric("geo_connections_refused_total", &[("limit", "client")])?,
        swaps: swapper.done,
        reloads: server.reloads.load(std::sync::atomic::Ordering::Relaxed),
        refusals: server.refusals.load(std::sync::atomic::Ordering::Relaxed),
        mapped_copies: server.mapped_databases(swapper.dir)?,
        course,
    };
    for text in &samples {
        report.add_load(text)?;
    }
    // The server must still answer, from the last database.
    let health = bindery_test_support::try_raw_request(
        server.address,
        None,
        "GET",
        "/geo/81.2.69.160",
        &[],
    )?;
    ensure!(
        health.status == 200,
        "after the soak: {}",
        health.status_line
    );
    Ok(report)
}

/// One stretch of `seconds`: the well-behaved load, the clients and the swaps together, then
/// the clients stopped; wrk's output.
fn one_stretch(
    server: &Server,
    swapper: &mut Swapper<'_>,
    tallies: &std::sync::Arc<clients::Tallies>,
    seconds: u64,
) -> anyhow::Result<String> {
    let clients = clients::Clients::start(server.address, tallies);
    let load = wrk(Some(1), 32, seconds)
        .args(["-s", "benches/wrk/soak.lua"])
        .arg(format!("http://{}", server.address))
        .stdout(Stdio::piped())
        .spawn()?;
    swapper.during(Duration::from_secs(seconds), server)?;
    let output = load.wait_with_output()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    ensure!(output.status.success(), "wrk failed: {text}");
    clients.stop();
    Ok(text)
}

/// The lengths of the stretches of a soak of `seconds`: the first minute (3 s in a short run),
/// then [`STEP`] at a time (the last one what is left), or the rest at once in a short run.
fn stretches(seconds: u64) -> Vec<u64> {
    let first = if seconds >= LONG_RUN { 60 } else { 3 };
    let mut lengths = vec![first];
    let mut left = seconds - first;
    if seconds < LONG_RUN {
        lengths.push(left);
        return lengths;
    }
    while left > 0 {
        let length = if left < STEP + STEP / 2 { left } else { STEP };
        lengths.push(length);
        left -= length;
    }
    lengths
}

/// wrk with the soak's script for `seconds`, waited for.
fn load_for(server: &Server, seconds: u64) -> anyhow::Result<std::process::Output> {
    Ok(wrk(Some(1), 32, seconds)
        .args(["-s", "benches/wrk/soak.lua"])
        .arg(format!("http://{}", server.address))
        .output()?)
}

/// The sample database the build of `binary` wrote (geodb's build script, in the same profile's
/// folder), for runs without a GeoLite2 file.
fn sample_database(binary: &Path) -> anyhow::Result<PathBuf> {
    let build = binary.with_file_name("build");
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&build)
        .with_context(|| format!("cannot read {}", build.display()))?
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("geodb-"))
        .map(|entry| entry.path().join("out/sample-city.mmdb"))
        .filter_map(|path| Some((std::fs::metadata(&path).ok()?.modified().ok()?, path)))
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, path)| path)
        .with_context(|| format!("no sample database under {}/geodb-*/out", build.display()))
}

#[cfg(test)]
mod tests {
    use super::stretches;

    #[test]
    fn stretches_cover_the_soak_half_a_minute_at_a_time_after_the_first() {
        assert_eq!(stretches(20), [3, 17]);
        let long = stretches(600);
        assert_eq!(long.len(), 19);
        assert!(long[1..].iter().all(|&length| length == 30));
        assert_eq!(stretches(130), [60, 30, 40]);
        assert_eq!(stretches(100), [3, 97]);
        for seconds in 30..2000 {
            assert_eq!(stretches(seconds).iter().sum::<u64>(), seconds);
        }
    }
}
