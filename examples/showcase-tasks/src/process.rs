//! Running things and reading processes, for the showcase's tasks: release builds, wrk,
//! servers started and waited for, `/proc` figures, and where the real GeoLite2 database is.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, bail};

pub use bindery_test_support::commands::{apt_install, cargo, run_command};

/// Where `cargo xtask geodb` installs the real database (git-ignored).
pub const GEOLITE2: &str = "assets/geo/GeoLite2-City.mmdb";

/// The real GeoLite2 City database when `cargo xtask geodb` has fetched it.
pub fn geolite2() -> Option<PathBuf> {
    let path = PathBuf::from(GEOLITE2);
    path.is_file().then_some(path)
}

/// Builds one binary of a package in release mode, quietly.
pub fn build_release_binary(package: &str, binary: &str) -> anyhow::Result<()> {
    cargo(&[
        "build",
        "--release",
        "--quiet",
        "--package",
        package,
        "--bin",
        binary,
    ])
}

/// Builds geo-server, the debug build for a quick run (what CI's other steps already built) or
/// the release one, and returns its path under `target/`.
pub fn build_geo_server(quick: bool) -> anyhow::Result<std::path::PathBuf> {
    let profile = if quick {
        cargo(&["build", "--quiet", "--package", "geo-server"])?;
        "debug"
    } else {
        build_release_binary("geo-server", "geo-server")?;
        "release"
    };
    Ok(std::path::Path::new("target")
        .join(profile)
        .join("geo-server"))
}

/// `wrk --latency -t1 -c<connections> -d<seconds>s`, pinned to `core` with taskset when given
/// (servers run on core 0, load on core 1); the caller adds headers, a script and the URL.
pub fn wrk(core: Option<u32>, connections: u32, seconds: u64) -> Command {
    let mut command = match core {
        Some(core) => {
            let mut taskset = Command::new("taskset");
            taskset.args(["-c", &core.to_string(), "wrk"]);
            taskset
        }
        None => Command::new("wrk"),
    };
    command
        .args(["--latency", "-t1"])
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"));
    command
}

/// wrk from Debian, for the load tasks.
pub fn ensure_wrk() -> anyhow::Result<()> {
    apt_install(&[("wrk", "/usr/bin/wrk")])
}

/// Waits up to ten seconds for a server just started (nginx, which says nothing when it is up)
/// to accept connections at `address`.
pub fn wait_until_listening(address: std::net::SocketAddr) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(address).is_err() {
        anyhow::ensure!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "nothing listens on {address} after 10 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Ok(())
}

/// Starts a server that logs `addr=<address>` on stdout when it listens (geo-server,
/// bench-server), and returns it with that address. Its stdout is read up to that line; the
/// rest is left unread.
pub fn spawn_server(command: &mut Command) -> anyhow::Result<(std::process::Child, String)> {
    use std::io::BufRead;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", command.get_program().to_string_lossy()))?;
    let stdout = child.stdout.take().context("stdout")?;
    let address = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            line.split_whitespace()
                .find_map(|word| word.strip_prefix("addr=").map(str::to_owned))
        });
    match address {
        Some(address) => Ok((child, address)),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "{} did not say where it listens",
                command.get_program().to_string_lossy()
            )
        }
    }
}

/// User plus system CPU time of a process, in clock ticks (USER_HZ, 100 per second on Linux).
pub fn cpu_ticks(pid: u32) -> anyhow::Result<u64> {
    stat_ticks(&format!("/proc/{pid}/stat"), 11)
}

/// The sum of the two tick fields of a `stat` file at `first` and the one after it, counted
/// from the field after the command name (which may hold spaces, so parsing starts at ") ").
fn stat_ticks(path: &str, first: usize) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(path)?;
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .context("stat format")?
        .1
        .split_whitespace()
        .collect();
    let field = |index: usize| -> anyhow::Result<u64> {
        Ok(fields.get(index).context("stat format")?.parse::<u64>()?)
    };
    Ok(field(first)? + field(first + 1)?)
}

/// User plus system CPU seconds of every child this process has waited for, and of theirs
/// (`/proc/self/stat`'s `cutime` and `cstime`, at USER_HZ 100): the difference around a
/// command is what it cost.
pub fn children_cpu_seconds() -> anyhow::Result<f64> {
    Ok(stat_ticks("/proc/self/stat", 13)? as f64 / 100.0)
}

/// A `kB` field of `/proc/<pid>/status` (`VmHWM`, `RssAnon`, ...), in KiB.
pub fn status_kib(pid: u32, field: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status_field_kib(&status, field).with_context(|| format!("in /proc/{pid}/status"))
}

/// One `kB` field (`VmRSS`, `RssAnon`, …) of a `/proc/PID/status` text already read.
pub fn status_field_kib(status: &str, field: &str) -> anyhow::Result<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .with_context(|| format!("no {field} field"))
}
