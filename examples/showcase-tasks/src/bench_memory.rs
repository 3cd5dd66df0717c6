//! `cargo xtask bench-memory`: the memory table (one process per GeoIP database mode) and, with
//! `--limit`, the memory-limit run: each mode inside a memory cgroup that fits the file-backed
//! modes but not the heap copy.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Flags of `cargo xtask bench-memory`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Lookups of pseudo-random addresses per mode.
    #[arg(long, default_value_t = 100_000)]
    pub lookups: u32,
    /// Also run each mode under a memory cgroup of this many MiB (cgroup v1, as root).
    #[arg(long, value_name = "MIB")]
    pub limit: Option<u64>,
    /// Seconds a limited run may take before it is called stalled and killed.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
}

const MODES: [&str; 3] = ["embed", "copy", "mmap"];
const BINARY: &str = "target/release/geo-memory";

/// Runs the table and, when asked, the limited runs; writes `target/bench/memory.json`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    crate::process::build_release_binary("bindery-benches", "geo-memory")?;
    let db_file = database_file()?;
    let lookups = args.lookups.to_string();
    let mut rows = Vec::new();
    for mode in MODES {
        let output = Command::new(BINARY)
            .args(["--mode", mode, "--lookups", &lookups, "--db"])
            .arg(&db_file)
            .output()
            .with_context(|| format!("cannot run {BINARY}"))?;
        if !output.status.success() {
            bail!(
                "geo-memory --mode {mode} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        rows.push(serde_json::from_slice::<serde_json::Value>(&output.stdout)?);
    }
    print_table(&rows);
    let mut report = serde_json::json!({ "modes": rows });
    if let Some(limit) = args.limit {
        report["limit_mib"] = limit.into();
        report["limited"] = serde_json::Value::Array(limited_runs(args, limit, &db_file)?);
    }
    std::fs::create_dir_all("target/bench")?;
    std::fs::write(
        "target/bench/memory.json",
        serde_json::to_string_pretty(&report)?,
    )?;
    eprintln!("wrote target/bench/memory.json");
    Ok(())
}

/// The database as a file for the mmap mode: GeoLite2 when fetched, else the embedded sample.
fn database_file() -> anyhow::Result<PathBuf> {
    if let Some(real) = crate::process::geolite2() {
        return Ok(real);
    }
    eprintln!(
        "note: assets/geo/GeoLite2-City.mmdb is missing (cargo xtask geodb); measuring the sample"
    );
    let path = PathBuf::from("target/bench/sample-city.mmdb");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write(&path, geodb_sample()?)?;
    Ok(path)
}

fn geodb_sample() -> anyhow::Result<Vec<u8>> {
    // geodb builds the sample in its OUT_DIR; find the newest one.
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir("target/release/build")
        .into_iter()
        .flatten()
        .flatten()
    {
        let candidate = entry.path().join("out/sample-city.mmdb");
        if let Ok(modified) = std::fs::metadata(&candidate).and_then(|meta| meta.modified())
            && newest.as_ref().is_none_or(|(time, _)| modified > *time)
        {
            newest = Some((modified, candidate));
        }
    }
    let (_, path) = newest.context("no sample database built; build geodb first")?;
    Ok(std::fs::read(path)?)
}

fn number(row: &serde_json::Value, key: &str) -> f64 {
    row[key].as_f64().unwrap_or(f64::NAN)
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

fn print_table(rows: &[serde_json::Value]) {
    let first = &rows[0];
    println!(
        "Database: {} ({} B), {} lookups per mode, one process per mode.\n",
        first["database"].as_str().unwrap_or("?"),
        first["size"],
        first["lookups"]
    );
    println!(
        "| mode | DB loading path | retained heap after reader creation | reader creation (median) | RSS anon / file after creation | RSS anon / file after lookups | results hash |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for row in rows {
        let path = match row["mode"].as_str() {
            Some("embed") => "`&'static [u8]` from `include_bytes!` -> `Reader::from_source`",
            Some("copy") => "embedded bytes -> `to_vec()` -> `Reader::from_source`",
            _ => "file -> `Reader::open_mmap`",
        };
        println!(
            "| {} | {path} | {} B | {:.3} ms | {} / {} | {} / {} | `{}` |",
            row["mode"].as_str().unwrap_or("?"),
            row["heap_retained"],
            number(row, "creation_median_ms"),
            mib(number(row, "rss_anon_after_creation")),
            mib(number(row, "rss_file_after_creation")),
            mib(number(row, "rss_anon_after_lookups")),
            mib(number(row, "rss_file_after_lookups")),
            row["results_hash"].as_str().unwrap_or("?"),
        );
    }
    let hashes: Vec<&str> = rows
        .iter()
        .filter_map(|row| row["results_hash"].as_str())
        .collect();
    let all_equal = hashes.windows(2).all(|pair| pair[0] == pair[1]);
    println!(
        "\nLookup results identical in every mode: {}",
        if all_equal { "yes" } else { "NO" }
    );
}

/// Runs each mode under a child memory cgroup, reporting survived, killed or stalled.
fn limited_runs(
    args: &Args,
    limit_mib: u64,
    db_file: &Path,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let parent = match own_memory_cgroup() {
        Ok(parent) => parent,
        Err(reason) => {
            println!("\nMemory-limit run skipped: {reason}");
            return Ok(Vec::new());
        }
    };
    println!(
        "\nUnder a {limit_mib} MiB memory cgroup (v1, {}), {} lookups, {} s timeout:\n",
        parent.display(),
        args.lookups,
        args.timeout
    );
    println!("| mode | outcome | peak usage | major faults | time |");
    println!("| --- | --- | --- | --- | --- |");
    let mut results = Vec::new();
    for mode in MODES {
        let group = parent.join(format!("bindery-limit-{}-{mode}", std::process::id()));
        std::fs::create_dir(&group)
            .with_context(|| format!("cannot create {}", group.display()))?;
        let outcome = run_limited(&group, mode, limit_mib, args, db_file);
        let _ = std::fs::remove_dir(&group);
        let (outcome, peak, faults, seconds) = outcome?;
        println!(
            "| {mode} | {outcome} | {} | {faults} | {seconds:.1} s |",
            mib(peak as f64)
        );
        results.push(serde_json::json!({ "mode": mode, "outcome": outcome, "peak_bytes": peak, "major_faults": faults, "seconds": seconds }));
    }
    Ok(results)
}

fn own_memory_cgroup() -> Result<PathBuf, String> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|error| format!("cannot read /proc/self/cgroup: {error}"))?;
    let relative = cgroups
        .lines()
        .find_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            controllers
                .split(',')
                .any(|name| name == "memory")
                .then(|| path.to_owned())
        })
        .ok_or("no cgroup v1 memory controller for this process")?;
    let parent = Path::new("/sys/fs/cgroup/memory").join(relative.trim_start_matches('/'));
    if !parent.join("memory.limit_in_bytes").is_file() {
        return Err(format!("{} is not a memory cgroup", parent.display()));
    }
    Ok(parent)
}

