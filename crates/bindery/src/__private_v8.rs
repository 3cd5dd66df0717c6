//! What generated code calls: the runtime's side of the generated-code contract, and nothing
//! else. A facade, as thiserror's private module is: it re-exports the shapes generated code
//! fills in (layout.rs) and holds the const constructors that check a generated table while
//! compiling. Not a public API; its name carries the contract version (`facts::contract::CONTRACT`),
//! which changes whenever this module, the hidden fields of `EmbeddedFile` or the arguments of
//! the macros generated code calls do (ARCHITECTURE.md, "The generated-code contract").

use crate::facts::contract::ETAG_LEN;
pub use crate::layout::{
    BundleInfo, ChunkInfo, DeltaInfo, DevSource, DictionaryInfo, Encoded, Info, ScriptHashes,
};
use crate::lookup::compare_bytes;
use crate::{Catalog, EmbeddedFile, Mode};

/// Constructors of [`Info`], for generated tables.
impl Info {
    /// A file stored as it is, with no variants and no time.
    pub const fn plain(
        data: &'static [u8],
        mime: &'static str,
        content_type: &'static str,
    ) -> Info {
        Info::dated(data, mime, content_type, None)
    }

    /// A file stored as it is, with no variants, and the catalog's one date (`modified =
    /// "source-date-epoch"`) or none.
    pub const fn dated(
        data: &'static [u8],
        mime: &'static str,
        content_type: &'static str,
        modified: Option<u64>,
    ) -> Info {
        Info {
            data,
            mime,
            content_type,
            len: None,
            gzip_etag: None,
            variants: &[],
            modified,
        }
    }
}

/// Checks an entry of a generated module, which a person may have edited and whose files may
/// have changed since: its name ends with an ETag, and it stores exactly its own blob (modules
/// are never packed), so a file that grew or shrank after generation fails the build instead
/// of being served cut or padded.
const fn check_entry(file: &EmbeddedFile) {
    let name = file.__name.as_bytes();
    assert!(
        name.len() >= ETAG_LEN
            && name[name.len() - ETAG_LEN] == b'"'
            && name[name.len() - 1] == b'"',
        "bindery: a catalog entry's name does not end with its ETag; regenerate the catalog"
    );
    assert!(
        file.__start == 0 && file.__len == file.__info.data.len(),
        "bindery: a file's bytes do not match its recorded length; regenerate the catalog"
    );
}

/// Builds a catalog whose paths the `embed!` macro has just sorted: no check while compiling
/// (checking thousands of paths in the const evaluator costs rustc measurably on every rebuild;
/// BENCHMARKS.md, "Build cost").
#[expect(
    clippy::too_many_arguments,
    reason = "generated code passes each table it emitted as its own const"
)]
pub const fn sorted_catalog(
    mode: Mode,
    prefix: &'static str,
    dev: &'static [DevSource],
    files: &'static [EmbeddedFile],
    urls: &'static [&'static str],
    by_url: &'static [u32],
    bundle: &'static BundleInfo,
    scripts: &'static [ScriptHashes],
) -> Catalog {
    Catalog {
        mode,
        prefix,
        files,
        dev,
        urls,
        by_url,
        bundle,
        scripts,
        missing: "",
    }
}

/// `catalog`, made while a folder of it was missing (`allow_missing = true`), with what that
/// folder's error says: a debug build's `ServeCatalog` answers every miss with it.
pub const fn missing(mut catalog: Catalog, note: &'static str) -> Catalog {
    catalog.missing = note;
    catalog
}

/// Builds a catalog from a generated module, which a person may have edited. Paths must be
/// strictly increasing (lookups binary-search them): checked while compiling, so an
/// out-of-order table can never ship.
#[expect(
    clippy::too_many_arguments,
    reason = "generated code passes each table it emitted as its own const"
)]
pub const fn catalog(
    mode: Mode,
    prefix: &'static str,
    dev: &'static [DevSource],
    files: &'static [EmbeddedFile],
    urls: &'static [&'static str],
    by_url: &'static [u32],
    bundle: &'static BundleInfo,
    scripts: &'static [ScriptHashes],
) -> Catalog {
    let mut index = 0;
    while index < files.len() {
        check_entry(&files[index]);
        if index > 0 {
            assert!(
                is_less(
                    files[index - 1].const_path().as_bytes(),
                    files[index].const_path().as_bytes()
                ),
                "bindery: catalog paths are not sorted and unique; regenerate the catalog"
            );
        }
        index += 1;
    }
    assert!(
        (urls.is_empty() || urls.len() == files.len()) && by_url.len() <= urls.len(),
        "bindery: the fingerprint tables do not match the files; regenerate the catalog"
    );
    let mut slot = 0;
    while slot < by_url.len() {
        assert!(
            (by_url[slot] as usize) < files.len()
                && (slot == 0
                    || is_less(
                        urls[by_url[slot - 1] as usize].as_bytes(),
                        urls[by_url[slot] as usize].as_bytes()
                    )),
            "bindery: fingerprinted paths are not sorted and unique; regenerate the catalog"
        );
        slot += 1;
    }
    check_bundle(bundle);
    let mut slot = 1;
    while slot < scripts.len() {
        assert!(
            is_less(
                scripts[slot - 1].path.as_bytes(),
                scripts[slot].path.as_bytes()
            ),
            "bindery: the script hashes are not sorted by path; regenerate the catalog"
        );
        slot += 1;
    }
    sorted_catalog(mode, prefix, dev, files, urls, by_url, bundle, scripts)
}

/// Checks a generated module's bundle tables: chunks sorted by name, paths sorted and unique
/// (looked up by binary search).
const fn check_bundle(bundle: &BundleInfo) {
    let mut index = 1;
    while index < bundle.chunks.len() {
        assert!(
            is_less(
                bundle.chunks[index - 1].name.as_bytes(),
                bundle.chunks[index].name.as_bytes()
            ),
            "bindery: the bundle's chunks are not sorted and unique; regenerate the catalog"
        );
        index += 1;
    }
    assert!(
        is_sorted(bundle.scripts) && is_sorted(bundle.hashed) && is_sorted(bundle.kept),
        "bindery: the bundle's paths are not sorted and unique; regenerate the catalog"
    );
    let mut index = 1;
    while index < bundle.dictionaries.len() {
        assert!(
            is_less(
                bundle.dictionaries[index - 1].path.as_bytes(),
                bundle.dictionaries[index].path.as_bytes()
            ),
            "bindery: the dictionaries are not sorted by path; regenerate the catalog"
        );
        index += 1;
    }
}

const fn is_sorted(paths: &[&str]) -> bool {
    let mut index = 1;
    while index < paths.len() {
        if !is_less(paths[index - 1].as_bytes(), paths[index].as_bytes()) {
            return false;
        }
        index += 1;
    }
    true
}

const fn is_less(left: &[u8], right: &[u8]) -> bool {
    matches!(compare_bytes(left, right), std::cmp::Ordering::Less)
}
