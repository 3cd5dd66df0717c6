//! The other ways users serve files, in the same harness as bindery (`--peers`): the Rust
//! crates of `benches/peers` (rust-embed 8.13 with axum-embed, tower-http 0.7's `ServeDir` from
//! disk, memory-serve 2), static-web-server from crates.io, and Debian's h2o and Caddy. Each
//! serves nginx's document root at nginx's paths, pinned to core 0 like every server here, with
//! one worker thread (the tokio peers and static-web-server size their runtime by the cores
//! they may run on, which is one; h2o is told `num-threads: 1`; Go sizes Caddy by the same
//! affinity).
//!
//! The crates are built by the harness, not by the workspace: `benches/peers` is a crate of its
//! own with its own lock file, built into `target/bench/peers` with `PEERS_ROOT` naming the
//! folder the embedding peers embed, so that their dependencies (axum 0.7 beside 0.8, brotli at
//! build time) cost the workspace's build and CI nothing.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use super::server::Server;

/// A server that is not one of bindery's bench binaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// A binary of `benches/peers`, by name.
    Crate(&'static str),
    /// static-web-server, installed from crates.io at [`STATIC_WEB_SERVER`].
    StaticWebServer,
    /// Debian's h2o, one thread.
    H2o,
    /// Debian's Caddy, `file_server`.
    Caddy,
}

/// The static-web-server release the figures were measured with.
pub const STATIC_WEB_SERVER: &str = "2.44.1";

/// Debian's packages for the servers written in other languages, and the file each installs.
const PACKAGES: [(&str, &str); 2] = [("h2o", "/usr/bin/h2o"), ("caddy", "/usr/bin/caddy")];

/// What [`build`] made: where each peer's executable is, and the folder they serve.
pub struct Built {
    root: PathBuf,
    crates: PathBuf,
    static_web_server: PathBuf,
    /// Where h2o's and Caddy's configurations are written.
    configs: PathBuf,
    /// Why h2o and Caddy are not there, when they could not be installed.
    missing_packages: Option<String>,
}

impl Built {
    /// Whether `peer` can run here; when not, why.
    pub fn unavailable(&self, peer: Peer) -> Option<&str> {
        match peer {
            Peer::H2o | Peer::Caddy => self.missing_packages.as_deref(),
            Peer::Crate(_) | Peer::StaticWebServer => None,
        }
    }
}

/// Builds `benches/peers` (its lock file, release profile) embedding `root`, installs
/// static-web-server [`STATIC_WEB_SERVER`] (cargo skips it when that version is there), and
/// h2o and Caddy from Debian when this runs as root.
pub fn build(root: &Path) -> anyhow::Result<Built> {
    let workspace = std::env::current_dir()?;
    let out = workspace.join("target/bench/peers");
    let target = out.join("target");
    let status = crate::bench_cold::user_cargo(&workspace.join("benches/peers"), Some(&target))
        .env("PEERS_ROOT", root)
        .args(["build", "--release", "--locked"])
        .status()
        .context("cannot run cargo build for benches/peers")?;
    if !status.success() {
        bail!("benches/peers did not build");
    }
    let installed = out.join("static-web-server");
    let status = crate::bench_cold::user_cargo(&workspace, None)
        .args(["install", "static-web-server", "--locked", "--version"])
        .arg(STATIC_WEB_SERVER)
        .arg("--root")
        .arg(&installed)
        .status()
        .context("cannot run cargo install static-web-server")?;
    if !status.success() {
        bail!("static-web-server {STATIC_WEB_SERVER} did not install");
    }
    let missing_packages = crate::process::apt_install(&PACKAGES)
        .err()
        .map(|error| format!("{error:#}"));
    if let Some(why) = &missing_packages {
        eprintln!("bench-nginx: h2o and Caddy are left out: {why}");
    }
    Ok(Built {
        root: root.to_owned(),
        crates: target.join("release"),
        static_web_server: installed.join("bin/static-web-server"),
        configs: out,
        missing_packages,
    })
}