fn run_limited(
    group: &Path,
    mode: &str,
    limit_mib: u64,
    args: &Args,
    db_file: &Path,
) -> anyhow::Result<(String, u64, u64, f64)> {
    std::fs::write(
        group.join("memory.limit_in_bytes"),
        (limit_mib * 1024 * 1024).to_string(),
    )?;
    let procs = group.join("cgroup.procs");
    let started = Instant::now();
    // The shell joins the group, then becomes the measured binary: nothing runs outside it.
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("echo $$ > \"$0\" && exec \"$@\"")
        .arg(&procs)
        .args([
            BINARY,
            "--mode",
            mode,
            "--lookups",
            &args.lookups.to_string(),
            "--creations",
            "1",
            "--db",
        ])
        .arg(db_file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let deadline = started + Duration::from_secs(args.timeout);
    let outcome = loop {
        if let Some(status) = child.try_wait()? {
            break match status.code() {
                Some(0) => "survived".to_owned(),
                Some(code) => format!("failed (exit {code})"),
                None => "killed (OOM)".to_owned(),
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break format!("stalled (no progress in {} s, killed)", args.timeout);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let seconds = started.elapsed().as_secs_f64();
    let peak = std::fs::read_to_string(group.join("memory.max_usage_in_bytes"))?
        .trim()
        .parse()
        .unwrap_or(0);
    let stat = std::fs::read_to_string(group.join("memory.stat"))?;
    let faults = stat
        .lines()
        .find_map(|line| line.strip_prefix("pgmajfault "))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    Ok((outcome, peak, faults, seconds))
}
