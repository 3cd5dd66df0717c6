//! A folder as it is on disk now, read with a build's rules: dev mode's catalogs, and the
//! overlay ([`crate::overlay::Overlay`]) a release build may lay over its embedded files.
//!
//! Compiled with the `dev` feature in builds with debug assertions, where generated code gives
//! the catalog a [`DevSource`] (the folder and the build's include/exclude globs, `hidden` and
//! `modified` options), and with the `overlay` feature, where an [`Overlay`](crate::overlay::Overlay)
//! makes one at run time. Which files belong is decided by `bindery-core`'s [`Filter`]
//! and walk, the ones the build used; their metadata by its [`describe`] functions, so a file has
//! the same ETag, media type and `Content-Type` here as in a release build.
//!
//! The catalog's API hands out `&'static` files and slices. To keep that API unchanged, each
//! distinct version of a file (path and content) is read once and kept for the life of the
//! process; reads that find the same file unchanged (length, modification and change times,
//! inode) reuse it without reading the file again, and a file whose bytes are those of a version
//! already kept for its path gets that version back, whatever was served in between (an A, B, A
//! flip keeps two). A dev session therefore holds every distinct version of every file it
//! served: a few megabytes for a front-end's edit loop. An overlay bounds what it keeps
//! ([`Keep`]): past the bound, a new version is not kept and the path answers as if the folder
//! had no file there. Release builds without an overlay have none of this code.
//!
//! The folder is a jail: paths go through the catalog's key rules (no `..`, `.`, empty segments,
//! backslashes or NUL), hidden segments are refused unless the build embeds them, and a key
//! must be spelled exactly as the folder's entries are (`APP.JS.MAP` is not `app.js.map`, even
//! on a case-insensitive file system, where `realpath` keeps the spelling asked). Links are
//! read one of two ways ([`Reading::follow_links`]): dev mode, which mirrors a build, serves a
//! link inside the folder if the rules keep its target too (stricter than a build, which judges
//! a link by its own name and follows links out of the folder, which dev mode never does); an
//! overlay follows no link at all, so a link there, wherever it points, is no file. Either way
//! the file is opened from the folder down, one name at a time without following any link (on
//! Unix), and read from that descriptor: a folder swapped for a link between the check and the
//! read opens nothing.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use bindery_core::rules::Rules;
use bindery_core::scan::Filter;

#[cfg_attr(
    all(unix, not(all(feature = "dev", debug_assertions))),
    allow(unused_imports)
)]
use crate::EmbeddedFile;
use crate::layout::DevSource;
use crate::lookup;

mod jail;
mod versions;

#[cfg(feature = "overlay")]
pub(crate) use versions::Lookup;
use versions::{Opened, Versions, current};

/// The state of one catalog's folder: its rules, compiled, and the versions of files seen.
/// The rules never change once made; only the versions sit behind a lock, taken to look one
/// up or to add one, never while a file is opened, read or hashed.
struct Folder {
    /// The build's rules, read back from the text generated code holds.
    rules: Rules,
    /// `None` when the rules do not read or compile; they did when the catalog was built, so
    /// only a hand-edited module gets here, and its catalog is then empty.
    filter: Option<Filter>,
    /// The build's `types` rules, compiled (empty when they do not compile, as above).
    types: bindery_core::describe::MediaTypes,
    versions: Mutex<Versions>,
}

impl Folder {
    fn versions(&self) -> std::sync::MutexGuard<'_, Versions> {
        self.versions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
/// How a folder is read: how long a file may be, whether a link serves its target, and how many
/// versions are kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    /// Files longer than this are not read (they do not count).
    pub(crate) max_len: Option<u64>,
    /// Whether a link inside the folder serves its target when the rules keep it (dev mode,
    /// which mirrors a build), or is no file (an overlay).
    #[cfg_attr(
        not(any(all(feature = "dev", debug_assertions), not(unix))),
        allow(dead_code)
    )]
    pub(crate) follow_links: bool,
    /// What is kept at most.
    pub(crate) keep: Keep,
}

impl Reading {
    /// Dev mode: any length, links inside the folder followed, every version kept.
    #[cfg_attr(not(all(feature = "dev", debug_assertions)), allow(dead_code))]
    pub(crate) const DEV: Reading = Reading {
        max_len: None,
        follow_links: true,
        keep: Keep {
            versions_per_path: usize::MAX,
            bytes: u64::MAX,
        },
    };
}

/// The most a folder's state keeps: distinct versions of one path, and bytes of all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keep {
    pub(crate) versions_per_path: usize,
    pub(crate) bytes: u64,
}

