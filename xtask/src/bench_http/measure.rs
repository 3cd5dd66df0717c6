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

/// Reads wrk's `--latency` report.
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

#[cfg(test)]
mod tests {
    use super::parse_wrk;

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
}
