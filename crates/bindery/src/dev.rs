//! Dev mode: a catalog that reflects its folder as it is on disk now, with the build's rules.
//!
//! Compiled only with the `dev` feature in builds with debug assertions, where generated code
//! gives the catalog a [`DevSource`] (the folder and the build's include/exclude globs, `hidden`
//! and `modified` options). Which files belong is decided by `bindery-core`'s [`Filter`]
//! and walk, the ones the build used; their metadata by its [`describe`] functions, so a file has
//! the same ETag, media type and `Content-Type` here as in a release build.
//!
//! The catalog's API hands out `&'static` files and slices. To keep that API unchanged, each
//! distinct version of a file (path and content) is read once and kept for the life of the
//! process; reads that find the same length and modification time reuse it without reading the
//! file again, and a file saved with unchanged content keeps its version. A dev session therefore
//! holds every version of every file it served: a few megabytes for a front-end's edit loop.
//! Release builds have none of this code.
//!
//! The folder is a jail: paths go through the catalog's key rules (no `..`, `.`, empty segments,
//! backslashes or NUL), hidden segments are refused unless the build embeds them, and a file
//! whose real path (symlinks resolved) is outside the folder is never read, although a build
//! follows such links. The rules decide on the file found as well as on the key asked: a key
//! spelled otherwise than the folder's entries (`APP.JS.MAP` on a case-insensitive file system)
//! is not found, and a link inside the folder serves its target only if the rules keep the
//! target too (stricter than a build, which judges a link by its own name).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use bindery_core::describe;
use bindery_core::scan::{self, Filter};

use crate::__private_v2::DevSource;
use crate::EmbeddedFile;
use crate::lookup;

/// The state of one catalog's folder: its compiled rules and the versions of files seen.
struct Folder {
    /// `None` when the rules do not compile; they did when the catalog was built, so only a
    /// hand-edited module gets here, and its catalog is then empty.
    filter: Option<Filter>,
    seen: HashMap<String, Seen>,
    /// The last listing handed out, kept while the folder's listing stays the same.
    listing: &'static [EmbeddedFile],
}

/// The version of a file last read, and what its disk metadata was then.
struct Seen {
    stamp: Stamp,
    hash: String,
    file: &'static EmbeddedFile,
}

/// What tells, without reading a file, that it may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

/// The catalog key of a dev source's state: where the source lives, and the catalog's prefix
/// (two catalogs may share identical sources, hence the prefix).
type Key = (usize, &'static str);

fn with_folder<R>(
    source: &'static DevSource,
    prefix: &'static str,
    work: impl FnOnce(&mut Folder) -> R,
) -> R {
    static FOLDERS: OnceLock<Mutex<HashMap<Key, Folder>>> = OnceLock::new();
    let mut folders = FOLDERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let key = (std::ptr::from_ref(source) as usize, prefix);
    let folder = folders.entry(key).or_insert_with(|| Folder {
        filter: Filter::new(
            &owned(source.include),
            &owned(source.exclude),
            source.include_hidden,
        )
        .ok()
        .map(|filter| {
            if source.gitignore {
                filter.gitignore(Path::new(source.root))
            } else {
                filter
            }
        }),
        seen: HashMap::new(),
        listing: &[],
    });
    work(folder)
}

fn owned(globs: &[&str]) -> Vec<String> {
    globs.iter().map(|glob| (*glob).to_owned()).collect()
}

/// The file at `path` as it is on disk now, if the build's rules would embed it.
pub(crate) fn file(
    source: &'static DevSource,
    prefix: &'static str,
    path: &str,
) -> Option<&'static EmbeddedFile> {
    let key = lookup::normalise(path)?;
    let relative = key.strip_prefix(prefix)?;
    with_folder(source, prefix, |folder| {
        let filter = folder.filter.as_ref()?;
        if relative.is_empty() || !filter.keeps(relative) {
            return None;
        }
        let root = std::fs::canonicalize(source.root).ok()?;
        if source.siblings && is_sibling(relative, &|base| root.join(base).is_file()) {
            return None;
        }
        let disk = jailed(&root, &root.join(relative))?;
        if !is_found_as_asked(&root, relative, &disk, filter) {
            return None;
        }
        current(&mut folder.seen, source, prefix, relative, &disk)
    })
}

/// Whether the file found on disk (`disk`, its real path) is the one the rules kept under the
/// key asked for (`relative`): decided on what was found, not only on the string asked.
///
/// When the real path relative to the folder differs from the key, the key either went through
/// a link inside the folder, or names the file in another spelling that the file system accepts
/// (`APP.JS.MAP` for `app.js.map` on a case-insensitive one, another Unicode normalisation).
/// Then the key must be spelled exactly as the folder's entries are, as a build's walk lists
/// them, and the rules must keep the file found too: a link never serves an excluded or hidden
/// file under an innocent name.
fn is_found_as_asked(root: &Path, relative: &str, disk: &Path, filter: &Filter) -> bool {
    let Some(found) = disk.strip_prefix(root).ok().and_then(Path::to_str) else {
        return false;
    };
    found == relative || (filter.keeps(found) && is_spelled_as_listed(root, relative))
}

