//! One measurement: start `bench-server` pinned to core 0, run wrk pinned to core 1, read the
//! server's CPU time and peak RSS from `/proc`.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use anyhow::{Context, bail};

use super::cases::Case;
use crate::process::{cpu_ticks, spawn_server, status_kib, wrk};

/// What one wrk run gave.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    pub requests_per_second: f64,
    pub megabytes_per_second: f64,
    pub p99_ms: f64,
    pub cpu_us_per_request: f64,
    pub peak_rss_mib: f64,
    pub requests: u64,
    pub errors: u64,
}

/// Starts the server pinned to core 0 and returns it with its address.
fn start(case: &Case, db_file: &Path) -> anyhow::Result<(Child, String)> {
    let mut command = Command::new("taskset");
    command
        .args(["-c", "0"])
        .arg(format!("target/release/{}", case.server))
        .args(case.server_args);
    if case.server_args.contains(&"mmap") {
        command.arg("--geodb").arg(db_file);
    }
    spawn_server(&mut command)
}

/// Runs wrk for `seconds` against a fresh server for `case`.
pub fn measure(case: &Case, seconds: u32, db_file: &Path) -> anyhow::Result<Sample> {
    let (mut server, address) = start(case, db_file)?;
    let pid = server.id();
    let ticks = || cpu_ticks(pid);
    let result = (|| {
        let before = ticks()?;
        let mut wrk = wrk(Some(1), case.connections, u64::from(seconds));
        if let Some(accept) = case.accept_encoding {
            wrk.args(["-H", &format!("Accept-Encoding: {accept}")]);
        }
        if case.script {
            wrk.args(["-s", "benches/wrk/geo.lua"]);
        }
        let output = wrk
            .arg(format!("http://{address}{}", case.path))
            .output()
            .context("cannot run wrk")?;
        let after = ticks()?;
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
        sample.peak_rss_mib = status_kib(pid, "VmHWM")? as f64 / 1024.0;
        Ok(sample)
    })();
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = server.wait();
    std::thread::sleep(Duration::from_millis(100));
    result
}

/// A size as wrk prints it (`512.00B`, `1.50KB`, `7.30GB`), in bytes: wrk's units are binary.
/// `None` for anything else, an unknown unit included.
pub fn wrk_bytes(value: &str) -> Option<f64> {
    let (number, unit) = split_unit(value)?;
    let power = ["B", "KB", "MB", "GB", "TB", "PB"]
        .iter()
        .position(|known| *known == unit)?;
    Some(number * 1024f64.powi(power as i32))
}

/// A duration as wrk prints it (`170.00us`, `1.50ms`, `2.00s`, `1.00m`, `1.00h`), in
/// milliseconds. `None` for anything else, an unknown unit included.
pub fn wrk_millis(value: &str) -> Option<f64> {
    let (number, unit) = split_unit(value)?;
    let scale = match unit {
        "us" => 0.001,
        "ms" => 1.0,
        "s" => 1e3,
        "m" => 6e4,
        "h" => 3.6e6,
        _ => return None,
    };
    Some(number * scale)
}

/// A number and the unit right after it: `1.50ms` is `(1.5, "ms")`.
fn split_unit(value: &str) -> Option<(f64, &str)> {
    let (number, unit) = value.split_at(value.find(|c: char| c.is_ascii_alphabetic())?);
    Some((number.parse().ok()?, unit))
}

/// Reads wrk's `--latency` report.
pub fn parse_wrk(text: &str) -> anyhow::Result<Sample> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|line| line.trim().strip_prefix(prefix).map(str::trim))
    };
    let requests_per_second = field("Requests/sec:").context("no Requests/sec")?.parse()?;
    let transfer = field("Transfer/sec:").context("no Transfer/sec")?;
    let megabytes_per_second = wrk_bytes(transfer)
        .with_context(|| format!("Transfer/sec {transfer:?} is not a size"))?
        / f64::from(1 << 20);
    let p99 = field("99%").context("no latency distribution")?;
    let p99_ms =
        wrk_millis(p99).with_context(|| format!("the 99th percentile {p99:?} is not a time"))?;
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

#[cfg(test)]
mod tests {
    use super::{parse_wrk, wrk_bytes, wrk_millis};

    const WRK: &str = "Running 2s test @ http://127.0.0.1:1/x
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   170.00us   50.00us   2.00ms   90.00%
  Latency Distribution
     50%  160.00us
     75%  180.00us
     90%  200.00us
     99%    1.50ms
  100000 requests in 2.00s, 1.00GB read
  Socket errors: connect 0, read 2, write 0, timeout 1
Requests/sec:  50000.00
Transfer/sec:    512.00MB
";

    #[test]
    fn reads_rate_latency_count_and_errors() {
        let sample = parse_wrk(WRK).expect("parses");
        assert_eq!(sample.requests_per_second, 50000.0);
        assert_eq!(sample.megabytes_per_second, 512.0);
        assert_eq!(sample.p99_ms, 1.5);
        assert_eq!(sample.requests, 100_000);
        assert_eq!(sample.errors, 3);
        assert!(parse_wrk("nothing").is_err());
    }

    #[test]
    fn sizes_and_times_are_read_in_wrk_s_units_and_nothing_else() {
        assert_eq!(wrk_bytes("512.00B"), Some(512.0));
        assert_eq!(wrk_bytes("1.50KB"), Some(1536.0));
        assert_eq!(wrk_bytes("2.00TB"), Some(2.0 * 1024f64.powi(4)));
        assert_eq!(wrk_millis("170.00us"), Some(0.17));
        assert_eq!(wrk_millis("2.00s"), Some(2000.0));
        assert_eq!(wrk_millis("1.00m"), Some(60_000.0));
        for bad in ["3.1XB", "12", "ms", "1.2.3ms", ""] {
            assert_eq!(wrk_bytes(bad), None, "{bad}");
            assert_eq!(wrk_millis(bad), None, "{bad}");
        }
        let odd = WRK.replace("512.00MB", "512.00QB");
        let error = parse_wrk(&odd).expect_err("an unknown unit is refused");
        assert!(error.to_string().contains("512.00QB"), "{error}");
    }
}
