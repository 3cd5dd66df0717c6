//! nginx as the reference: Debian's build, one worker, serving copies of the bench files, in
//! each of the configurations a static-file server is commonly tuned with. The harness runs
//! them all and compares bindery with the cheapest one for each file.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

use super::server::Server;

/// The 17 MiB file as `benches/build.rs` writes it (same length and seed).
pub const LARGE_LEN: usize = 17 * 1024 * 1024;
const LARGE_SEED: u64 = 0x2545_F491_4F6C_DD1D;

/// One configuration tried: its name in the tables and the directives it adds to `http {}`.
pub struct Tuning {
    pub name: &'static str,
    pub directives: &'static str,
}

impl Tuning {
    /// The directives this tuning adds to [`COMMON`].
    pub fn http_block(&self) -> String {
        if self.directives.contains("open_file_cache") {
            format!("{COMMON}\n{}", self.directives)
        } else {
            format!("{COMMON}\n{FILE_CACHE}\n{}", self.directives)
        }
    }
}

/// What every configuration has: no access log (bindery writes none), keep-alive for the whole
/// run, `TCP_NODELAY` (as bindery's listeners set it).
pub const COMMON: &str =
    "access_log off; keepalive_requests 100000000; keepalive_timeout 300s; tcp_nodelay on;";

/// No `open` and `fstat` per request (bindery has no files to open): in every tuning but one.
const FILE_CACHE: &str = "open_file_cache max=64 inactive=600s; open_file_cache_valid 600s;";

/// The standard static-file tunings; each file is compared with whichever is cheapest for it.
pub const TUNINGS: [Tuning; 7] = [
    Tuning {
        name: "sendfile on",
        directives: "sendfile on; tcp_nopush off;",
    },
    Tuning {
        name: "sendfile on, tcp_nopush on",
        directives: "sendfile on; tcp_nopush on;",
    },
    Tuning {
        name: "sendfile on, sendfile_max_chunk 0 (unbounded)",
        directives: "sendfile on; tcp_nopush off; sendfile_max_chunk 0;",
    },
    Tuning {
        name: "sendfile on, sendfile_max_chunk 512k",
        directives: "sendfile on; tcp_nopush off; sendfile_max_chunk 512k;",
    },
    Tuning {
        name: "sendfile off, output_buffers 2 32k (default)",
        directives: "sendfile off;",
    },
    Tuning {
        name: "sendfile off, output_buffers 1 1m",
        directives: "sendfile off; output_buffers 1 1m;",
    },
    Tuning {
        name: "sendfile on, no open_file_cache",
        directives: "sendfile on; tcp_nopush off; open_file_cache off;",
    },
];

/// Where nginx's files and configurations live for the run.
fn dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::current_dir()?.join("target/bench/nginx");
    std::fs::create_dir_all(&dir)?;
    Ok(std::fs::canonicalize(dir)?)
}

/// The document root: small.txt, vue.min.js and the 17 MiB file, written once.
fn root(dir: &Path) -> anyhow::Result<PathBuf> {
    let root = dir.join("root");
    std::fs::create_dir_all(&root)?;
    for name in ["small.txt", "vue.min.js"] {
        let bytes = std::fs::read(Path::new("benches/assets/web").join(name))?;
        if std::fs::read(root.join(name)).ok() != Some(bytes.clone()) {
            std::fs::write(root.join(name), &bytes)?;
        }
    }
    let large = root.join("noise.bin");
    if std::fs::metadata(&large).map(|meta| meta.len()).ok() != Some(LARGE_LEN as u64) {
        std::fs::write(&large, bindery_test_support::noise(LARGE_LEN, LARGE_SEED))?;
    }
    Ok(root)
}

/// The whole configuration file of one tuning: `/small.txt`, `/vue.min.js` and `/noise.bin`
/// on `port`.
pub fn config(tuning: &Tuning, dir: &Path, root: &Path, port: u16) -> String {
    let (dir, root) = (dir.display(), root.display());
    format!(
        "user root;\nworker_processes 1;\ndaemon off;\npid {dir}/nginx-{port}.pid;\n\
         error_log {dir}/error-{port}.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n{}\n\
         types {{ text/plain txt; text/javascript js; application/octet-stream bin; }}\n\
         server {{ listen 127.0.0.1:{port}; root {root}; }}\n}}\n",
        tuning.http_block()
    )
}

/// The folder nginx serves (written once), which the peers serve too.
pub fn document_root() -> anyhow::Result<PathBuf> {
    Ok(std::fs::canonicalize(root(&dir()?)?)?)
}

/// One nginx per tuning, pinned to core 0 (master and worker), each on its own port.
pub fn start(tuning: &'static Tuning) -> anyhow::Result<Server> {
    crate::process::apt_install(&[("nginx", "/usr/sbin/nginx")])?;
    let dir = dir()?;
    let root = document_root()?;
    let port = bindery_test_support::free_port();
    let conf = dir.join(format!("nginx-{port}.conf"));
    std::fs::write(&conf, config(tuning, &dir, &root, port))?;
    let mut command = Command::new("taskset");
    command
        .args(["-c", "0", "/usr/sbin/nginx", "-c"])
        .arg(&conf)
        .arg("-p")
        .arg(&dir);
    Server::start_listening(
        format!("nginx, {}", tuning.name),
        &mut command,
        std::net::SocketAddr::from(([127, 0, 0, 1], port)),
    )
    .with_context(|| {
        std::fs::read_to_string(dir.join(format!("error-{port}.log"))).unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::{TUNINGS, config};

    /// nginx refuses a configuration with a directive twice (`open_file_cache` was, once):
    /// every tuning must start, or the harness stops half way through a long run.
    #[test]
    fn nginx_accepts_every_tuning() {
        if !bindery_test_support::slow_test("xtask", "nginx_accepts_every_tuning", "nginx") {
            return;
        }
        let dir = tempfile::tempdir().expect("temporary folder");
        for tuning in &TUNINGS {
            let conf = dir.path().join("nginx.conf");
            std::fs::write(&conf, config(tuning, dir.path(), dir.path(), 8080)).expect("write");
            let output = std::process::Command::new("/usr/sbin/nginx")
                .arg("-t")
                .arg("-c")
                .arg(&conf)
                .arg("-p")
                .arg(dir.path())
                .output()
                .expect("nginx (apt-get install nginx)");
            assert!(
                output.status.success(),
                "{}: {}",
                tuning.name,
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}
