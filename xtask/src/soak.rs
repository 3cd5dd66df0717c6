//! `cargo xtask soak`: mixed traffic against the release geo-server on loopback for a bounded
//! time, with its memory-mapped database replaced by rename every few seconds. Passes when the
//! server answered no 5xx, wrk saw no socket errors, private RSS at the end is within 10% of the
//! value after warm-up, exactly one database map is alive (replaced maps were released) and the
//! server shuts down cleanly. Reports requests, p99 and RSS. `--quick`: 20 s.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};

use crate::process::{build_release_binary, ensure_wrk, geolite2, status_kib, wrk};

/// Flags of `cargo xtask soak`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds of load (default 180).
    #[arg(long, default_value_t = 180)]
    pub seconds: u64,
    /// 20 seconds.
    #[arg(long)]
    pub quick: bool,
}

/// Private resident memory (heap, stacks) in KiB: what a leak grows. File-backed pages of the
/// mapped database come and go with reloads and are not counted.
fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    status_kib(pid, "RssAnon")
}

/// How many distinct files named like the live database are mapped: 1 when every replaced map
/// was released after its reload.
fn mapped_databases(pid: u32) -> anyhow::Result<usize> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let mut inodes: Vec<&str> = maps
        .lines()
        .filter(|line| line.contains(".mmdb"))
        .filter_map(|line| line.split_whitespace().nth(4))
        .collect();
    inodes.sort_unstable();
    inodes.dedup();
    Ok(inodes.len())
}

/// Runs the soak and fails on any 5xx, socket error or RSS growth over 10%.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let seconds = if args.quick { 20 } else { args.seconds.max(10) };
    ensure_wrk()?;
    build_release_binary("geo-server", "geo-server")?;
    let dir = tempfile::tempdir()?;
    let live = dir.path().join("live.mmdb");
    let source = geolite2();
    let database = match &source {
        Some(path) => std::fs::read(path)?,
        None => bail!("the soak maps a database file: run `cargo xtask geodb` first"),
    };
    std::fs::write(&live, &database)?;

    let mut server = Command::new("taskset")
        .args([
            "-c",
            "0",
            "target/release/geo-server",
            "--addr",
            "127.0.0.1:0",
            "--geodb-mode",
            "mmap",
            "--reload-poll",
            "1",
            "--geodb",
        ])
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
        if let Some((_, rest)) = line.split_once("listening addr=") {
            break rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
        }
    };
    let reloads = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = reloads.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if line.contains("database reloaded") {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });

    let result = (|| {
        let replace = |dir: &std::path::Path| -> anyhow::Result<()> {
            let next = dir.join("next.mmdb");
            std::fs::write(&next, &database)?;
            std::fs::rename(&next, &live)?;
            Ok(())
        };
        let wait_for_reloads = |count: u32| {
            let deadline = Instant::now() + Duration::from_secs(60);
            while reloads.load(std::sync::atomic::Ordering::Relaxed) < count
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(100));
            }
        };
        // Warm-up: the same traffic and one reload (it brings up the blocking pool and fills
        // caches), then the baseline.
        replace(dir.path())?;
        let warm = wrk(Some(1), 32, 5)
            .args(["-s", "benches/wrk/soak.lua"])
            .arg(format!("http://{address}"))
            .output()?;
        ensure!(warm.status.success(), "warm-up wrk failed");
        wait_for_reloads(1);
        let rss_warm = rss_kib(pid)?;
        let load = wrk(Some(1), 32, seconds)
            .args(["-s", "benches/wrk/soak.lua"])
            .arg(format!("http://{address}"))
            .stdout(Stdio::piped())
            .spawn()?;
        // Replace the mapped database by rename every 5 s while the load runs.
        let started = Instant::now();
        let mut replaced = 0;
        while started.elapsed() + Duration::from_secs(8) < Duration::from_secs(seconds) {
            std::thread::sleep(Duration::from_secs(5));
            replace(dir.path())?;
            replaced += 1;
        }
        let output = load.wait_with_output()?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        ensure!(output.status.success(), "wrk failed: {text}");
        // Every replacement reloaded (the warm-up's included) before looking at the maps.
        wait_for_reloads(replaced + 1);
        let rss_end = rss_kib(pid)?;
        let maps = mapped_databases(pid)?;
        let sample = crate::bench_http::parse_wrk(&text)?;
        let server_errors: u64 = text
            .lines()
            .find_map(|line| line.strip_prefix("server_errors="))
            .and_then(|value| value.trim().parse().ok())
            .context("the script reports server_errors")?;
        let growth = (rss_end as f64 - rss_warm as f64) / rss_warm as f64 * 100.0;
        println!(
            "soak: {seconds} s, {} requests ({:.0}/s), p99 {:.2} ms, 5xx {server_errors}, socket errors {}, \
             database replaced {replaced} times ({} reloads logged, {maps} database file(s) mapped at the end), \
             private RSS after warm-up {:.1} MiB, at the end {:.1} MiB ({growth:+.1}%)",
            sample.requests,
            sample.requests_per_second,
            sample.p99_ms,
            sample.errors,
            reloads
                .load(std::sync::atomic::Ordering::Relaxed)
                .saturating_sub(1),
            rss_warm as f64 / 1024.0,
            rss_end as f64 / 1024.0,
        );
        ensure!(server_errors == 0, "{server_errors} answers were 5xx");
        ensure!(sample.errors == 0, "{} socket errors", sample.errors);
        // Allocator noise on a baseline of a few MiB is tens of percent; a leak is both.
        let grown_kib = rss_end.saturating_sub(rss_warm);
        ensure!(
            growth < 10.0 || grown_kib < 4096,
            "private RSS grew {growth:.1}% ({grown_kib} KiB) after warm-up"
        );
        ensure!(
            maps == 1,
            "{maps} database maps are alive: replaced maps were not released"
        );
        Ok(())
    })();
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
