//! The versions of a folder's files kept so far: each distinct version read once and kept for
//! the process's life, a file unchanged on disk (by its [`Stamp`]) reused without a read.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use bindery_core::describe;
use bindery_core::rules::Modified;

use super::{Folder, Held, Keep, Reading};
use crate::EmbeddedFile;

/// What a folder has handed out so far.
#[derive(Default)]
pub(super) struct Versions {
    pub(super) seen: HashMap<String, PathVersions>,
    pub(super) held: Held,
    /// The last listing handed out, kept while the folder's listing stays the same (dev mode
    /// lists; an overlay only looks files up).
    #[cfg_attr(not(all(feature = "dev", debug_assertions)), allow(dead_code))]
    pub(super) listing: &'static [EmbeddedFile],
}

/// The versions of one path kept so far, and which was last read with what disk metadata.
#[derive(Default)]
pub(super) struct PathVersions {
    pub(super) last: Option<(Stamp, &'static EmbeddedFile)>,
    pub(super) kept: Vec<KeptVersion>,
}

/// One version kept: what its bytes hash to and the date it carries.
pub(super) struct KeptVersion {
    pub(super) hash: String,
    pub(super) modified: Option<u64>,
    pub(super) file: &'static EmbeddedFile,
}

/// What tells, without reading a file, that it may have changed: its length and times, and on
/// Unix its inode and change time (a file renamed over another is another inode; a write, even
/// one that sets the old modification time back, moves the change time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) len: u64,
    pub(super) modified: Option<SystemTime>,
    #[cfg(unix)]
    pub(super) identity: (u64, u64, i64, i64),
}

/// How many times a file that changed while it was read is read again before giving up.
pub(super) const READ_ATTEMPTS: usize = 3;

/// What opening a file gave.
#[derive(Debug)]
pub(crate) enum Opened {
    /// The regular file, open for reading.
    File(std::fs::File),
    /// No such file (or one that does not count: a link, another spelling, not a regular file).
    Absent,
    /// The file may be there but could not be opened.
    #[cfg_attr(not(all(unix, feature = "overlay")), allow(dead_code))]
    Unreadable,
}

/// What a folder has at a path now.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lookup {
    /// This version of the file.
    Found(&'static EmbeddedFile),
    /// No file there that counts.
    Absent,
    /// A file there that could not be served: unreadable, changing while read, longer than
    /// allowed, or a new version past what is kept.
    Unreadable,
}

impl Lookup {
    /// The file found, if one was.
    pub(crate) fn found(self) -> Option<&'static EmbeddedFile> {
        match self {
            Lookup::Found(file) => Some(file),
            Lookup::Absent | Lookup::Unreadable => None,
        }
    }
}

/// The current version of one file, read from a descriptor `open` gives: the one read last
/// when the file is unchanged ([`Stamp`]), the one kept before when its content is, else a
/// new one, if the bounds allow it. A file that changed while it was read (another stamp after
/// the read than before, or fewer or more bytes than its length) is opened and read again, a
/// few times; then [`Lookup::Unreadable`], never bytes that were no version of the file. A file
/// longer than `reading.max_len` is not read.
pub(super) fn current(
    folder: &Folder,
    prefix: &str,
    relative: &str,
    reading: Reading,
    open: &dyn Fn() -> Opened,
) -> Lookup {
    for _ in 0..READ_ATTEMPTS {
        let opened = match open() {
            Opened::File(file) => file,
            Opened::Absent => return Lookup::Absent,
            Opened::Unreadable => return Lookup::Unreadable,
        };
        let Some(stamp) = stamp_of(&opened) else {
            return Lookup::Absent;
        };
        if reading.max_len.is_some_and(|max| stamp.len > max) {
            return Lookup::Unreadable;
        }
        let known = folder
            .versions()
            .seen
            .get(relative)
            .and_then(|versions| versions.last)
            .filter(|(seen, _)| *seen == stamp)
            .map(|(_, file)| file);
        if let Some(known) = known {
            return Lookup::Found(known);
        }
        if let Some(bytes) = read_whole(opened, stamp) {
            return match remember(folder, prefix, relative, stamp, bytes, reading.keep) {
                Some(file) => Lookup::Found(file),
                None => Lookup::Unreadable,
            };
        }
    }
    Lookup::Unreadable
}

/// What a descriptor's metadata says now, if it is a regular file.
pub(super) fn stamp_of(opened: &std::fs::File) -> Option<Stamp> {
    let metadata = opened.metadata().ok()?;
    #[cfg(unix)]
    let identity = {
        use std::os::unix::fs::MetadataExt;
        (
            metadata.dev(),
            metadata.ino(),
            metadata.ctime(),
            metadata.ctime_nsec(),
        )
    };
    metadata.is_file().then(|| Stamp {
        len: metadata.len(),
        modified: metadata.modified().ok(),
        #[cfg(unix)]
        identity,
    })
}

