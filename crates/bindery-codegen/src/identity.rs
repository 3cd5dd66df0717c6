//! What identifies one version of a file without reading it: its length, modification and change
//! times and inode. The change time cannot be set by a program (writing, renaming or touching a
//! file moves it), so an equal identity means nobody wrote the file since it was taken.

use std::fs::Metadata;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One version of a file, as `stat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Identity {
    pub(crate) len: u64,
    pub(crate) modified_ns: u128,
    pub(crate) changed_ns: i128,
    pub(crate) inode: u64,
}

impl Identity {
    /// The identity in `metadata`; `None` where the platform gives no modification time.
    pub(crate) fn of(metadata: &Metadata) -> Option<Identity> {
        let modified_ns = metadata
            .modified()
            .ok()?
            .duration_since(UNIX_EPOCH)
            .ok()?
            .as_nanos();
        #[cfg(unix)]
        let (changed_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
                metadata.ino(),
            )
        };
        #[cfg(not(unix))]
        let (changed_ns, inode) = (0, 0);
        Some(Identity {
            len: metadata.len(),
            modified_ns,
            changed_ns,
            inode,
        })
    }

    /// The identity of the file at `path` now (symlinks followed).
    pub(crate) fn at(path: &Path) -> Option<Identity> {
        std::fs::metadata(path).ok().as_ref().and_then(Identity::of)
    }

    /// Whether the file changed recently enough that a same-size write could hide in the
    /// timestamps' granularity (git's "racily clean" entries).
    pub(crate) fn is_racy(&self) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_nanos();
        let newest = self
            .modified_ns
            .max(u128::try_from(self.changed_ns).unwrap_or(0));
        now.saturating_sub(newest) < Duration::from_secs(2).as_nanos()
    }

    /// The four numbers, tab-separated, as the cache's text files record them.
    pub(crate) fn to_fields(self) -> String {
        format!(
            "{}\t{}\t{}\t{}",
            self.len, self.modified_ns, self.changed_ns, self.inode
        )
    }

    /// Reads what [`to_fields`](Self::to_fields) wrote from the next four fields.
    pub(crate) fn from_fields<'a>(fields: &mut impl Iterator<Item = &'a str>) -> Option<Identity> {
        Some(Identity {
            len: fields.next()?.parse().ok()?,
            modified_ns: fields.next()?.parse().ok()?,
            changed_ns: fields.next()?.parse().ok()?,
            inode: fields.next()?.parse().ok()?,
        })
    }
}