/// Starts `peer` pinned to core 0, serving [`Built`]'s folder on a port of its own.
pub fn start(peer: Peer, built: &Built, label: &str) -> anyhow::Result<Server> {
    if let Some(why) = built.unavailable(peer) {
        bail!("{label} is not installed: {why}");
    }
    let port = bindery_test_support::free_port();
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let mut command = Command::new("taskset");
    command.args(["-c", "0"]);
    match peer {
        Peer::Crate(binary) => {
            command
                .arg(built.crates.join(binary))
                .arg(port.to_string())
                .arg(&built.root);
            return Server::start(label.to_owned(), &mut command);
        }
        Peer::StaticWebServer => {
            command
                .arg(&built.static_web_server)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .arg("--root")
                .arg(&built.root)
                .args(["--log-level", "error"]);
        }
        Peer::H2o => {
            let conf = built.configs.join(format!("h2o-{port}.conf"));
            std::fs::write(&conf, h2o_config(&built.root, port, &conf))?;
            command.args(["/usr/bin/h2o", "-c"]).arg(&conf);
        }
        Peer::Caddy => {
            let conf = built.configs.join(format!("Caddyfile-{port}"));
            std::fs::write(&conf, caddyfile(&built.root, port))?;
            command
                .args([
                    "/usr/bin/caddy",
                    "run",
                    "--adapter",
                    "caddyfile",
                    "--config",
                ])
                .arg(&conf);
        }
    }
    command.stdin(Stdio::null());
    Server::start_listening(label.to_owned(), &mut command, address)
}

/// h2o serving `root` on `port` with one thread and no access log, as nginx runs with one
/// worker and none; as root it stays root (it would switch to `nobody`, who may not read
/// `root`).
pub fn h2o_config(root: &Path, port: u16, conf: &Path) -> String {
    let conf = conf.display();
    format!(
        "user: root\nnum-threads: 1\npid-file: {conf}.pid\nerror-log: {conf}.log\n\
         listen:\n  host: 127.0.0.1\n  port: {port}\n\
         hosts:\n  default:\n    paths:\n      /:\n        file.dir: {}\n",
        root.display()
    )
}

/// Caddy's `file_server` of `root` on 127.0.0.1:`port` for any `Host` (a site named by its
/// address answers other hosts with an empty 200): plain HTTP, no admin endpoint (two Caddys
/// would both want its port), no access log (Caddy logs none unless told).
pub fn caddyfile(root: &Path, port: u16) -> String {
    format!(
        "{{\n\tadmin off\n\tauto_https off\n}}\n\nhttp://:{port} {{\n\tbind 127.0.0.1\n\
         \troot * {}\n\tfile_server\n}}\n",
        root.display()
    )
}

#[cfg(test)]
mod tests {
    use super::{Built, PACKAGES, Peer, start};

    /// The body of `path` from `address`, which must answer 200.
    fn get(address: &str, path: &str) -> Vec<u8> {
        let response = bindery_test_support::raw_request(address, "GET", path, &[]);
        assert!(
            response.status_line.starts_with("HTTP/1.1 200"),
            "{path}: {}",
            response.status_line
        );
        response.body
    }

    /// The configurations the harness writes for h2o and Caddy start them, and they serve the
    /// folder's bytes at nginx's paths: a configuration that a new release refuses would
    /// otherwise stop a long run half way.
    #[test]
    fn h2o_and_caddy_serve_the_folder_with_the_harness_configuration() {
        if !bindery_test_support::slow_test(
            "xtask",
            "h2o_and_caddy_serve_the_folder_with_the_harness_configuration",
            "h2o and Caddy",
        ) {
            return;
        }
        crate::process::apt_install(&PACKAGES).expect("h2o and caddy (apt-get install h2o caddy)");
        let root = tempfile::tempdir().expect("temporary folder");
        let configs = tempfile::tempdir().expect("temporary folder");
        let small = bindery_test_support::noise(1024, 7);
        let vue = b"var Vue = {};\n".repeat(100);
        std::fs::write(root.path().join("small.txt"), &small).expect("write");
        std::fs::write(root.path().join("vue.min.js"), &vue).expect("write");
        let built = Built {
            root: root.path().to_owned(),
            crates: root.path().to_owned(),
            static_web_server: root.path().to_owned(),
            configs: configs.path().to_owned(),
            missing_packages: None,
        };
        for peer in [Peer::H2o, Peer::Caddy] {
            let server = start(peer, &built, &format!("{peer:?}")).expect("starts");
            // Not assert_eq!: a kilobyte of bytes in the message says nothing.
            assert!(get(&server.address, "/small.txt") == small, "{peer:?}");
            assert!(get(&server.address, "/vue.min.js") == vue, "{peer:?}");
        }
    }

    #[test]
    fn a_peer_that_could_not_be_installed_is_refused_with_the_reason() {
        let built = Built {
            root: ".".into(),
            crates: ".".into(),
            static_web_server: ".".into(),
            configs: ".".into(),
            missing_packages: Some("this needs Debian's h2o, caddy: run as root".to_owned()),
        };
        let Err(error) = start(Peer::H2o, &built, "h2o") else {
            panic!("h2o started without being installed");
        };
        assert!(format!("{error}").contains("run as root"), "{error}");
        assert!(built.unavailable(Peer::Crate("serve-dir")).is_none());
    }
}
