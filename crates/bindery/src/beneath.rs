//! Opening a file beneath a folder opened once (Unix): each name of the path is opened from the
//! descriptor of the one before with `openat(O_NOFOLLOW)`, so no link is followed and the
//! folder itself cannot be swapped for a link (or renamed away) under a running process; a file
//! with more than one hard link is refused (`O_NOFOLLOW` cannot see a hard link to a file
//! outside); each name must be spelled as its folder lists it, checked against a listing kept
//! per folder for as long as the folder is unchanged (its inode, modification and change
//! times), so a lookup costs a few system calls per name of its path, never a listing of a
//! folder that did not change. The overlay reads through this (overlay.rs).

use std::collections::{HashMap, HashSet};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};

use rustix::fs::{Mode, OFlags, openat};
use rustix::io::Errno;

const BASE: OFlags = OFlags::RDONLY
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOFOLLOW);

/// Opens `folder` (following links in the path given, once, at start) as the root to look
/// files up beneath.
pub(crate) fn open_root(folder: &Path) -> std::io::Result<OwnedFd> {
    Ok(openat(
        rustix::fs::CWD,
        folder,
        BASE.difference(OFlags::NOFOLLOW) | OFlags::DIRECTORY,
        Mode::empty(),
    )?)
}

/// Opens the file at `names` (each one path segment) beneath `root`, as the module docs say:
/// `Ok(None)` when a name is missing, a link or not a folder, the file is no regular file, has
/// other hard links, or is spelled otherwise than listed; an error when it may be there but
/// could not be opened.
pub(crate) fn open(root: BorrowedFd<'_>, names: &[&str]) -> std::io::Result<Option<std::fs::File>> {
    let Some((last, folders)) = names.split_last() else {
        return Ok(None);
    };
    let mut held: Option<OwnedFd> = None;
    for name in folders {
        let folder = held.as_ref().map_or(root, AsFd::as_fd);
        let next = match openat(folder, *name, BASE | OFlags::DIRECTORY, Mode::empty()) {
            Ok(next) => next,
            Err(error) => return missing_or_unreadable(error),
        };
        if !is_listed(folder, name) {
            return Ok(None);
        }
        held = Some(next);
    }
    let folder = held.as_ref().map_or(root, AsFd::as_fd);
    // Non-blocking, so a FIFO planted there cannot hang a request (it is then no regular file).
    let file = match openat(folder, *last, BASE | OFlags::NONBLOCK, Mode::empty()) {
        Ok(file) => file,
        Err(error) => return missing_or_unreadable(error),
    };
    let stat = rustix::fs::fstat(&file)?;
    let is_regular = rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file();
    if !is_regular || stat.st_nlink > 1 || !is_listed(folder, last) {
        return Ok(None);
    }
    Ok(Some(std::fs::File::from(file)))
}

/// An `openat` failure as [`open`] gives it: no such file (or a link, or not a folder there),
/// or an error.
fn missing_or_unreadable(error: Errno) -> std::io::Result<Option<std::fs::File>> {
    match error {
        Errno::NOENT | Errno::NOTDIR | Errno::LOOP | Errno::NAMETOOLONG | Errno::NXIO => Ok(None),
        _ => Err(error.into()),
    }
}

/// A folder's names, as of one state of the folder.
struct Listing {
    state: (i64, i64, i64, i64),
    names: HashSet<Box<[u8]>>,
}

/// Listings kept, by folder (device, inode); past this many, all are dropped and listed again.
const LISTINGS_KEPT: usize = 4096;

fn listings() -> std::sync::MutexGuard<'static, HashMap<(u64, u64), Listing>> {
    static LISTINGS: OnceLock<Mutex<HashMap<(u64, u64), Listing>>> = OnceLock::new();
    LISTINGS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Whether `folder` lists `name` byte for byte (a case-insensitive file system opens
/// `APP.JS.MAP` for `app.js.map`; a build's walk would only know the second).
// The casts are no-ops on Linux; `stat`'s field types differ between Unix systems.
#[allow(clippy::unnecessary_cast)]
fn is_listed(folder: BorrowedFd<'_>, name: &str) -> bool {
    let Ok(stat) = rustix::fs::fstat(folder) else {
        return false;
    };
    let key = (stat.st_dev as u64, stat.st_ino as u64);
    let state = (
        stat.st_mtime as i64,
        stat.st_mtime_nsec as i64,
        stat.st_ctime as i64,
        stat.st_ctime_nsec as i64,
    );
    if let Some(listing) = listings()
        .get(&key)
        .filter(|listing| listing.state == state)
    {
        return listing.names.contains(name.as_bytes());
    }
    let Some(names) = list(folder) else {
        return false;
    };
    let is_listed = names.contains(name.as_bytes());
    let mut listings = listings();
    if listings.len() >= LISTINGS_KEPT {
        listings.clear();
    }
    listings.insert(key, Listing { state, names });
    is_listed
}

/// Every name of `folder`.
fn list(folder: BorrowedFd<'_>) -> Option<HashSet<Box<[u8]>>> {
    let mut names = HashSet::new();
    let dir = rustix::fs::Dir::read_from(folder).ok()?;
    for entry in dir {
        let entry = entry.ok()?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.insert(Box::from(name));
        }
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use super::{open, open_root};

    fn opened(root: &std::os::fd::OwnedFd, names: &[&str]) -> &'static str {
        match open(root.as_fd(), names) {
            Ok(Some(_)) => "file",
            Ok(None) => "absent",
            Err(_) => "unreadable",
        }
    }

    #[test]
    fn the_root_opened_once_stays_the_folder_whatever_replaces_its_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let site = dir.path().join("site");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(site.join("css")).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(site.join("css/app.css"), "inside").expect("write");
        std::fs::write(outside.join("passwd"), "secret").expect("write");
        let root = open_root(&site).expect("root");
        assert_eq!(opened(&root, &["css", "app.css"]), "file");
        // The folder renamed away and a link to another put in its place: still the folder.
        std::fs::rename(&site, dir.path().join("moved")).expect("rename");
        std::os::unix::fs::symlink(&outside, &site).expect("link");
        assert_eq!(opened(&root, &["passwd"]), "absent");
        assert_eq!(opened(&root, &["css", "app.css"]), "file");
    }

    #[test]
    fn links_hard_links_fifos_and_other_spellings_are_no_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let site = dir.path().join("site");
        std::fs::create_dir_all(site.join("css")).expect("mkdir");
        std::fs::write(dir.path().join("secret"), "secret").expect("write");
        std::fs::write(site.join("app.js.map"), "{}").expect("write");
        std::os::unix::fs::symlink(dir.path().join("secret"), site.join("link")).expect("link");
        std::os::unix::fs::symlink(site.join("css"), site.join("folder-link")).expect("link");
        std::fs::hard_link(dir.path().join("secret"), site.join("hard")).expect("hard link");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            site.join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("fifo");
        let root = open_root(&site).expect("root");
        for names in [
            &["link"][..],
            &["folder-link", "x"],
            &["hard"],
            &["fifo"],
            &["APP.JS.MAP"],
            &["missing"],
            &["app.js.map", "x"],
        ] {
            assert_eq!(opened(&root, names), "absent", "{names:?}");
        }
        assert_eq!(opened(&root, &["app.js.map"]), "file");
    }

    #[test]
    fn a_name_added_after_a_listing_is_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "a").expect("write");
        let root = open_root(dir.path()).expect("root");
        assert_eq!(opened(&root, &["a.txt"]), "file");
        std::fs::write(dir.path().join("b.txt"), "b").expect("write");
        assert_eq!(opened(&root, &["b.txt"]), "file");
    }
}
