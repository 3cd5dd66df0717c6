//! The deployments SECURITY.md compares under [`hostile`](crate::hostile) clients, each a user's
//! crate outside the workspace whose `main.rs` is the docs' own program
//! (`examples/frameworks/src/bin/`), over a site with a 17 MiB static file and a gzip-stored
//! script, built in release mode and started under a chosen open-file limit.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Project, crate_path, workspace};

/// The site's 17 MiB file: random bytes, so gzip mode stores it as it is (a static file).
pub const BIG: &str = "/static/assets/big.bin";
/// The site's script, compressible: stored gzip.
pub const GZIP: &str = "/static/assets/app.js";
/// The site's page.
pub const SMALL: &str = "/static/index.html";

/// One way of serving the docs' catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deployment {
    /// docs/frameworks.md's axum program: `bindery::serve::Server` with its defaults.
    Bindery,
    /// The same program with plain `axum::serve(listener, app)`, as docs/serving.md's one line
    /// says a user may keep it.
    AxumServe,
    /// docs/frameworks.md's actix-web program, configured as it shows.
    Actix,
    /// docs/frameworks.md's rocket program, configured as it shows.
    Rocket,
}

impl Deployment {
    /// Every deployment, in the order of SECURITY.md's table.
    pub const ALL: [Deployment; 4] = [
        Deployment::Bindery,
        Deployment::AxumServe,
        Deployment::Actix,
        Deployment::Rocket,
    ];

    /// Its name in tables and in its crate's name.
    pub fn name(self) -> &'static str {
        match self {
            Deployment::Bindery => "bindery-server",
            Deployment::AxumServe => "axum-serve",
            Deployment::Actix => "actix-web",
            Deployment::Rocket => "rocket",
        }
    }

    fn program(self) -> PathBuf {
        let file = match self {
            Deployment::Bindery | Deployment::AxumServe => "axum.rs",
            Deployment::Actix => "actix.rs",
            Deployment::Rocket => "rocket.rs",
        };
        workspace().join("examples/frameworks/src/bin").join(file)
    }

    /// The crate's `main.rs`: the docs' program, for [`AxumServe`](Self::AxumServe) with its
    /// server lines replaced by plain `axum::serve`.
    pub fn main_rs(self) -> String {
        let program = std::fs::read_to_string(self.program()).expect("the docs' program");
        if self != Deployment::AxumServe {
            return program;
        }
        let start = program
            .find("    // Deadlines for every phase")
            .expect("the axum program's server lines");
        format!(
            "{}    let listener = tokio::net::TcpListener::bind(&address).await?;\n    \
             println!(\"listening on http://{{}}\", listener.local_addr()?);\n    \
             axum::serve(listener, app).await\n}}\n",
            &program[..start]
        )
    }

    fn dependencies(self) -> String {
        let bindery = crate_path("bindery");
        let (features, others) = match self {
            Deployment::Bindery => (
                "\"server\"",
                "axum = \"0.8\"\ntokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }",
            ),
            Deployment::AxumServe => (
                "\"serve\"",
                "axum = \"0.8\"\ntokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\", \"net\"] }",
            ),
            // The features the workspace resolves (the registry here holds no more): actix-web
            // and rocket then speak HTTP/1 only on plain TCP.
            Deployment::Actix => (
                "\"actix\"",
                "actix-web = { version = \"4\", default-features = false, features = [\"macros\"] }",
            ),
            Deployment::Rocket => (
                "\"rocket\"",
                "rocket = { version = \"0.5\", default-features = false }",
            ),
        };
        format!(
            "bindery = {{ path = {bindery:?}, features = [{features}, \"br\", \"zstd\", \"gzip\"] }}\n{others}\n"
        )
    }

    /// Writes the crate into `project`: manifest, `main.rs` and the site.
    pub fn write(self, project: &Project) {
        let name = format!("hostile-{}", self.name());
        project.write(
            "Cargo.toml",
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
                 publish = false\n\n[workspace]\n\n[dependencies]\n{}\n\
                 # The build-time encoders: the site's 17 MiB file goes through them once.\n\
                 [profile.release.package.brotli]\nopt-level = 3\n\
                 [profile.release.package.zstd-sys]\nopt-level = 3\n\
                 [profile.release.package.miniz_oxide]\nopt-level = 3\n",
                self.dependencies()
            ),
        );
        project.write("src/main.rs", self.main_rs());
        let site = workspace().join("examples/frameworks/site");
        for page in ["index.html", "404.html"] {
            project.write(
                &format!("site/{page}"),
                std::fs::read(site.join(page)).expect("the docs' site"),
            );
        }
        project.write("site/assets/big.bin", crate::noise(17 << 20, 49));
        project.write("site/assets/app.js", script(256 << 10));
    }

    /// The release binary `project` builds for this deployment.
    pub fn binary(self, project: &Project) -> PathBuf {
        project
            .target()
            .join("release")
            .join(format!("hostile-{}", self.name()))
    }
}

/// `len` bytes of script that compresses as a real one does (words from a small vocabulary).
fn script(len: usize) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "function", "return", "const", "value", "index", "render", "state", "props", "=>", "{",
        "}", ";",
    ];
    let mut out = Vec::with_capacity(len + 16);
    for number in crate::Xorshift::new(49) {
        if out.len() >= len {
            break;
        }
        out.extend_from_slice(WORDS[(number % WORDS.len() as u64) as usize].as_bytes());
        out.push(if number % 9 == 0 { b'\n' } else { b' ' });
    }
    out.truncate(len);
    out
}

/// A deployment running, killed when dropped.
#[derive(Debug)]
pub struct Running {
    child: Child,
    /// Where it listens.
    pub address: SocketAddr,
}

impl Running {
    /// Its process id, for its memory.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether it is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits up to `patience` for it to exit; its status, or `None` if it is still running.
    pub fn wait_exit(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + patience;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `binary` on a free loopback port with at most `open_files` descriptors (soft and hard
/// limit, as a service unit's `LimitNOFILE=` sets them) and waits until it accepts.
pub fn start(binary: &Path, open_files: u64) -> Running {
    start_in(binary, open_files, None)
}

/// [`start`], in the cgroup whose `cgroup.procs` is `group` (a container's memory limit:
/// [`MemoryGroup`](crate::budget::MemoryGroup)).
pub fn start_in(binary: &Path, open_files: u64, group: Option<&Path>) -> Running {
    let address = SocketAddr::from(([127, 0, 0, 1], crate::free_port()));
    let join = group.map_or_else(String::new, |procs| {
        format!("echo $$ > '{}' && ", procs.display())
    });
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("{join}ulimit -n {open_files} && exec \"$0\""))
        .arg(binary)
        .env("BIND", address.to_string())
        .env("ROCKET_LOG_LEVEL", "off")
        .env("ROCKET_CLI_COLORS", "false")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut running = Running { child, address };
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(address).is_err() {
        if let Ok(Some(status)) = running.child.try_wait() {
            panic!("{} exited with {status} before listening", binary.display());
        }
        assert!(Instant::now() < deadline, "never listened on {address}");
        std::thread::sleep(Duration::from_millis(20));
    }
    running
}
