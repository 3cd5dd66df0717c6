//! What `bindery embed` can fail with, and the exit status each failure gives.

use std::path::PathBuf;
use std::process::ExitCode;

/// Why a run of the generator did not finish with an up-to-date module.
///
/// ```
/// let error = bindery_cli::Error::Usage("--name `my-assets` is not a Rust identifier".into());
/// assert_eq!(error.exit_code(), std::process::ExitCode::from(2));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bad arguments or input (a missing folder, a bad glob, an unreadable file): nothing was
    /// written. Exit status 2.
    #[error("{0}")]
    Usage(String),
    /// Under `--check`, regenerating would change these files (one line each). Exit status 1.
    #[error("{} file(s) stale; regenerate with: {command}", stale.len())]
    Stale {
        /// One line per stale file: its path and why.
        stale: Vec<String>,
        /// The arguments that regenerate the module.
        command: String,
    },
    /// A cached blob could not be read back while writing (the cache was changed under the
    /// run). Exit status 1.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The cached blob.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Writing the output failed part way; what was there before is left consistent. Exit
    /// status 1.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file or folder being written.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
}

impl Error {
    /// The process exit status for this error: 2 for bad arguments or input, 1 otherwise.
    ///
    /// ```
    /// let stale = bindery_cli::Error::Stale { stale: vec![], command: String::new() };
    /// assert_eq!(stale.exit_code(), std::process::ExitCode::FAILURE);
    /// ```
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Usage(_) => ExitCode::from(2),
            Error::Stale { .. } | Error::Read { .. } | Error::Write { .. } => ExitCode::FAILURE,
        }
    }

    pub(crate) fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Write {
            path: path.into(),
            source,
        }
    }
}

impl From<bindery_codegen::Error> for Error {
    /// Codegen reports bad input (a missing folder, an unreadable file, an odd name) as usage
    /// errors; a failed write of its blob cache as a write error.
    fn from(error: bindery_codegen::Error) -> Self {
        match error {
            bindery_codegen::Error::Write { path, source } => Error::Write { path, source },
            other => Error::Usage(other.to_string()),
        }
    }
}
