//! Helpers shared by bindery's test suites and tools, so that none keeps its own copy: noise
//! bytes, throwaway cargo projects built outside the workspace as a user's would be, HTTP by
//! hand (HTTP/1 and a raw HTTP/2 client), hostile clients, Prometheus samples and servers started as programs.
//!
//! How the suites are laid out: each crate's integration tests are one binary (`tests/it/`;
//! the service's in `crates/bindery/tests/serve/`). Throwaway crates outside the workspace
//! ([`Project`]) share one target folder under `CARGO_TARGET_TMPDIR`; `.config/nextest.toml` runs
//! the tests that build there one at a time. Property tests drive random trees through codegen
//! and random requests through the service; `fuzz/` checks the parsers; macro errors are
//! trybuild snapshots (`crates/bindery-macros/tests/ui`, bindery with its default features, so
//! an option used without its feature is one too); the browser test is
//! `examples/geo-server/e2e`. Slow tests ([`slow_test`]) run under `CI` or `RUN_SLOW_TESTS`, and
//! under CI a missing tool fails them. Tests never need the real GeoLite2 database.
#![forbid(unsafe_code)]

use std::path::Path;

pub mod budget;
pub mod busy;
pub mod commands;
pub mod deployment;
pub mod hostile;
mod http;
mod project;
pub mod raw_h2;
mod slow;
mod spawn;

pub use http::{
    RawResponse, connect_from, free_port, metric, raw_request, samples, try_connect_from,
    try_raw_request,
};
pub use project::{Project, crate_path, quick_build_profiles, workspace};
pub use slow::{slow_test, slow_tests_run};
pub use spawn::{Listening, spawn_with_first_line};

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

/// Replaces the file at `path` with `bytes` by rename, as docs/serving.md says to replace an
/// overlay's files: written to a temporary beside it (named for the calling thread, so that two
/// writers never share one), then renamed over it, so a reader sees one version or the other.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("theme.css");
/// bindery_test_support::replace_by_rename(&path, b"a{}");
/// bindery_test_support::replace_by_rename(&path, b"b{}");
/// assert_eq!(std::fs::read(&path).unwrap(), b"b{}");
/// assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
/// ```
pub fn replace_by_rename(path: &std::path::Path, bytes: &[u8]) {
    let staged = path.with_extension(format!("staged-{:?}", std::thread::current().id()));
    std::fs::write(&staged, bytes).expect("write the replacement");
    std::fs::rename(&staged, path).expect("rename it into place");
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
