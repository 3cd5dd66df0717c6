//! One blob for a catalog's many small files: their bytes end to end, written once into the
//! cache and named by their hashes, so a rebuild that changed no file reads nothing.
//!
//! rustc pays for every `include_bytes!` in a catalog and for every reference an entry holds
//! (BENCHMARKS.md, "Build cost"); with a pack, the macro includes one file and each entry is a
//! name, two offsets and a reference to a `static` shared by the catalog.

use std::path::PathBuf;

/// Where a catalog's packed files are: the blob, and each packed entry's offset in it (by the
/// entry's index; `None` for files stored on their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    /// The blob in the cache.
    pub blob: PathBuf,
    /// The blob's length: the packed files' lengths added up.
    pub len: u64,
    /// Each entry's offset in the blob, if it is packed.
    pub offsets: Vec<Option<u64>>,
}