/// Whether each segment of `relative` is, byte for byte, the name of an entry of its folder.
fn is_spelled_as_listed(root: &Path, relative: &str) -> bool {
    let mut folder = root.to_path_buf();
    for segment in relative.split('/') {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return false;
        };
        let listed = entries
            .flatten()
            .any(|entry| entry.file_name().as_encoded_bytes() == segment.as_bytes());
        if !listed {
            return false;
        }
        folder.push(segment);
    }
    true
}

/// Whether `relative` is a precompressed sibling (`app.js.br` beside `app.js`), which a catalog
/// built with `precompressed = "siblings"` does not list.
fn is_sibling(relative: &str, exists: &dyn Fn(&str) -> bool) -> bool {
    crate::Encoding::ALL.into_iter().any(|encoding| {
        relative
            .strip_suffix(encoding.extension())
            .and_then(|rest| rest.strip_suffix('.'))
            .is_some_and(exists)
    })
}

/// Every file the build's rules would embed from the folder as it is now, sorted by path.
/// Entries a build would refuse (a dangling link, a name that is not UTF-8...) are left out.
pub(crate) fn files(source: &'static DevSource, prefix: &'static str) -> &'static [EmbeddedFile] {
    with_folder(source, prefix, |folder| {
        let (Some(filter), Ok(root)) = (&folder.filter, std::fs::canonicalize(source.root)) else {
            return &[][..];
        };
        let mut listing = Vec::new();
        let found_files = scan::scan_skipping(&root, filter, &mut |_| {});
        let names: std::collections::HashSet<&str> = found_files
            .iter()
            .map(|found| found.relative.as_str())
            .collect();
        for found in &found_files {
            if source.siblings && is_sibling(&found.relative, &|base| names.contains(base)) {
                continue;
            }
            let Some(disk) = jailed(&root, &found.source) else {
                continue;
            };
            if !is_found_as_asked(&root, &found.relative, &disk, filter) {
                continue;
            }
            if let Some(file) = current(&mut folder.seen, source, prefix, &found.relative, &disk) {
                listing.push(*file);
            }
        }
        let is_unchanged = listing.len() == folder.listing.len()
            && listing.iter().zip(folder.listing).all(|(new, old)| {
                new.__name == old.__name && new.__info.modified == old.__info.modified
            });
        if !is_unchanged {
            folder.listing = Vec::leak(listing);
        }
        folder.listing
    })
}

/// `path` with symlinks resolved, if that lies inside `root` (itself resolved).
fn jailed(root: &Path, path: &Path) -> Option<PathBuf> {
    let resolved = std::fs::canonicalize(path).ok()?;
    resolved.starts_with(root).then_some(resolved)
}

/// The current version of one file: the one seen before when its length and modification time
/// are unchanged (or its content is), else a new one read from `disk`.
fn current(
    seen: &mut HashMap<String, Seen>,
    source: &DevSource,
    prefix: &str,
    relative: &str,
    disk: &Path,
) -> Option<&'static EmbeddedFile> {
    let metadata = std::fs::metadata(disk).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let stamp = Stamp {
        len: metadata.len(),
        modified: metadata.modified().ok(),
    };
    if let Some(known) = seen.get(relative).filter(|known| known.stamp == stamp) {
        return Some(known.file);
    }
    let bytes = std::fs::read(disk).ok()?;
    let digests = describe::digests(&bytes, source.integrity);
    let hash = digests.hash.clone();
    let modified = source.date.or_else(|| {
        source
            .modified
            .then(|| stamp.modified?.duration_since(UNIX_EPOCH).ok())
            .flatten()
            .map(|since| since.as_secs())
    });
    if let Some(known) = seen.get_mut(relative) {
        if known.hash == hash && known.file.__info.modified == modified {
            known.stamp = stamp;
            return Some(known.file);
        }
    }
    let file = version(prefix, relative, bytes, digests, modified);
    seen.insert(relative.to_owned(), Seen { stamp, hash, file });
    Some(file)
}

/// A new version of a file, kept for the life of the process (see the module docs).
fn version(
    prefix: &str,
    relative: &str,
    bytes: Vec<u8>,
    digests: describe::Digests,
    modified: Option<u64>,
) -> &'static EmbeddedFile {
    let mime = describe::mime(relative);
    let info = Box::leak(Box::new(crate::__private_v2::Info {
        modified,
        ..crate::__private_v2::Info::plain(
            Vec::leak(bytes),
            mime,
            String::leak(describe::content_type(mime)),
        )
    }));
    Box::leak(Box::new(EmbeddedFile {
        __name: String::leak(format!(
            "{prefix}{relative}{}",
            describe::etag(&digests.hash)
        )),
        __start: 0,
        __len: info.data.len(),
        __info: info,
        __sha256: Box::leak(Box::new(digests.sha256)),
        __integrity: String::leak(digests.integrity),
    }))
}