/// What a folder read at run time holds: the versions kept (each for the life of the process),
/// their bytes, and how many new versions were refused for a bound.
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// let custom = tempfile::tempdir().unwrap();
/// std::fs::write(custom.path().join("hello.txt"), "overlay").unwrap();
/// let overlay = bindery::overlay::Overlay::new(&SITE, custom.path()).unwrap();
/// overlay.get("hello.txt").unwrap();
/// let held = overlay.held();
/// assert_eq!((held.versions, held.bytes, held.refused), (1, 7, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Held {
    /// Distinct versions kept, over every path.
    pub versions: usize,
    /// Their bytes.
    pub bytes: u64,
    /// New versions not kept because a bound was reached (each time one was read).
    pub refused: u64,
}

/// The catalog key of a dev source's state: where the source lives, and the catalog's prefix
/// (two catalogs may share identical sources, hence the prefix).
type Key = (usize, &'static str);

/// The state kept for a dev source, made the first time it is asked for. The lock over all
/// of them is held only to find or add one.
fn folder(source: &'static DevSource, prefix: &'static str) -> Arc<Folder> {
    static FOLDERS: OnceLock<Mutex<HashMap<Key, Arc<Folder>>>> = OnceLock::new();
    let mut folders = FOLDERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let key = (std::ptr::from_ref(source) as usize, prefix);
    let folder = folders.entry(key).or_insert_with(|| {
        let rules = Rules::parse(source.rules);
        let filter = rules
            .as_ref()
            .ok()
            .and_then(|rules| Filter::for_rules(rules, Path::new(source.root)).ok());
        let rules = rules.unwrap_or_default();
        let types = bindery_core::describe::MediaTypes::new(&rules.types).unwrap_or_default();
        Arc::new(Folder {
            rules,
            filter,
            types,
            versions: Mutex::default(),
        })
    });
    Arc::clone(folder)
}

#[cfg(any(all(feature = "dev", debug_assertions), not(unix)))]
/// The file at `path` as it is on disk now, if the build's rules would embed it, read as
/// `reading` says.
pub(crate) fn file(
    source: &'static DevSource,
    prefix: &'static str,
    path: &str,
    reading: Reading,
) -> Option<&'static EmbeddedFile> {
    let key = lookup::normalise(path)?;
    let relative = key.strip_prefix(prefix)?;
    let folder = folder(source, prefix);
    let filter = folder.filter.as_ref()?;
    if relative.is_empty() || !filter.keeps(relative) {
        return None;
    }
    let root = std::fs::canonicalize(source.root).ok()?;
    if folder.rules.siblings && jail::is_sibling(relative, &|base| root.join(base).is_file()) {
        return None;
    }
    let inside = if reading.follow_links {
        let disk = jail::jailed(&root, &root.join(relative))?;
        if !jail::is_found_as_asked(&root, relative, &disk, filter) {
            return None;
        }
        disk.strip_prefix(&root).ok()?.to_path_buf()
    } else {
        // No link followed: the key itself is opened name by name, each refused if a link.
        if !jail::is_spelled_as_listed(&root, relative) || !jail::is_link_free(&root, relative) {
            return None;
        }
        std::path::PathBuf::from(relative)
    };
    current(&folder, prefix, relative, reading, &|| {
        jail::open_beneath(&root, &inside).map_or(Opened::Absent, Opened::File)
    })
    .found()
}

/// The overlay's lookup: the file at `path` beneath `root` (the overlay's folder, opened once
/// at start), in its sub-folder `below` for this source, if the build's rules would embed it;
/// each name opened from the one before, no link followed (beneath.rs).
#[cfg(all(unix, feature = "overlay"))]
pub(crate) fn file_beneath(
    root: std::os::fd::BorrowedFd<'_>,
    below: &str,
    source: &'static DevSource,
    prefix: &'static str,
    path: &str,
    reading: Reading,
) -> Lookup {
    let Some(relative) = lookup::normalise(path).and_then(|key| key.strip_prefix(prefix)) else {
        return Lookup::Absent;
    };
    let folder = folder(source, prefix);
    let Some(filter) = folder.filter.as_ref() else {
        return Lookup::Absent;
    };
    if relative.is_empty() || !filter.keeps(relative) {
        return Lookup::Absent;
    }
    let names_of = |relative: &'_ str| -> Vec<String> {
        below
            .split('/')
            .chain(relative.split('/'))
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let open = |relative: &str| {
        let names = names_of(relative);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        match crate::beneath::open(root, &names) {
            Ok(Some(file)) => Opened::File(file),
            Ok(None) => Opened::Absent,
            Err(_) => Opened::Unreadable,
        }
    };
    if folder.rules.siblings
        && jail::is_sibling(relative, &|base| matches!(open(base), Opened::File(_)))
    {
        return Lookup::Absent;
    }
    current(&folder, prefix, relative, reading, &|| open(relative))
}

/// What the folder's state holds now (nothing when it was never read).
#[cfg(feature = "overlay")]
pub(crate) fn held(source: &'static DevSource, prefix: &'static str) -> Held {
    folder(source, prefix).versions().held
}

