//! The geo-server the soak runs against: started on loopback with short deadlines, a
//! mapped database, an admin listener; its reloads counted from its log; its memory read in one
//! settled state; stopped with SIGTERM.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};

use super::report::Measure;
use super::{CAP, HEADER_TIMEOUT, IDLE_TIMEOUT, PER_CLIENT};
use crate::process::status_field_kib;

/// The running server.
pub struct Server {
    child: Child,
    pub pid: u32,
    pub address: SocketAddr,
    pub admin: SocketAddr,
    /// Reloads the server logged, and reloads it refused.
    pub reloads: Arc<AtomicU32>,
    pub refusals: Arc<AtomicU32>,
}

impl Server {
    /// Starts the geo-server `binary` on core 0, mapping `live`.
    pub fn start(binary: &Path, live: &Path) -> anyhow::Result<Server> {
        let admin: SocketAddr =
            format!("127.0.0.1:{}", bindery_test_support::free_port()).parse()?;
        let mut child = Command::new("taskset")
            .args(["-c", "0"])
            .arg(binary)
            .args(["--addr", "127.0.0.1:0"])
            .args([
                "--admin-addr",
                &admin.to_string(),
                "--trust-proxy",
                "10.0.0.0/8",
            ])
            .args(["--header-read-timeout", &HEADER_TIMEOUT.to_string()])
            .args(["--idle-timeout", &IDLE_TIMEOUT.to_string()])
            .args(["--max-connections", &CAP.to_string()])
            .args(["--max-connections-per-client", &PER_CLIENT.to_string()])
            .args(["--geodb-mode", "mmap", "--reload-poll", "1", "--geodb"])
            .arg(live)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start geo-server")?;
        let pid = child.id();
        let mut lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
        let address = loop {
            let line = lines.next().context("geo-server exited")??;
            if line.contains("admin listening") {
                continue;
            }
            if let Some((_, rest)) = line.split_once(" listening addr=") {
                break rest.split_whitespace().next().unwrap_or_default().parse()?;
            }
        };
        let reloads = Arc::new(AtomicU32::new(0));
        let refusals = Arc::new(AtomicU32::new(0));
        let (counter, refused) = (Arc::clone(&reloads), Arc::clone(&refusals));
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if line.contains("database reloaded") {
                    counter.fetch_add(1, Ordering::Relaxed);
                } else if line.contains("reload refused") {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        Ok(Server {
            child,
            pid,
            address,
            admin,
            reloads,
            refusals,
        })
    }

    /// The admin listener's `/metrics`.
    pub fn metrics(&self) -> anyhow::Result<String> {
        let reply =
            bindery_test_support::try_raw_request(self.admin, None, "GET", "/metrics", &[])?;
        ensure!(reply.status == 200, "/metrics answered {}", reply.status);
        Ok(reply.text())
    }

    /// A sample of `/metrics`.
    pub fn metric(&self, name: &str, labels: &[(&str, &str)]) -> anyhow::Result<f64> {
        bindery_test_support::metric(&self.metrics()?, name, labels)
            .with_context(|| format!("no {name} {labels:?} in /metrics"))
    }

    /// Sends SIGHUP: reload the database file now.
    pub fn reload(&self) -> anyhow::Result<()> {
        let status = Command::new("kill")
            .args(["-HUP", &self.pid.to_string()])
            .status()?;
        ensure!(status.success(), "kill -HUP failed");
        Ok(())
    }

    /// The memory in one settled state after `after_s` seconds of load, measured the same way
    /// after each stretch: the load and the clients stopped, the last swap's reload landed,
    /// then a SIGHUP reload of the same file, which empties the answer cache (and gives its
    /// memory back), so what remains is what the server holds besides the cache.
    /// RSS less the cache's bytes and less the resident pages of the mapped database (`dir`'s
    /// unnamed files, memfds: the swaps every few seconds make them come and go, and they are
    /// the database, not what a client holds); private RSS (`RssAnon`: heap, stacks) less the
    /// cache; the heap the server's allocator counts as in use less the cache.
    /// The process's `/proc/PID/smaps` at that moment and `status` are kept as
    /// `target/bench/soak-smaps-{after_s}.txt` and `soak-status-{after_s}.txt`,
    /// so that a change can be read by mapping.
    pub fn settled(&self, after_s: u64, dir: &Path) -> anyhow::Result<Measure> {
        std::thread::sleep(Duration::from_secs(3));
        let landed =
            || self.reloads.load(Ordering::Relaxed) + self.refusals.load(Ordering::Relaxed);
        let before = landed();
        self.reload()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        while landed() == before {
            ensure!(
                Instant::now() < deadline,
                "the settling reload never landed"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_secs(1));
        let metrics = self.metrics()?;
        let read = |name| {
            bindery_test_support::metric(&metrics, name, &[]).with_context(|| format!("no {name}"))
        };
        let cache_kib = read("geo_answer_cache_bytes")? / 1024.0;
        let heap_kib = read("geo_heap_in_use_bytes")? / 1024.0 - cache_kib;
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid))?;
        let smaps = std::fs::read_to_string(format!("/proc/{}/smaps", self.pid))?;
        let database_kib = database_rss_kib(&smaps, dir);
        std::fs::create_dir_all("target/bench")?;
        std::fs::write(format!("target/bench/soak-smaps-{after_s}.txt"), &smaps)?;
        std::fs::write(format!("target/bench/soak-status-{after_s}.txt"), &status)?;
        Ok(Measure {
            after_s,
            rss_kib: status_field_kib(&status, "VmRSS")? as f64 - database_kib - cache_kib,
            private_kib: status_field_kib(&status, "RssAnon")? as f64 - cache_kib,
            heap_kib,
        })
    }

    /// How many distinct private copies of the database are mapped (unnamed files in `dir`, or
    /// memfds): 1 when every replaced one was released after its reload.
    pub fn mapped_databases(&self, dir: &Path) -> anyhow::Result<usize> {
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", self.pid))?;
        let mut inodes: Vec<&str> = maps
            .lines()
            .filter(|line| is_database(line, dir))
            .filter_map(|line| line.split_whitespace().nth(4))
            .collect();
        inodes.sort_unstable();
        inodes.dedup();
        Ok(inodes.len())
    }

    /// SIGTERM, then waits: whether it shut down cleanly.
    pub fn stop(mut self) -> anyhow::Result<()> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status();
        let status = self.child.wait()?;
        ensure!(
            status.success(),
            "geo-server did not shut down cleanly: {status}"
        );
        Ok(())
    }
}

/// Whether a line of `/proc/PID/maps` (or a mapping's first line in `smaps`) maps a copy of the
/// database: a file in the soak's folder `dir` (an unnamed file shows as `dir/#inode`), or the
/// server's memfd.
fn is_database(line: &str, dir: &Path) -> bool {
    line.contains("memfd:geo-server-database")
        || line
            .split_whitespace()
            .nth(5)
            .is_some_and(|path| Path::new(path).starts_with(dir))
}

/// The resident KiB of every mapping of the database in a `/proc/PID/smaps` text.
fn database_rss_kib(smaps: &str, dir: &Path) -> f64 {
    let mut database = false;
    let mut kib = 0;
    for line in smaps.lines() {
        if let Some(rss) = line.strip_prefix("Rss:") {
            if database {
                kib += rss
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .unwrap_or(0);
            }
        } else if line
            .split_whitespace()
            .next()
            .is_some_and(|range| range.contains('-'))
        {
            database = is_database(line, dir);
        }
    }
    kib as f64
}
