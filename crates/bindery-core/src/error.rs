//! The error of everything that happens at build time: scanning, describing, compressing,
//! caching and writing. Every kind names the file or argument it is about, in the one wording
//! the macro, the generator and build scripts all show.

use std::io;
use std::path::PathBuf;

/// What went wrong while scanning, reading, compressing or writing, with the path involved.
///
/// ```
/// use bindery_core::{Error, key::normalise_prefix};
///
/// let error = normalise_prefix("../up").unwrap_err();
/// assert!(matches!(error, Error::Prefix { .. }));
/// assert_eq!(error.to_string(), "invalid prefix `../up`: it must not hold empty, `.` or `..` segments");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The folder to embed does not exist.
    #[error("folder `{}` does not exist", path.display())]
    MissingFolder {
        /// The folder asked for.
        path: PathBuf,
    },
    /// The path to embed exists but is not a folder.
    #[error("`{}` is not a folder", path.display())]
    NotAFolder {
        /// The path asked for.
        path: PathBuf,
    },
    /// A file or folder could not be read (permissions, a dangling symlink, an I/O error).
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Following symlinks led back to a folder already being walked.
    #[error("symlink loop: `{}` leads back to `{}`", path.display(), ancestor.display())]
    SymlinkLoop {
        /// The link that closes the loop.
        path: PathBuf,
        /// The folder it leads back to.
        ancestor: PathBuf,
    },
    /// A file name is not valid UTF-8, so it cannot become a catalog path.
    #[error("`{}`: the name is not valid UTF-8", path.display())]
    NonUtf8Name {
        /// The file.
        path: PathBuf,
    },
    /// A file name holds a character catalog paths cannot carry (a backslash).
    #[error("`{}`: {reason}", path.display())]
    UnsupportedName {
        /// The file.
        path: PathBuf,
        /// Why the name is refused.
        reason: &'static str,
    },
    /// Two files would have the same catalog path.
    #[error("`{}` and `{}` both map to `{key}`", first.display(), second.display())]
    DuplicatePath {
        /// The path in the catalog.
        key: String,
        /// The first file.
        first: PathBuf,
        /// The second file.
        second: PathBuf,
    },
    /// An include or exclude pattern is not a valid glob.
    #[error("invalid glob `{glob}`: {message}")]
    Glob {
        /// The pattern as given.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// The path prefix is not a clean relative path.
    #[error("invalid prefix `{prefix}`: {reason}")]
    Prefix {
        /// The prefix as given.
        prefix: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// The path generated code names the runtime by is not a Rust path.
    #[error(
        "invalid crate path `{path}`: expected a path such as `::bindery` or `my_crate::bindery`"
    )]
    CratePath {
        /// The path as given.
        path: String,
    },
    /// The gzip level is outside 0..=9.
    #[error("invalid gzip level {level}: expected 0 to 9")]
    Level {
        /// The level as given.
        level: u32,
    },
    /// An encoding is asked for twice in `precompress`.
    #[error("`{encoding}` is given twice in precompress")]
    DuplicateEncoding {
        /// The repeated encoding.
        encoding: crate::Encoding,
    },
    /// An encoding is asked for whose encoder is not compiled in.
    #[error(
        "precompress `{encoding}` needs the `{feature}` feature of bindery (of bindery-cli for the \
         generator): features = [\"{feature}\"]"
    )]
    EncodingUnavailable {
        /// The encoding asked for.
        encoding: crate::Encoding,
        /// The cargo feature that compiles its encoder.
        feature: &'static str,
    },
    /// A file changed between the moment the build described it and the end of the build (a
    /// watcher rewriting the folder): what would be embedded might not be what was hashed.
    #[error("`{}` changed during the build; build again", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// No cache folder could be chosen: no target folder and no per-user cache folder.
    #[error(
        "no private folder for bindery's build cache (no target folder, no home directory): \
         set BINDERY_CACHE_DIR to a folder of your own"
    )]
    NoCacheDir,
    /// The cache folder is not private to the user who builds.
    #[error("refusing the build cache `{}`: {reason}; set BINDERY_CACHE_DIR to a folder of your own", path.display())]
    UnsafeCache {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Writing a file (a cached blob, generated output) failed.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
}

impl Error {
    /// [`Error::Read`] of `path`.
    ///
    /// ```
    /// let error = bindery_core::Error::read("a.txt", std::io::ErrorKind::NotFound.into());
    /// assert!(error.to_string().starts_with("cannot read `a.txt`"));
    /// ```
    pub fn read(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Read {
            path: path.into(),
            source,
        }
    }

    /// [`Error::Write`] of `path`.
    ///
    /// ```
    /// let error = bindery_core::Error::write("out.rs", std::io::ErrorKind::PermissionDenied.into());
    /// assert!(error.to_string().starts_with("cannot write `out.rs`"));
    /// ```
    pub fn write(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Write {
            path: path.into(),
            source,
        }
    }
}