/// Every file the build's rules would embed from the folder as it is now, sorted by path.
/// Entries a build would refuse (a dangling link, a name that is not UTF-8...) are left out.
#[cfg(all(feature = "dev", debug_assertions))]
pub(crate) fn files(source: &'static DevSource, prefix: &'static str) -> &'static [EmbeddedFile] {
    let folder = folder(source, prefix);
    let (Some(filter), Ok(root)) = (&folder.filter, std::fs::canonicalize(source.root)) else {
        return &[][..];
    };
    let mut listing = Vec::new();
    let found_files = bindery_core::scan::scan_skipping(&root, filter, &mut |_| {});
    let names: std::collections::HashSet<&str> = found_files
        .iter()
        .map(|found| found.relative.as_str())
        .collect();
    for found in &found_files {
        if folder.rules.siblings && jail::is_sibling(&found.relative, &|base| names.contains(base))
        {
            continue;
        }
        let Some(disk) = jail::jailed(&root, &found.source) else {
            continue;
        };
        if !jail::is_found_as_asked(&root, &found.relative, &disk, filter) {
            continue;
        }
        let Some(inside) = disk.strip_prefix(&root).ok() else {
            continue;
        };
        if let Some(file) = current(&folder, prefix, &found.relative, Reading::DEV, &|| {
            jail::open_beneath(&root, inside).map_or(Opened::Absent, Opened::File)
        })
        .found()
        {
            listing.push(*file);
        }
    }
    let mut versions = folder.versions();
    let is_unchanged = listing.len() == versions.listing.len()
        && listing.iter().zip(versions.listing).all(|(new, old)| {
            new.__name == old.__name && new.__info.modified == old.__info.modified
        });
    if !is_unchanged {
        versions.listing = Vec::leak(listing);
    }
    versions.listing
}

/// The files of a catalog of several folders as they are now, in one path order: each folder's
/// listing ([`files`]), merged; of two files with one path the first folder's is kept (a build
/// refuses such a catalog). The merged listing is kept while every folder's stays the same.
#[cfg(all(feature = "dev", debug_assertions))]
pub(crate) fn merged(sources: &'static [DevSource]) -> &'static [EmbeddedFile] {
    /// Each folder's listing (address, length) and the merged listing made from them.
    type Merged = (Vec<(usize, usize)>, &'static [EmbeddedFile]);
    static MERGED: OnceLock<Mutex<HashMap<usize, Merged>>> = OnceLock::new();
    let listings: Vec<&'static [EmbeddedFile]> = sources
        .iter()
        .map(|source| files(source, source.prefix))
        .collect();
    let identity: Vec<(usize, usize)> = listings
        .iter()
        .map(|listing| (listing.as_ptr() as usize, listing.len()))
        .collect();
    let mut merged = MERGED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let kept = merged.entry(sources.as_ptr() as usize).or_default();
    if kept.0 != identity || kept.1.is_empty() {
        let mut all: Vec<EmbeddedFile> = listings
            .iter()
            .flat_map(|listing| listing.iter().copied())
            .collect();
        // Stable: the first folder's file stays ahead of a later one's of the same path.
        all.sort_by(|left, right| left.path().cmp(right.path()));
        all.dedup_by(|later, earlier| later.path() == earlier.path());
        *kept = (identity, Vec::leak(all));
    }
    kept.1
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bindery_core::scan::Filter;

    use super::jail::{is_found_as_asked, open_beneath};

    #[test]
    fn a_key_spelled_otherwise_than_the_folder_is_not_found_even_if_the_disk_says_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("root");
        std::fs::write(root.join("app.js.map"), "{}").expect("write");
        let filter = Filter::new(&[], &["**/*.map".to_owned()], false).expect("rules");
        // What a case-insensitive file system's realpath gives: the spelling asked.
        let asked = root.join("APP.JS.MAP");
        assert!(
            filter.keeps("APP.JS.MAP"),
            "the exclude glob does not see it"
        );
        assert!(!is_found_as_asked(&root, "APP.JS.MAP", &asked, &filter));
        assert!(is_found_as_asked(
            &root,
            "app.js.map",
            &root.join("app.js.map"),
            &Filter::new(&[], &[], false).expect("rules")
        ));
    }

    #[cfg(unix)]
    #[test]
    fn opening_beneath_the_folder_follows_no_link_swapped_in() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("site");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("css")).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(root.join("css/app.css"), "inside").expect("write");
        std::fs::write(outside.join("app.css"), "secret").expect("write");
        assert!(open_beneath(&root, Path::new("css/app.css")).is_some());
        // The folder checked a moment ago is now a link out: nothing is opened.
        std::fs::rename(root.join("css"), dir.path().join("old-css")).expect("rename");
        std::os::unix::fs::symlink(&outside, root.join("css")).expect("link");
        assert!(open_beneath(&root, Path::new("css/app.css")).is_none());
        // And a file swapped for a link to one outside.
        std::os::unix::fs::symlink(outside.join("app.css"), root.join("page.css")).expect("link");
        assert!(open_beneath(&root, Path::new("page.css")).is_none());
    }
}
