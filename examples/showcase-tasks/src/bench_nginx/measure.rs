//! One run: wrk pinned to core 1 against a persistent server on core 0, the server's CPU time
//! and context switches read from `/proc` before and after; or two such runs at once, one per
//! server, so that both see the same machine.

use anyhow::{Context, bail};

use super::server::Server;
use crate::process::wrk;

/// What wrk asks for.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub path: &'static str,
    pub connections: u32,
    /// A wrk script that makes each request (`/geo/<random ip>`).
    pub script: Option<&'static str>,
    /// Count responses by the bytes wrk read over this body length, not by the requests it
    /// finished: a run of a 17 MiB file finishes a few hundred, and the CPU of the fifty still
    /// in flight at the end would otherwise be spread over them.
    pub body_len: Option<u64>,
}

impl Load {
    /// `path` over [`CONNECTIONS`](super::CONNECTIONS) connections, no script.
    pub const fn path(path: &'static str) -> Load {
        Load {
            path,
            connections: super::CONNECTIONS,
            script: None,
            body_len: None,
        }
    }

    /// This load with responses counted by bytes read ([`Load::body_len`]).
    pub const fn by_bytes(self, body_len: Option<u64>) -> Load {
        Load { body_len, ..self }
    }
}

/// What one run gave.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Run {
    pub requests_per_second: f64,
    pub cpu_us_per_request: f64,
    pub switches_per_request: f64,
    pub p99_ms: f64,
    pub requests: u64,
    /// Socket errors and timeouts.
    pub errors: u64,
    /// Answers other than 2xx and 3xx (for `/geo`, addresses the database does not hold).
    pub non_2xx: u64,
}

/// Two runs at the same time, each wrk against its own server: both servers share core 0
/// (and each gets its half of it), both clients core 1, for the same seconds, so that whatever
/// else loads the machine then loads both alike. CPU per request compares across the pair
/// however much the machine's speed drifts between pairs.
pub fn run_together(
    first: (&Server, Load),
    second: (&Server, Load),
    seconds: u32,
) -> anyhow::Result<(Run, Run)> {
    std::thread::scope(|scope| {
        let other = scope.spawn(|| run(second.0, second.1, seconds));
        let mine = run(first.0, first.1, seconds);
        let other = other
            .join()
            .map_err(|_| anyhow::anyhow!("the second run panicked"))?;
        Ok((mine?, other?))
    })
}

/// Runs wrk for `seconds` against `server`.
pub fn run(server: &Server, load: Load, seconds: u32) -> anyhow::Result<Run> {
    let ticks_before = server.cpu_ticks()?;
    let switches_before = server.context_switches();
    let mut command = wrk(Some(1), load.connections, u64::from(seconds));
    if let Some(script) = load.script {
        command.args(["-s", script]);
    }
    let output = command
        .arg(format!("http://{}{}", server.address, load.path))
        .output()
        .context("cannot run wrk")?;
    let ticks = server.cpu_ticks()? - ticks_before;
    let switches = server.context_switches() - switches_before;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk against {} failed: {text}{}",
            server.label,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let sample = crate::bench_http::parse_wrk(&text)?;
    let responses = match load.body_len {
        Some(len) => bytes_read(&text).context("wrk said no bytes read")? / len as f64,
        None => sample.requests as f64,
    };
    let responses = responses.max(1.0);
    let non_2xx = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .and_then(|count| count.trim().parse::<u64>().ok())
        .unwrap_or(0);
    Ok(Run {
        requests_per_second: sample.requests_per_second,
        // USER_HZ is 100 on Linux.
        cpu_us_per_request: ticks as f64 * 10_000.0 / responses,
        switches_per_request: switches as f64 / responses,
        p99_ms: sample.p99_ms,
        requests: sample.requests,
        errors: sample.errors,
        non_2xx,
    })
}

/// The bytes wrk read in all, partial responses included, from its line
/// `440 requests in 5.01s, 7.30GB read`.
fn bytes_read(text: &str) -> Option<f64> {
    let line = text.lines().find(|line| line.contains(" requests in "))?;
    let read = line.trim().rsplit_once(", ")?.1.strip_suffix(" read")?;
    crate::bench_http::measure::wrk_bytes(read)
}

#[cfg(test)]
mod tests {
    use super::bytes_read;

    #[test]
    fn the_bytes_read_are_taken_from_wrk_s_summary_in_binary_units() {
        let text = "Running 5s test @ http://127.0.0.1:1/noise.bin\n  440 requests in 5.01s, 7.30GB read\n";
        let bytes = bytes_read(text).expect("bytes");
        assert!((bytes - 7.30 * 1024f64.powi(3)).abs() < 1.0, "{bytes}");
        assert_eq!(
            bytes_read("  9 requests in 1.00s, 512B read\n"),
            Some(512.0)
        );
        assert_eq!(bytes_read("  9 requests in 1.00s, 3.1XB read\n"), None);
        assert_eq!(bytes_read("no summary\n"), None);
    }
}
