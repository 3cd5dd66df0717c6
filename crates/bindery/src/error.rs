//! Errors of the runtime: reading a stored file back and restoring a catalog to disk.

use std::io;
use std::path::PathBuf;

/// What went wrong while reading an embedded file back or writing a catalog to disk.
///
/// ```
/// static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
///
/// let target = tempfile::tempdir().unwrap();
/// let blocker = target.path().join("blocked");
/// std::fs::write(&blocker, b"a file where a folder should be").unwrap();
/// let error = FIXTURES.restore(&blocker).unwrap_err();
/// assert!(matches!(error, bindery::Error::Io { .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The stored gzip bytes of a file did not decompress to the recorded length.
    #[error("embedded file `{path}` is corrupt: {reason}")]
    Corrupt {
        /// The file's path in the catalog.
        path: &'static str,
        /// What the decoder reported.
        reason: String,
    },
    /// An entry asked for that the catalog's bundler manifest does not list (or the catalog
    /// was built without `manifest`).
    #[error(
        "no entry `{name}` in the catalog's bundler manifest{}",
        listing(entries)
    )]
    NoEntry {
        /// The entry asked for.
        name: String,
        /// The manifest's entry points (`isEntry`).
        entries: Vec<&'static str>,
    },
    /// An HTML entry asked of Vite's dev server (a debug build with `VITE_DEV_SERVER`) whose
    /// module scripts bindery does not know: only `bindery_codegen::Frontend::vite` records them.
    #[cfg(all(feature = "dev", debug_assertions))]
    #[error(
        "the entry `{name}` is an HTML file whose module scripts are not recorded for Vite's dev \
         server: build the front end with bindery_codegen::Frontend::vite (it records them in \
         .vite/bindery-dev.tsv), or ask for the module entry (such as `src/main.js`)"
    )]
    NoDevModules {
        /// The entry asked for.
        name: String,
    },
    /// A file the bundler's manifest names is not in the catalog now: in dev mode, a later run
    /// of the bundler replaced it (rebuild the crate after the bundler runs).
    #[error(
        "`{path}`, named by the bundler's manifest, is not in the catalog now; rebuild after the bundler runs"
    )]
    NotBundled {
        /// The file's catalog path.
        path: &'static str,
    },
    /// A file the bundler's manifest names has no integrity string to link it with: its
    /// catalog records none (a generated module written with `--integrity false`).
    #[error("`{path}` has no integrity string: its catalog records none")]
    NoIntegrity {
        /// The file's catalog path.
        path: &'static str,
    },
    /// Reading or writing a file on disk failed.
    #[error("{action} `{}`: {source}", path.display())]
    Io {
        /// What was being done (`"cannot create"`, `"cannot read"`...).
        action: &'static str,
        /// The file or folder on disk.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
}

/// `": a, b"` naming what there is, or `" (it has none)"`.
fn listing(entries: &[&str]) -> String {
    if entries.is_empty() {
        " (it has none)".to_owned()
    } else {
        format!(" (its entries: {})", entries.join(", "))
    }
}

impl Error {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
