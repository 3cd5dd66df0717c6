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
    /// Bad arguments (a name that is no identifier, an `--out` that cannot be written): nothing
    /// was written. Exit status 2.
    #[error("{0}")]
    Usage(String),
    /// An option that codegen refuses (a bad glob or prefix, an encoding given twice, a missing
    /// folder): nothing was written. Exit status 2.
    #[error("{}{source}", flag.as_ref().map(|flag| format!("{flag}: ")).unwrap_or_default())]
    Invalid {
        /// The flag at fault, as the command line spells it; `None` for the folder.
        flag: Option<String>,
        /// What codegen found wrong.
        source: bindery_codegen::Error,
    },
    /// Building the catalog failed (an unreadable file, a symlink loop, a file that changed
    /// during the build, a cache that is not private). Exit status 2 for bad input, 1 for the
    /// rest; nothing was written.
    #[error(transparent)]
    Build(bindery_codegen::Error),
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
        use bindery_codegen::Error as Codegen;
        match self {
            Error::Usage(_) | Error::Invalid { .. } => ExitCode::from(2),
            Error::Build(
                Codegen::Write { .. }
                | Codegen::Changed { .. }
                | Codegen::UnsafeCache { .. }
                | Codegen::NoCacheDir,
            ) => ExitCode::FAILURE,
            Error::Build(_) => ExitCode::from(2),
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
    /// Codegen's error while building, kept as it is: bad input (a missing folder, an unreadable
    /// file, an odd name) exits 2, a failed write of its cache 1.
    fn from(error: bindery_codegen::Error) -> Self {
        Error::Build(error)
    }
}
