//! Helpers shared by bindery's test suites, so that no test crate keeps its own copy: noise
//! bytes, and throwaway cargo projects built outside the workspace as a user's would be.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod raw_h2;

/// A xorshift64 generator: deterministic numbers for test data, benches and load, the same for
/// the same seed on every machine, with no random crate.
///
/// ```
/// use bindery_test_support::Xorshift;
/// let first: Vec<u64> = Xorshift::new(7).take(3).collect();
/// assert_eq!(first, Xorshift::new(7).take(3).collect::<Vec<_>>());
/// assert_ne!(first, Xorshift::new(8).take(3).collect::<Vec<_>>());
/// ```
#[derive(Debug, Clone)]
pub struct Xorshift(u64);

impl Xorshift {
    /// A generator for `seed`; every seed, 0 included, gives a usable (non-zero) state.
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(seed.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
}

impl Iterator for Xorshift {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Some(self.0)
    }
}

/// `len` incompressible bytes, the same for the same `seed` on every machine.
///
/// ```
/// let bytes = bindery_test_support::noise(4096, 1);
/// assert_eq!(bytes, bindery_test_support::noise(4096, 1));
/// assert_ne!(bytes, bindery_test_support::noise(4096, 2));
/// ```
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(len + 8);
    for word in Xorshift::new(seed) {
        if bytes.len() >= len {
            break;
        }
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

/// The request path that names a catalog path: every byte that is not unreserved or `/` is
/// percent-encoded (`%`, space, `#`, `?`, non-ASCII...), so the server decodes it back once.
///
/// ```
/// use bindery_test_support::uri_path;
/// assert_eq!(uri_path("with space & 100%.txt"), "/with%20space%20%26%20100%25.txt");
/// assert_eq!(uri_path("deep/a#b?.txt"), "/deep/a%23b%3F.txt");
/// ```
pub fn uri_path(catalog_path: &str) -> String {
    const PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    format!(
        "/{}",
        percent_encoding::utf8_percent_encode(catalog_path, PATH)
    )
}

/// The files directly in `dir` with their status-change time (seconds, nanoseconds): any
/// rewrite, rename or touch of a file changes it, so two listings tell what a build wrote.
/// Empty when `dir` does not exist.
#[cfg(unix)]
pub fn ctimes(dir: &Path) -> std::collections::BTreeMap<String, (i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return std::collections::BTreeMap::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            if !meta.is_file() {
                return None;
            }
            Some((
                entry.file_name().to_string_lossy().into_owned(),
                (meta.ctime(), meta.ctime_nsec()),
            ))
        })
        .collect()
}

/// The root of the bindery workspace, absolute.
///
/// ```
/// assert!(bindery_test_support::workspace().join("Cargo.lock").is_file());
/// ```
pub fn workspace() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .expect("the workspace root exists")
}

/// The absolute path of a workspace crate, for `path = "…"` dependencies: `crate_path("bindery")`.
///
/// ```
/// let path = bindery_test_support::crate_path("bindery-cli");
/// assert!(std::path::Path::new(&path).join("Cargo.toml").is_file());
/// ```
pub fn crate_path(name: &str) -> String {
    workspace().join("crates").join(name).display().to_string()
}

/// A project in a temporary folder outside the workspace, with a copy of the workspace's
/// `Cargo.lock` so it builds offline with the same versions. Projects given the same target
/// folder share compiled dependencies.
///
/// ```no_run
/// use bindery_test_support::{Project, crate_path};
///
/// let project = Project::new("/tmp/shared-target");
/// project.write(
///     "Cargo.toml",
///     format!("[package]\nname = \"user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n\n\
///              [dependencies]\nbindery = {{ path = {:?} }}\n", crate_path("bindery")),
/// );
/// project.write("src/main.rs", "fn main() {}");
/// assert!(project.cargo(&["build"]).status().unwrap().success());
/// ```
pub struct Project {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Project {
    /// An empty project (just the lock file) whose builds go to `target`.
    pub fn new(target: impl Into<PathBuf>) -> Project {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::copy(
            workspace().join("Cargo.lock"),
            dir.path().join("Cargo.lock"),
        )
        .expect("copy the lock file");
        Project {
            dir,
            target: target.into(),
        }
    }

