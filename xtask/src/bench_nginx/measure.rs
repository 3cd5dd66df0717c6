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
}

impl Load {
    /// `path` over [`CONNECTIONS`](super::CONNECTIONS) connections, no script.
    pub const fn path(path: &'static str) -> Load {
        Load {
            path,
            connections: super::CONNECTIONS,
            script: None,
        }
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
    let requests = sample.requests.max(1) as f64;
    let non_2xx = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .and_then(|count| count.trim().parse::<u64>().ok())
        .unwrap_or(0);
    Ok(Run {
        requests_per_second: sample.requests_per_second,
        // USER_HZ is 100 on Linux.
        cpu_us_per_request: ticks as f64 * 10_000.0 / requests,
        switches_per_request: switches as f64 / requests,
        p99_ms: sample.p99_ms,
        requests: sample.requests,
        errors: sample.errors,
        non_2xx,
    })
}
