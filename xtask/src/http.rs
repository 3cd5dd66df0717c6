//! `cargo xtask bench-http`: wrk against the release bench server on loopback, server and wrk
//! pinned to different cores, configurations interleaved and repeated. Reports req/s, MB/s, p99,
//! server CPU per request (from /proc/<pid>/stat; the fair comparison when one wrk core is the
//! bottleneck) and server peak RSS, as a markdown table, JSON and an SVG chart in target/bench/.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::ci::run_command;

/// Flags of `cargo xtask bench-http`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One round of 2 s per configuration (under a minute); the default is 3 rounds of 10 s.
    #[arg(long)]
    pub quick: bool,
    /// Render the table and chart again from target/bench/http.json, without running anything.
    #[arg(long)]
    pub report: bool,
}

const SERVER: &str = "target/release/bench-server";

struct Case {
    target: &'static str,
    config: &'static str,
    path: &'static str,
    gzip: bool,
    script: bool,
    connections: u32,
    server_args: &'static [&'static str],
}

/// A file case; the 17 MiB file gets few connections (each response is 17 MiB).
const fn case(
    target: &'static str,
    config: &'static str,
    path: &'static str,
    gzip: bool,
    connections: u32,
) -> Case {
    Case {
        target,
        config,
        path,
        gzip,
        script: false,
        connections,
        server_args: &[],
    }
}

const CASES: [Case; 11] = [
    case(
        "vue.min.js",
        "static",
        "/bench/static/web/vue.min.js",
        false,
        16,
    ),
    case(
        "vue.min.js",
        "gzip, client takes gzip",
        "/bench/gzip/web/vue.min.js",
        true,
        16,
    ),
    case(
        "vue.min.js",
        "gzip, decompress per read",
        "/bench/gzip/web/vue.min.js",
        false,
        16,
    ),
    case(
        "vue.min.js",
        "copy",
        "/bench/copy/web/vue.min.js",
        false,
        16,
    ),
    case(
        "17 MiB",
        "static",
        "/bench/static/large/noise.bin",
        false,
        2,
    ),
    case(
        "17 MiB",
        "gzip (stored raw: saves < 5%)",
        "/bench/gzip/large/noise.bin",
        true,
        2,
    ),
    case("17 MiB", "copy", "/bench/copy/large/noise.bin", false, 2),
    geo("DB embed", &["--geodb-mode", "embed"]),
    geo("DB copy", &["--geodb-mode", "copy"]),
    geo("DB mmap", &["--geodb-mode", "mmap"]),
    case(
        "1 KiB text",
        "static",
        "/bench/static/web/small.txt",
        false,
        16,
    ),
];

/// A `/geo/<random ip>` case, addresses from `benches/wrk/geo.lua`.
const fn geo(config: &'static str, server_args: &'static [&'static str]) -> Case {
    Case {
        target: "/geo/<random ip>",
        config,
        path: "/",
        gzip: false,
        script: true,
        connections: 16,
        server_args,
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    pub requests_per_second: f64,
    pub megabytes_per_second: f64,
    pub p99_ms: f64,
    pub cpu_us_per_request: f64,
    pub peak_rss_mib: f64,
    pub requests: u64,
    pub errors: u64,
}

/// Runs every case, interleaved, and reports medians.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.report {
        return report();
    }
    ensure_wrk()?;
    crate::ci::build_release_binary("bindery-benches", "bench-server")?;
    let db_file = crate_db_file()?;
    let (rounds, seconds) = if args.quick { (1, 2) } else { (3, 10) };
    let mut samples: Vec<Vec<Sample>> = CASES.iter().map(|_| Vec::new()).collect();
    for round in 1..=rounds {
        for (index, case) in CASES.iter().enumerate() {
            eprintln!("round {round}/{rounds}: {} / {}", case.target, case.config);
            samples[index].push(measure(case, seconds, &db_file)?);
        }
    }
    let medians: Vec<Sample> = samples.iter().map(|runs| median(runs)).collect();
    let table = table(&medians, rounds, seconds);
    println!("{table}");
    std::fs::create_dir_all("target/bench")?;
    let json: Vec<serde_json::Value> = CASES
        .iter()
        .zip(&samples)
        .map(|(case, runs)| serde_json::json!({ "target": case.target, "config": case.config, "runs": runs }))
        .collect();
    std::fs::write(
        "target/bench/http.json",
        serde_json::to_string_pretty(&json)?,
    )?;
    std::fs::write("target/bench/http.md", &table)?;
    std::fs::write("target/bench/http.svg", chart(&medians))?;
    eprintln!("wrote target/bench/http.{{md,json,svg}}");
    Ok(())
}

