//! The shapes generated code fills in: what an [`EmbeddedFile`](crate::EmbeddedFile) points to
//! ([`Info`]), its precompressed variants ([`Encoded`]), and a dev catalog's source
//! ([`DevSource`]). Part of the generated-code contract: generated code writes them as struct
//! literals through the private module, which re-exports them.

use crate::Encoding;

/// One precompressed wire variant of a file, made at build time and sent as-is.
#[derive(Debug, Clone, Copy)]
pub struct Encoded {
    /// Its content coding.
    pub encoding: Encoding,
    /// Its bytes, as sent.
    pub bytes: &'static [u8],
    /// Its strong ETag, distinct from every other representation's.
    pub etag: &'static str,
}

/// What an [`EmbeddedFile`](crate::EmbeddedFile) points to: the blob its stored bytes are in and its description.
/// Files stored as they are, without variants or times, share one per blob and media type (in
/// a packed catalog: one per media type); the others have their own.
#[derive(Debug, Clone, Copy)]
pub struct Info {
    /// The blob holding the stored bytes: the file's own, or the catalog's pack.
    pub data: &'static [u8],
    /// The media type.
    pub mime: &'static str,
    /// The `Content-Type` header value.
    pub content_type: &'static str,
    /// The uncompressed length when the stored bytes are gzip; `None`: the stored length.
    pub len: Option<usize>,
    /// Set when the stored bytes are the gzip representation.
    pub gzip_etag: Option<&'static str>,
    /// The precompressed wire variants.
    pub variants: &'static [Encoded],
    /// The modification time, seconds since the epoch, when recorded.
    pub modified: Option<u64>,
}

/// Where a catalog reads one of its folders in dev mode: the folder, the prefix its paths take
/// in the catalog, and the build's rules, as `bindery_core::rules::Rules::to_text` wrote them
/// (dev mode reads them back once). A catalog of several folders has one per folder.
#[derive(Debug)]
pub struct DevSource {
    /// The folder, absolute (from `CARGO_MANIFEST_DIR`).
    pub root: &'static str,
    /// The prefix of its paths in the catalog (`""` or ending in `/`).
    pub prefix: &'static str,
    /// The build's rules: which files, and what they record.
    pub rules: &'static str,
}

/// What a bundler's manifest said of a catalog's files (`manifest = "vite"`), as tables made
/// at build time: the chunks sorted by name, and two sorted lists of catalog paths.
#[derive(Debug)]
pub struct BundleInfo {
    /// Every chunk, sorted by name.
    pub chunks: &'static [ChunkInfo],
    /// Every JavaScript file the manifest names, sorted: an import map gives their integrity.
    pub scripts: &'static [&'static str],
    /// Every file named with its hash that the build did not fingerprint, sorted: those the
    /// manifest names and those kept from earlier releases; served immutable.
    pub hashed: &'static [&'static str],
    /// The files kept from earlier releases (`releases`), sorted.
    pub kept: &'static [&'static str],
    /// Each hashed file's part in compression dictionary transport (`dictionaries`), by path.
    pub dictionaries: &'static [DictionaryInfo],
}

impl BundleInfo {
    /// The bundle of a catalog built without a manifest.
    pub const NONE: BundleInfo = BundleInfo {
        chunks: &[],
        scripts: &[],
        hashed: &[],
        kept: &[],
        dictionaries: &[],
    };
}

/// One chunk of a bundler's manifest and what a page that loads it needs (catalog paths).
#[derive(Debug)]
pub struct ChunkInfo {
    /// Its key in the manifest (`index.html`, `src/main.js`).
    pub name: &'static str,
    /// The file it became.
    pub file: &'static str,
    /// Whether it is an entry point.
    pub entry: bool,
    /// The stylesheets it needs, in order.
    pub styles: &'static [&'static str],
    /// The chunks it imports statically, directly or not, for `modulepreload`.
    pub preloads: &'static [&'static str],
}

/// The CSP hashes of one HTML file's inline scripts (`script_hashes = true`).
#[derive(Debug)]
pub struct ScriptHashes {
    /// The file's catalog path.
    pub path: &'static str,
    /// `'sha256-…'` of each inline script, in document order.
    pub hashes: &'static [&'static str],
}

/// A hashed file as a compression dictionary (RFC 9842): the pattern of URLs (catalog paths)
/// it serves as a dictionary for, and its deltas against the earlier versions kept.
#[derive(Debug)]
pub struct DictionaryInfo {
    /// The file's catalog path.
    pub path: &'static str,
    /// The catalog path pattern of its next versions (`assets/index-*.js`).
    pub pattern: &'static str,
    /// The request destination it is for (`script`, `style`), or `""`.
    pub destination: &'static str,
    /// Its deltas, smallest first.
    pub deltas: &'static [DeltaInfo],
}

/// A file compressed against an earlier version of it, made at build time.
#[derive(Debug)]
pub struct DeltaInfo {
    /// The SHA-256 of the dictionary (the earlier version): what `Available-Dictionary` names.
    pub dictionary: &'static [u8; 32],
    /// Its content coding (`dcz`).
    pub coding: &'static str,
    /// Its bytes, as sent (the coding's header included).
    pub bytes: &'static [u8],
    /// Its strong ETag.
    pub etag: &'static str,
}