    /// The project's folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The target folder its builds use.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes a file of the project, creating folders.
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) {
        let path = self.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }

    /// Deletes a file of the project.
    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("remove");
    }

    /// `cargo <args>`, offline and without colour, in the project's folder with its target
    /// folder, clear of the outer build's `RUSTFLAGS` and bindery cache setting. Works for
    /// aliases too (`cargo xtask …`).
    pub fn cargo(&self, args: &[&str]) -> Command {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command
            .args(args)
            .current_dir(self.path())
            .env("CARGO_NET_OFFLINE", "true")
            .env("CARGO_TERM_COLOR", "never")
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .env_remove("BINDERY_CACHE_DIR");
        command
    }

    /// A command run in the project's folder (a binary it built or installed).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.current_dir(self.path()).env("CI", "true");
        command
    }
}

/// A tree of small files, compressible and not, that every generator test can embed:
/// `index.html`, `app.js`, `img/noise.bin` (4 KiB incompressible) and `empty.txt`.
pub fn site_files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "index.html",
            "<!doctype html><p>compressible</p>\n"
                .repeat(50)
                .into_bytes(),
        ),
        (
            "app.js",
            "export const answer = 42;\n".repeat(40).into_bytes(),
        ),
        ("img/noise.bin", noise(4096, 0)),
        ("empty.txt", Vec::new()),
    ]
}

/// Writes [`site_files`] under `root`.
pub fn write_site(root: &Path) {
    for (path, contents) in site_files() {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }
}

/// One response read off the socket by [`raw_request`].
#[derive(Debug)]
pub struct RawResponse {
    /// The status line as sent, e.g. `HTTP/1.1 200 OK`.
    pub status_line: String,
    /// The status code.
    pub status: u16,
    /// The headers, names in lowercase (a repeated header keeps its last value).
    pub headers: std::collections::BTreeMap<String, String>,
    /// The body, as sent (`Connection: close`: everything after the head).
    pub body: Vec<u8>,
}

impl RawResponse {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one HTTP/1.1 request written by hand on a fresh connection (`Connection: close`) and
/// reads the whole response. The target reaches the server exactly as given: a client library
/// would resolve `..` or refuse odd bytes before sending.
///
/// ```no_run
/// let response = bindery_test_support::raw_request("127.0.0.1:8080", "GET", "/../x", &[]);
/// assert!([400, 404].contains(&response.status));
/// ```
pub fn raw_request(
    address: impl std::net::ToSocketAddrs,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> RawResponse {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send");
    let mut raw = Vec::new();
    // A reset after a complete answer still leaves that answer to check.
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or(raw.len());
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or_default().to_owned();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_default();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    RawResponse {
        status_line,
        status,
        headers,
        body: raw.get(split + 4..).unwrap_or_default().to_vec(),
    }
}

/// A TCP connection to `address` from `local` (another loopback address, `127.0.0.2`, is
/// another client to a server that counts connections per address), or from wherever the
/// system picks.
///
/// ```no_run
/// let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// let address = listener.local_addr().unwrap();
/// let stream = bindery_test_support::connect_from(address, Some("127.0.0.2".parse().unwrap()));
/// assert_eq!(listener.accept().unwrap().1.ip().to_string(), "127.0.0.2");
/// # drop(stream);
/// ```
pub fn connect_from(
    address: std::net::SocketAddr,
    local: Option<std::net::IpAddr>,
) -> std::net::TcpStream {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(address), Type::STREAM, None).expect("socket");
    if let Some(local) = local {
        socket
            .bind(&std::net::SocketAddr::new(local, 0).into())
            .expect("bind the local address");
    }
    socket.connect(&address.into()).expect("connect");
    socket.into()
}

/// A port on 127.0.0.1 that nothing listens on now, for a server a test starts with a
/// `--listen`-style flag (the port is free when returned; a race with another process is
/// possible but unlikely on a test machine).
///
/// ```
/// let port = bindery_test_support::free_port();
/// assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
/// ```
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}