/// Re-renders `http.md` and `http.svg` from the runs in `http.json`.
fn report() -> anyhow::Result<()> {
    let text = std::fs::read_to_string("target/bench/http.json")
        .context("no target/bench/http.json: run bench-http first")?;
    let document: serde_json::Value = serde_json::from_str(&text)?;
    let cases = document["cases"]
        .as_array()
        .context("http.json has no cases")?;
    let seconds = document["seconds"].as_u64().unwrap_or(0) as u32;
    let samples: Vec<Vec<Sample>> = cases
        .iter()
        .map(|case| serde_json::from_value(case["runs"].clone()))
        .collect::<Result<_, _>>()?;
    anyhow::ensure!(
        samples.len() == CASES.len(),
        "http.json is from another set of cases"
    );
    let rounds = samples.first().map_or(0, Vec::len) as u32;
    let medians: Vec<Sample> = samples.iter().map(|runs| median(runs)).collect();
    let table = table(&medians, rounds, seconds);
    println!("{table}");
    std::fs::write("target/bench/http.md", &table)?;
    std::fs::write("target/bench/http.svg", chart(&medians))?;
    Ok(())
}

/// Text for SVG: `/geo/<random ip>` must not open an element.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub fn ensure_wrk() -> anyhow::Result<()> {
    if Command::new("wrk").arg("--version").output().is_ok() {
        return Ok(());
    }
    run_command(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "wrk"])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

fn crate_db_file() -> anyhow::Result<std::path::PathBuf> {
    let real = Path::new("assets/geo/GeoLite2-City.mmdb");
    if real.is_file() {
        return Ok(real.to_path_buf());
    }
    bail!("the mmap case needs assets/geo/GeoLite2-City.mmdb: run `cargo xtask geodb` first")
}

/// Starts the server pinned to core 0 and returns it with its address.
fn start(case: &Case, db_file: &Path) -> anyhow::Result<(Child, String)> {
    let mut command = Command::new("taskset");
    command.args(["-c", "0", SERVER]).args(case.server_args);
    if case.server_args.contains(&"mmap") {
        command.arg("--geodb").arg(db_file);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start bench-server")?;
    let stdout = child.stdout.take().context("stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let address = line
        .trim()
        .strip_prefix("listening addr=")
        .context("bench-server did not say where it listens")?
        .to_owned();
    Ok((child, address))
}

fn cpu_ticks(pid: u32) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may hold spaces) start at ") ".
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .context("stat format")?
        .1
        .split_whitespace()
        .collect();
    Ok(fields[11].parse::<u64>()? + fields[12].parse::<u64>()?)
}

fn peak_rss_mib(pid: u32) -> anyhow::Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kilobytes: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    Ok(kilobytes / 1024.0)
}