/// The whole file, if it is still what `stamp` says once read: exactly `stamp.len` bytes, and
/// the same length and time after the read. A file replaced by rename while it was read is
/// still whole: its inode, now unlinked, only had its change time moved by the unlink (same
/// length and modification time, no link left), so those bytes are the version that was there.
pub(super) fn read_whole(mut opened: std::fs::File, stamp: Stamp) -> Option<Vec<u8>> {
    use std::io::Read;
    let len = usize::try_from(stamp.len).ok()?;
    let mut bytes = Vec::with_capacity(len);
    opened
        .by_ref()
        .take(stamp.len.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    let after = stamp_of(&opened)?;
    let whole = after == stamp || unlinked_only(&opened, &stamp, &after);
    (bytes.len() == len && whole).then_some(bytes)
}

/// Whether the file changed only by losing its last name (renamed over, or deleted) since
/// `before`: the same inode, length and modification time, and no link left.
#[cfg(unix)]
fn unlinked_only(opened: &std::fs::File, before: &Stamp, after: &Stamp) -> bool {
    use std::os::unix::fs::MetadataExt;
    let same_inode = (before.identity.0, before.identity.1) == (after.identity.0, after.identity.1);
    same_inode
        && before.len == after.len
        && before.modified == after.modified
        && opened
            .metadata()
            .is_ok_and(|metadata| metadata.nlink() == 0)
}

#[cfg(not(unix))]
fn unlinked_only(_opened: &std::fs::File, _before: &Stamp, _after: &Stamp) -> bool {
    false
}

/// The version `bytes` make: one kept before for this path when its content and date are the
/// same, else a new one, kept if `keep` allows (else `None`, counted as refused). Hashed
/// before the lock is taken: two requests that read one new version at once both hash it, and
/// the second finds the first's version and hands that out.
pub(super) fn remember(
    folder: &Folder,
    prefix: &str,
    relative: &str,
    stamp: Stamp,
    bytes: Vec<u8>,
    keep: Keep,
) -> Option<&'static EmbeddedFile> {
    let rules = &folder.rules;
    let digests = describe::digests(&bytes, rules.integrity);
    let hash = digests.hash.clone();
    let modified = rules.date.or_else(|| {
        (rules.modified == Modified::Files)
            .then(|| stamp.modified?.duration_since(UNIX_EPOCH).ok())
            .flatten()
            .map(|since| since.as_secs())
    });
    let mut versions = folder.versions();
    let Versions { seen, held, .. } = &mut *versions;
    let path = seen.entry(relative.to_owned()).or_default();
    if let Some(known) = path
        .kept
        .iter()
        .find(|known| known.hash == hash && known.modified == modified)
    {
        path.last = Some((stamp, known.file));
        return Some(known.file);
    }
    let len = bytes.len() as u64;
    if path.kept.len() >= keep.versions_per_path || held.bytes.saturating_add(len) > keep.bytes {
        held.refused += 1;
        return None;
    }
    let catalog_path = format!("{prefix}{relative}");
    let mime = match folder.types.of(&catalog_path) {
        Some(chosen) => String::leak(chosen.to_owned()),
        None => describe::mime(relative),
    };
    let file = version(prefix, relative, bytes, digests, modified, mime);
    path.kept.push(KeptVersion {
        hash,
        modified,
        file,
    });
    path.last = Some((stamp, file));
    held.versions += 1;
    held.bytes += len;
    Some(file)
}

/// A new version of a file, kept for the life of the process (see the module docs).
pub(super) fn version(
    prefix: &str,
    relative: &str,
    bytes: Vec<u8>,
    digests: describe::Digests,
    modified: Option<u64>,
    mime: &'static str,
) -> &'static EmbeddedFile {
    let info = Box::leak(Box::new(crate::layout::Info {
        modified,
        ..crate::layout::Info::plain(
            Vec::leak(bytes),
            mime,
            String::leak(describe::content_type(mime)),
        )
    }));
    Box::leak(Box::new(EmbeddedFile {
        __name: String::leak(format!(
            "{prefix}{relative}{}",
            bindery_core::etag(&digests.hash, bindery_core::Tagged::File)
        )),
        __start: 0,
        __len: info.data.len(),
        __info: info,
        __sha256: digests.sha256.map(|sha256| &*Box::leak(Box::new(sha256))),
        __integrity: digests.integrity.map(|integrity| &*String::leak(integrity)),
    }))
}
