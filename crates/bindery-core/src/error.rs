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
    #[error("folder `{}` does not exist{}", path.display(), hint.as_ref().map_or(String::new(), |hint| format!("; {hint}")))]
    MissingFolder {
        /// The folder asked for.
        path: PathBuf,
        /// What the crate says to do about it (its `hint` option): how the folder is made.
        hint: Option<String>,
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
    /// Two folders of one catalog give the same catalog path.
    #[error(
        "`{key}` is given by two folders: `{}` (folder `{}`) and `{}` (folder `{}`); give one of them another prefix or exclude the file from one",
        files[0].display(), folders[0].display(), files[1].display(), folders[1].display()
    )]
    FolderOverlap {
        /// The path in the catalog.
        key: String,
        /// The two files: the one of the folder given first, then the later folder's.
        files: Box<[PathBuf; 2]>,
        /// Their folders, in the same order.
        folders: Box<[PathBuf; 2]>,
    },
    /// A setting of the whole catalog was given with a further folder.
    #[error(
        "`{name}` applies to the whole catalog: give it with the first folder (a further folder takes only the settings each folder has its own of)"
    )]
    CatalogSetting {
        /// The setting's name.
        name: String,
    },
    /// An include or exclude pattern is not a valid glob.
    #[error("invalid glob `{glob}`: {message}")]
    Glob {
        /// The pattern as given.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// A `types` rule is not `glob=type` with a glob and a media type.
    #[error("invalid `types` rule `{rule}`: {reason}")]
    MediaType {
        /// The rule as given.
        rule: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Files whose media type is unknown (no `types` rule, an extension no table knows) under
    /// `unknown_types = "deny"`.
    #[error(
        "no media type for {}: give them a `types` rule (`types = [\"LICENSE=text/plain\"]`) or \
         leave `unknown_types` at \"octet-stream\"",
        files.iter().map(|file| format!("`{file}`")).collect::<Vec<_>>().join(", ")
    )]
    UnknownMediaTypes {
        /// The catalog paths, sorted.
        files: Vec<String>,
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
    /// The folder argument names an environment variable that is not set (or not UTF-8).
    #[error("folder `{folder}`: environment variable `{name}` is not set")]
    UnsetVariable {
        /// The folder as written, before expansion.
        folder: String,
        /// The variable.
        name: String,
    },
    /// The folder argument cannot be expanded (`${` without `}`, a `$` before no name).
    #[error("folder `{folder}`: {reason} (write `$$` for a literal `$`)")]
    FolderSyntax {
        /// The folder as written.
        folder: String,
        /// What is wrong.
        reason: String,
    },
    /// `modified = "source-date-epoch"` found neither `SOURCE_DATE_EPOCH` nor a commit.
    #[error(
        "modified = \"source-date-epoch\": SOURCE_DATE_EPOCH is not set and neither `{}` nor \
         the crate is in a git work tree with a commit ({reason})",
        folder.display()
    )]
    NoSourceDate {
        /// The folder embedded.
        folder: PathBuf,
        /// What git said, or why it could not be asked.
        reason: String,
    },
    /// `SOURCE_DATE_EPOCH` is set to something that is not a number of seconds.
    #[error("SOURCE_DATE_EPOCH `{value}` is not a whole number of seconds since 1970")]
    SourceDateEpoch {
        /// The variable's value.
        value: String,
    },
    /// A file's fingerprinted name is the name of another file of the catalog.
    #[error(
        "fingerprint: `{fingerprinted}` (for `{file}`) is also the name of a file of the catalog"
    )]
    FingerprintCollision {
        /// The file fingerprinted.
        file: String,
        /// Its fingerprinted name, taken.
        fingerprinted: String,
    },
    /// A setting needs each file's SHA-256, which `integrity = false` turns off.
    #[error(
        "`{setting}` needs each file's SHA-256: leave `integrity` on (remove `integrity = false`)"
    )]
    NeedsIntegrity {
        /// The setting.
        setting: &'static str,
    },
    /// A setting needs a cargo feature that is not compiled in.
    #[error(
        "`{setting}` needs the `{feature}` feature of bindery (of bindery-cli for the \
         generator): features = [\"{feature}\"]"
    )]
    FeatureUnavailable {
        /// The setting.
        setting: &'static str,
        /// The cargo feature that compiles what it needs.
        feature: &'static str,
    },
    /// A bundler's manifest (`manifest = "vite"`: `.vite/manifest.json`) cannot be read or is
    /// not one.
    #[error("manifest `{}`: {reason}", path.display())]
    BundleManifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A bundler's manifest names a file the catalog does not hold: missing from the folder,
    /// or left out by `include`/`exclude`.
    #[error(
        "manifest `{}`: `{chunk}` names `{file}`, which the catalog does not hold (missing from \
         the folder, or left out by include/exclude)",
        path.display()
    )]
    BundleMissingFile {
        /// The manifest file.
        path: PathBuf,
        /// The manifest's key that names it (`index.html`, `src/lazy.js`).
        chunk: String,
        /// The file named, as the catalog would spell it.
        file: String,
    },
    /// A kept release (`releases`) cannot be read, or its files are not what its record says.
    #[error("release `{}`: {reason}", path.display())]
    Release {
        /// The release's folder (or its record).
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A precompressed sibling (`app.js.br`) does not decode to the file beside it.
    #[error("precompressed sibling `{}` does not decode to `{}`: {reason}", sibling.display(), file.display())]
    SiblingMismatch {
        /// The sibling.
        sibling: PathBuf,
        /// The file it should decode to.
        file: PathBuf,
        /// How they differ (or why it does not decode).
        reason: String,
    },
    /// A precompressed sibling needs a decoder that is not compiled in.
    #[error(
        "precompressed sibling `{}` is {encoding}: checking it needs the `{feature}` feature of \
         bindery (of bindery-cli for the generator): features = [\"{feature}\"]",
        sibling.display()
    )]
    SiblingUnavailable {
        /// The sibling.
        sibling: PathBuf,
        /// Its encoding.
        encoding: crate::Encoding,
        /// The cargo feature that compiles its decoder.
        feature: &'static str,
    },
    /// Files larger than `max_file_size`.
    #[error("{} larger than max_file_size ({}): {}", plural(*count, "file is", "files are"), size(*limit), listing(largest))]
    FileTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// How many files are larger.
        count: usize,
        /// The offenders, largest first (at most five).
        largest: Vec<(PathBuf, u64)>,
    },
    /// The files together are larger than `max_total_size`.
    #[error("the catalog holds {} (more than max_total_size, {}); the largest files: {}", size(*total), size(*limit), listing(largest))]
    TotalTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The total of the files' lengths.
        total: u64,
        /// The largest files, largest first (at most five).
        largest: Vec<(PathBuf, u64)>,
    },
    /// A `.gitignore` or `.ignore` file could not be read or parsed.
    #[error("gitignore: `{}`: {message}", path.display())]
    Ignore {
        /// The ignore file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
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

/// "1 file is" or "3 files are".
fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}

/// A size as people read it: bytes, KiB, MiB or GiB, one decimal.
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `a (1.2 MiB), b (900 KiB)`.
fn listing(files: &[(PathBuf, u64)]) -> String {
    files
        .iter()
        .map(|(path, len)| format!("`{}` ({})", path.display(), size(*len)))
        .collect::<Vec<_>>()
        .join(", ")
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

#[cfg(feature = "glob")]
impl From<crate::glob::GlobError> for Error {
    fn from(error: crate::glob::GlobError) -> Error {
        Error::Glob {
            glob: error.glob,
            message: error.message,
        }
    }
}
