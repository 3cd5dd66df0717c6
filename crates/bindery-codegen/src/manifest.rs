//! The model both front doors emit from: every file with its hash, ETag, mime type and storage.

use std::path::{Path, PathBuf};

use crate::{Encoding, Mode};
use bindery_core::rules::Rules;

/// Everything known about a folder at build time, in catalog order.
///
/// ```
/// let manifest = bindery_codegen::Options::new("../../assets/fixtures").build().unwrap();
/// let hello = manifest.entries.iter().find(|entry| entry.path == "hello.txt").unwrap();
/// assert_eq!(hello.len, 16);
/// assert_eq!(hello.mime, "text/plain");
/// assert_eq!(hello.content_type, "text/plain; charset=utf-8");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The mode the catalog is built in.
    pub mode: Mode,
    /// The folder that was scanned, as given.
    pub root: PathBuf,
    /// The normalised prefix put before every path (`""` or ending in `/`).
    pub prefix: String,
    /// The files, sorted by path.
    pub entries: Vec<Entry>,
    /// Stored size from which a file goes through the assembler (`None`: never).
    pub large_threshold: Option<u64>,
    /// The rules the folder was scanned with, which dev mode applies again at run time.
    pub rules: Rules,
    /// The catalog's further folders ([`Options::folder`](crate::Options::folder)), in the
    /// order given; `root`, `prefix` and `rules` above are the first folder's.
    pub more_folders: Vec<Folder>,
    /// The small raw files' bytes in one blob, when [`Options::pack`](crate::Options::pack) asked.
    pub pack: Option<crate::pack::Pack>,
    /// Whether the macro's expansion names each source it holds through a copy (packed files
    /// and snapshots) with `include_bytes!` in a function never called, so that cargo rebuilds
    /// when one changes. Not needed when a build script tracks the folder
    /// ([`track`](crate::track)), which also notices added files. `true` unless turned off.
    pub name_sources: bool,
    /// The path generated code names the runtime by (`::bindery` unless
    /// [`Options::crate_path`](crate::Options::crate_path) said otherwise).
    pub crate_path: String,
    /// The one date of every file, with [`Options::modified`](crate::Options::modified) with `Modified::SourceDateEpoch`.
    pub source_date: Option<crate::SourceDate>,
    /// Whether each file is also served under its fingerprinted name
    /// ([`Entry::fingerprinted`]).
    pub fingerprint: bool,
    /// What the bundler's manifest says of the files, with
    /// [`Options::manifest`](crate::Options::manifest).
    pub bundle: Option<crate::Bundle>,
    /// The record of each release kept ([`Options::releases`](crate::Options::releases)),
    /// newest first: its files are entries with [`Entry::kept`] set.
    pub release_records: Vec<PathBuf>,
    /// What each folder that did not exist says (`allow_missing = true`): the error a build
    /// without that option would give. Debug builds of the crate serve it for every miss;
    /// release builds fail with it.
    pub missing: Vec<String>,
}

/// A further folder of a catalog of several: where it is, its prefix, and its rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The folder that was scanned, as given.
    pub root: PathBuf,
    /// The normalised prefix put before its paths (`""` or ending in `/`).
    pub prefix: String,
    /// The rules it was scanned with.
    pub rules: Rules,
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The catalog path: prefix plus the path relative to the folder.
    pub path: String,
    /// The file on disk.
    pub source: PathBuf,
    /// Uncompressed length in bytes.
    pub len: u64,
    /// The content hash (XXH3-128), in hex.
    pub hash: String,
    /// SHA-256 of the contents, when [`Options::integrity`](crate::Options::integrity) records it.
    pub sha256: Option<[u8; 32]>,
    /// Subresource Integrity of the contents (`sha384-…` unless
    /// [`Options::integrity`](crate::Options::integrity) chose another algorithm, or none).
    pub integrity: Option<String>,
    /// The name that holds the content hash (`app.3f2a9c1d4e5b.css`), with
    /// [`Options::fingerprint`](crate::Options::fingerprint).
    pub fingerprinted: Option<String>,
    /// Strong ETag of the uncompressed contents, quoted.
    pub etag: String,
    /// Media type guessed from the name.
    pub mime: String,
    /// `Content-Type` value: the media type, with `; charset=utf-8` for text.
    pub content_type: String,
    /// Modification time in seconds since the Unix epoch, when asked for.
    pub modified: Option<u64>,
    /// How the bytes are stored.
    pub stored: Stored,
    /// Precompressed wire variants, in [`Encoding::ALL`] order; only those that save at least
    /// [`MIN_SAVING_PERCENT`](crate::MIN_SAVING_PERCENT). In `gzip` mode the stored gzip bytes
    /// are the gzip representation and are not repeated here.
    pub variants: Vec<Variant>,
    /// A private copy of the source in the cache, written from the bytes that were hashed, for
    /// a raw file outside the pack when [`Options::snapshots`](crate::Options::snapshots) asked:
    /// what the macro includes, so that the compiler reads what was hashed.
    pub snapshot: Option<PathBuf>,
    /// With [`Options::script_hashes`](crate::Options::script_hashes), the CSP hash
    /// (`'sha256-…'`) of each inline script of an HTML file, in document order, each once.
    pub script_hashes: Vec<String>,
    /// The number of the kept release this file comes from
    /// ([`Options::releases`](crate::Options::releases)); `None` for the current build's files.
    pub kept: Option<u64>,
    /// With [`Options::dictionaries`](crate::Options::dictionaries), what makes this hashed file a
    /// compression dictionary for its next versions, and its deltas against its earlier ones.
    pub dictionary: Option<Dictionary>,
}