fn measure(case: &Case, seconds: u32, db_file: &Path) -> anyhow::Result<Sample> {
    let (mut server, address) = start(case, db_file)?;
    let pid = server.id();
    let result = (|| {
        let before = cpu_ticks(pid)?;
        let mut wrk = Command::new("taskset");
        wrk.args(["-c", "1", "wrk", "--latency", "-t1"])
            .arg(format!("-c{}", case.connections))
            .arg(format!("-d{seconds}s"));
        if case.gzip {
            wrk.args(["-H", "Accept-Encoding: gzip"]);
        }
        if case.script {
            wrk.args(["-s", "benches/wrk/geo.lua"]);
        }
        let output = wrk
            .arg(format!("http://{address}{}", case.path))
            .output()
            .context("cannot run wrk")?;
        let after = cpu_ticks(pid)?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            bail!(
                "wrk failed: {text}{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let mut sample = parse_wrk(&text)?;
        let ticks_per_second = 100.0; // USER_HZ on Linux
        sample.cpu_us_per_request =
            (after - before) as f64 / ticks_per_second * 1e6 / sample.requests.max(1) as f64;
        sample.peak_rss_mib = peak_rss_mib(pid)?;
        Ok(sample)
    })();
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = server.wait();
    std::thread::sleep(Duration::from_millis(100));
    result
}

fn with_unit(value: &str) -> f64 {
    let split = value
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().unwrap_or(f64::NAN);
    number
        * match unit {
            "us" => 0.001,
            "ms" => 1.0,
            "s" => 1000.0,
            "KB" => 1.0 / 1024.0,
            "MB" => 1.0,
            "GB" => 1024.0,
            "B" => 1.0 / (1024.0 * 1024.0),
            _ => 1.0,
        }
}

pub fn parse_wrk(text: &str) -> anyhow::Result<Sample> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|line| line.trim().strip_prefix(prefix).map(str::trim))
    };
    let requests_per_second = field("Requests/sec:").context("no Requests/sec")?.parse()?;
    let megabytes_per_second = with_unit(field("Transfer/sec:").context("no Transfer/sec")?);
    let p99_ms = with_unit(field("99%").context("no latency distribution")?);
    let requests = text
        .lines()
        .find_map(|line| {
            line.trim()
                .split_once(" requests in")
                .map(|(count, _)| count.trim().to_owned())
        })
        .context("no request count")?
        .parse()?;
    let socket_errors: u64 = field("Socket errors:")
        .map(|rest| {
            rest.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    Ok(Sample {
        requests_per_second,
        megabytes_per_second,
        p99_ms,
        cpu_us_per_request: 0.0,
        peak_rss_mib: 0.0,
        requests,
        errors: socket_errors,
    })
}

fn median(runs: &[Sample]) -> Sample {
    let pick = |key: fn(&Sample) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(key).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Sample {
        requests_per_second: pick(|sample| sample.requests_per_second),
        megabytes_per_second: pick(|sample| sample.megabytes_per_second),
        p99_ms: pick(|sample| sample.p99_ms),
        cpu_us_per_request: pick(|sample| sample.cpu_us_per_request),
        peak_rss_mib: pick(|sample| sample.peak_rss_mib),
        requests: runs.iter().map(|sample| sample.requests).sum(),
        errors: runs.iter().map(|sample| sample.errors).sum(),
    }
}

fn table(medians: &[Sample], rounds: u32, seconds: u32) -> String {
    let mut out = format!(
        "wrk -t1 on core 1, server on core 0, loopback; median of {rounds} interleaved run(s) of {seconds} s.\n\n\
         | target | configuration | req/s | MB/s | p99 | server CPU / request | vs static (CPU) | peak RSS | socket errors |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for (case, sample) in CASES.iter().zip(medians) {
        let baseline = CASES
            .iter()
            .zip(medians)
            .find(|(other, _)| {
                other.target == case.target
                    && (other.config == "static" || other.config == "DB embed")
            })
            .map(|(_, sample)| sample.cpu_us_per_request);
        let ratio = baseline.map_or_else(
            || "-".to_owned(),
            |base| format!("{:.1}x", sample.cpu_us_per_request / base),
        );
        out.push_str(&format!(
            "| {} | {} | {:.0} | {:.1} | {:.2} ms | {:.1} µs | {ratio} | {:.1} MiB | {} |\n",
            case.target,
            case.config,
            sample.requests_per_second,
            sample.megabytes_per_second,
            sample.p99_ms,
            sample.cpu_us_per_request,
            sample.peak_rss_mib,
            sample.errors,
        ));
    }
    out
}

/// A horizontal bar chart of server CPU per request (log scale: the range spans 1000x).
fn chart(medians: &[Sample]) -> String {
    let row_height = 26.0;
    let height = 50.0 + row_height * medians.len() as f64;
    let max = medians
        .iter()
        .map(|sample| sample.cpu_us_per_request)
        .fold(1.0, f64::max);
    let scale = |value: f64| 20.0 + 460.0 * (value.max(0.1) / 0.1).log10() / (max / 0.1).log10();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 900 {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Server CPU per request (µs, log scale)</text>\n"
    );
    for (index, (case, sample)) in CASES.iter().zip(medians).enumerate() {
        let y = 40.0 + row_height * index as f64;
        let width = scale(sample.cpu_us_per_request) - 20.0;
        let colour = match case.config {
            "static" | "DB embed" => "#0f766e",
            config
                if config.contains("takes gzip")
                    || config.contains("stored raw")
                    || config.contains("mmap") =>
            {
                "#2563eb"
            }
            _ => "#dc2626",
        };
        svg.push_str(&format!(
            "<text x=\"890\" y=\"{:.0}\" text-anchor=\"end\">{} — {}</text>\n<rect x=\"20\" y=\"{:.0}\" width=\"{width:.1}\" height=\"16\" fill=\"{colour}\"/>\n<text x=\"{:.1}\" y=\"{:.0}\">{:.1}</text>\n",
            y + 13.0,
            xml_escape(case.target),
            xml_escape(case.config),
            y,
            width + 26.0,
            y + 13.0,
            sample.cpu_us_per_request
        ));
    }
    svg.push_str("</svg>\n");
    svg
}
