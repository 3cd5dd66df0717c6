//! `cargo xtask bench-stall`: does one large decompression stall the other requests of a
//! one-worker server? A client without gzip fetches a 4 MiB gzip-stored file while another
//! fetches a 1 KiB file; the small requests' p99 is compared between decompression on tokio's
//! blocking pool (bindery's default above 64 KiB) and in place on the async worker. The
//! flood rows replace the large client by 200 connections that each ask `Range: bytes=0-0` of the
//! 4 MiB file, as `xargs -P500 curl -H 'Range: bytes=0-0'` does: bounded, range-limited
//! decompression (a byte each) must leave the small file's p99 where it was.

use std::process::{Command, Stdio};

use anyhow::bail;

use crate::bench_http::{Sample, parse_wrk};
use crate::process::{build_release_binary, ensure_wrk, spawn_server, wrk};

/// Flags of `cargo xtask bench-stall`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds per run (CI-sized runs: 3).
    #[arg(long, default_value_t = 10)]
    pub seconds: u32,
    /// Interleaved rounds; the table shows medians.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
}

const SERVER: &str = "target/release/bench-server";
const SMALL: &str = "/bench/static/web/small.txt";

/// (label, path of the large file, connections of its load, the `Range` they ask for).
const CONFIGS: [(&str, &str, u32, Option<&str>); 4] = [
    (
        "in place (on the async worker)",
        "/bench/gzip-inline/text/records.json",
        2,
        None,
    ),
    (
        "on the blocking pool (default)",
        "/bench/gzip/text/records.json",
        2,
        None,
    ),
    (
        "flood of `bytes=0-0`, in place",
        "/bench/gzip-inline/text/records.json",
        200,
        Some("bytes=0-0"),
    ),
    (
        "flood of `bytes=0-0`, blocking pool (default)",
        "/bench/gzip/text/records.json",
        200,
        Some("bytes=0-0"),
    ),
];

/// Runs every configuration `rounds` times, interleaved, and prints the table.
pub fn run(args: &Args) -> anyhow::Result<()> {
    ensure_wrk()?;
    build_release_binary("bindery-benches", "bench-server")?;
    let mut results: Vec<Vec<(Sample, Sample)>> = CONFIGS.iter().map(|_| Vec::new()).collect();
    for round in 1..=args.rounds {
        for (index, (label, large, connections, range)) in CONFIGS.iter().enumerate() {
            eprintln!("round {round}/{}: {label}", args.rounds);
            results[index].push(measure(large, *connections, *range, args.seconds)?);
        }
    }
    let mut table = format!(
        "One tokio worker (server on core 0), two wrk on core 1 for {} s, median of {} round(s): \
         small = 1 KiB file, 16 connections; large = 4 MiB gzip-stored JSON to a client without \
         gzip, 2 connections (whole file) or 200 (flood: `Range: bytes=0-0`).\n\n\
         | large file decompressed | small req/s | small p99 | large req/s | large p99 |\n\
         | --- | --- | --- | --- | --- |\n",
        args.seconds, args.rounds
    );
    for ((label, ..), runs) in CONFIGS.iter().zip(&results) {
        let small: Vec<Sample> = runs.iter().map(|(small, _)| small.clone()).collect();
        let large: Vec<Sample> = runs.iter().map(|(_, large)| large.clone()).collect();
        let (small, large) = (
            crate::bench_http::median(&small),
            crate::bench_http::median(&large),
        );
        table.push_str(&format!(
            "| {label} | {:.0} | {:.2} ms | {:.0} | {:.2} ms |\n",
            small.requests_per_second, small.p99_ms, large.requests_per_second, large.p99_ms
        ));
    }
    println!("{table}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/stall.md", &table)?;
    Ok(())
}

/// wrk on core 1 against `path`, asking `range` when given, its output captured.
fn load(address: &str, path: &str, connections: u32, range: Option<&str>, seconds: u32) -> Command {
    let mut command = wrk(Some(1), connections, u64::from(seconds));
    if let Some(range) = range {
        command.args(["-H", &format!("Range: {range}")]);
    }
    command
        .arg(format!("http://{address}{path}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// One run: a fresh server, the large and the small load at once; their samples.
fn measure(
    large: &str,
    connections: u32,
    range: Option<&str>,
    seconds: u32,
) -> anyhow::Result<(Sample, Sample)> {
    let (mut server, address) = spawn_server(Command::new("taskset").args(["-c", "0", SERVER]))?;
    let result = (|| {
        let large_load = load(&address, large, connections, range, seconds).spawn()?;
        let small_load = load(&address, SMALL, 16, None, seconds).spawn()?;
        let small = small_load.wait_with_output()?;
        let large = large_load.wait_with_output()?;
        for output in [&small, &large] {
            if !output.status.success() {
                bail!("wrk failed: {}", String::from_utf8_lossy(&output.stderr));
            }
        }
        Ok((
            parse_wrk(&String::from_utf8_lossy(&small.stdout))?,
            parse_wrk(&String::from_utf8_lossy(&large.stdout))?,
        ))
    })();
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
    result
}