/// A file's part in compression dictionary transport (RFC 9842): the `match` pattern its
/// `Use-As-Dictionary` header gives, and its precomputed deltas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dictionary {
    /// The catalog path pattern (`assets/index-*.js`) that covers the file's next versions.
    pub pattern: String,
    /// The request destination it is for (`script`, `style`), when the media type says.
    pub destination: Option<&'static str>,
    /// The file compressed against each earlier version kept, smallest first.
    pub deltas: Vec<Delta>,
}

/// A file compressed against an earlier version of it (`dcz`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    /// The SHA-256 of the dictionary: what `Available-Dictionary` names.
    pub dictionary: [u8; 32],
    /// The dictionary's catalog path.
    pub dictionary_path: String,
    /// The cached blob (header included).
    pub blob: PathBuf,
    /// Its length in bytes.
    pub len: u64,
    /// Its strong ETag, distinct from every other representation's.
    pub etag: String,
}

/// A precompressed representation of an entry, sent as-is to clients that accept its encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its content coding.
    pub encoding: Encoding,
    /// The cached blob's path.
    pub blob: PathBuf,
    /// Its length in bytes.
    pub len: u64,
    /// Strong ETag of this representation: the entry's hash with the encoding's suffix.
    pub etag: String,
}

/// Whether an entry's bytes are stored as they are or as a gzip blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// The source file's bytes.
    Raw,
    /// A gzip blob in the cache.
    Gzip {
        /// The cached blob's path.
        blob: PathBuf,
        /// Its length in bytes.
        len: u64,
        /// Strong ETag of the gzip representation, distinct from the entry's ETag.
        etag: String,
    },
}

impl Manifest {
    /// The prefix the catalog reports (`Catalog::prefix`): the first folder's, or for several
    /// folders the leading folders their prefixes share (`""` when none).
    ///
    /// ```
    /// use bindery_codegen::Options;
    /// let manifest = Options::new("../../assets/fixtures").prefix("static/a")
    ///     .folder(Options::new("../../assets/spa").prefix("static/b"))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(manifest.catalog_prefix(), "static/");
    /// ```
    pub fn catalog_prefix(&self) -> String {
        let mut shared = self.prefix.as_str();
        for folder in &self.more_folders {
            while !folder.prefix.starts_with(shared) {
                // Drop the last folder of `shared` ("a/b/" → "a/").
                let trimmed = &shared[..shared.len() - 1];
                shared = trimmed.rfind('/').map_or("", |slash| &shared[..=slash]);
            }
        }
        shared.to_owned()
    }
}

impl Entry {
    /// How many bytes the binary stores for this file: its length, or its gzip blob's.
    pub fn stored_len(&self) -> u64 {
        match &self.stored {
            Stored::Raw => self.len,
            Stored::Gzip { len, .. } => *len,
        }
    }

    /// Whether the file is stored as it is, with no variants and no modification time: the
    /// common file, which shares its description with the others of its media type.
    pub fn is_plain(&self) -> bool {
        self.stored == Stored::Raw && self.variants.is_empty() && self.modified.is_none()
    }

    /// The file holding the bytes the binary stores: the gzip blob, or the snapshot of the
    /// source when there is one, else the source.
    pub fn stored_path(&self) -> &Path {
        match &self.stored {
            Stored::Raw => self.snapshot.as_deref().unwrap_or(&self.source),
            Stored::Gzip { blob, .. } => blob,
        }
    }
}
