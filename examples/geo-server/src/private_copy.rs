//! A private copy of the database file for the mmap mode, made at load time from one descriptor,
//! so that whatever happens to the file at `--geodb` afterwards (`truncate`, `cp new live`,
//! `curl -o`, `rsync --inplace`) never reaches the pages being read: a map of a file that
//! shrinks faults with SIGBUS and kills the process.
//!
//! The copy is page cache, not heap: an unnamed file (`O_TMPFILE`) in the database's own
//! directory, which no other process can open by name and whose clean pages the kernel may drop
//! and read back like any file's (on btrfs and XFS `copy_file_range` shares the extents, so the
//! copy costs almost nothing); or, where that directory takes no such file (read-only, or a file
//! system without `O_TMPFILE`), a sealed `memfd` that nobody, not even through `/proc`, can
//! shrink or write, at the cost of being memory that only swap can reclaim.

use std::fs::File;
use std::io;
use std::path::Path;

/// Where the mmap mode's bytes are mapped from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrivateCopy {
    /// An unnamed copy in the database's directory (`O_TMPFILE`), or a sealed `memfd` where
    /// that cannot be made. The default.
    Tmpfile,
    /// A sealed `memfd`: immune to everything, held in memory (shmem).
    Memfd,
    /// The file itself: no copy, and the file must only ever be replaced by a rename.
    Off,
}

impl PrivateCopy {
    /// The name as the CLI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            PrivateCopy::Tmpfile => "tmpfile",
            PrivateCopy::Memfd => "memfd",
            PrivateCopy::Off => "off",
        }
    }
}

/// A file's identity as `stat` gives it: a rename puts another inode at the path, an in-place
/// rewrite changes the modification time or the length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Modification time, seconds and nanoseconds.
    pub mtime: (i64, i64),
    /// Length in bytes.
    pub len: u64,
}

impl FileIdentity {
    /// The identity in `metadata`.
    pub fn of(metadata: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileIdentity {
            dev: metadata.dev(),
            ino: metadata.ino(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            len: metadata.len(),
        }
    }

    /// The identity of the file at `path` now, `None` if there is none.
    pub fn at(path: &Path) -> Option<Self> {
        std::fs::metadata(path)
            .ok()
            .map(|metadata| Self::of(&metadata))
    }
}

/// What [`copy`] made: the file to map and which kind it is.
#[derive(Debug)]
pub struct Copied {
    /// The private file, positioned anywhere; map it whole.
    pub file: File,
    /// `tmpfile` or `memfd`.
    pub kind: PrivateCopy,
}

/// Why no faithful copy could be made.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// Reading the source or writing the copy failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file changed while it was copied (written in place meanwhile): the copy may mix two
    /// versions, so it is dropped; the next change of the file is picked up by the watcher.
    #[error("the file changed while it was copied; try again once it is written")]
    Changed,
}

/// Copies all of `source` (whose identity was `before`, taken from this descriptor) into a
/// private file of kind `kind` (`Tmpfile` or `Memfd`), beside `path` for a tmpfile.
pub fn copy(
    source: &File,
    before: FileIdentity,
    path: &Path,
    kind: PrivateCopy,
) -> Result<Copied, CopyError> {
    let (mut file, kind) = match kind {
        PrivateCopy::Tmpfile => match tmpfile_beside(path) {
            Ok(file) => (file, PrivateCopy::Tmpfile),
            Err(error) => {
                tracing::info!(%error, dir = %parent(path).display(), "no O_TMPFILE beside the database; using a sealed memfd");
                (memfd()?, PrivateCopy::Memfd)
            }
        },
        PrivateCopy::Memfd | PrivateCopy::Off => (memfd()?, PrivateCopy::Memfd),
    };
    // `io::copy` between files uses `copy_file_range` (or `sendfile`): no user-space buffer.
    // A read from offset 0 of the one descriptor whose identity was taken.
    let mut reader = source;
    io::Seek::seek(&mut reader, io::SeekFrom::Start(0))?;
    let copied = io::copy(&mut reader, &mut file)?;
    let after = FileIdentity::of(&source.metadata()?);
    if copied != before.len || after != before {
        return Err(CopyError::Changed);
    }
    if kind == PrivateCopy::Memfd {
        use rustix::fs::{SealFlags, fcntl_add_seals};
        fcntl_add_seals(
            &file,
            SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE | SealFlags::SEAL,
        )
        .map_err(io::Error::from)?;
    }
    Ok(Copied { file, kind })
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// An unnamed, owner-only file in `path`'s directory, gone when its last descriptor closes.
fn tmpfile_beside(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, open};
    let fd = open(
        parent(path),
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::RUSR | Mode::WUSR,
    )?;
    Ok(File::from(fd))
}

/// A memfd that accepts seals.
fn memfd() -> io::Result<File> {
    use rustix::fs::{MemfdFlags, memfd_create};
    let fd = memfd_create(
        "geo-server-database",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )?;
    Ok(File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::{FileIdentity, PrivateCopy, copy};
    use std::io::Read;

    #[test]
    fn both_kinds_copy_every_byte_and_survive_the_source_being_truncated() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("live.mmdb");
        let bytes: Vec<u8> = (0..300_000u32).map(|n| (n % 251) as u8).collect();
        std::fs::write(&path, &bytes).expect("write");
        for kind in [PrivateCopy::Tmpfile, PrivateCopy::Memfd] {
            let source = std::fs::File::open(&path).expect("open");
            let before = FileIdentity::of(&source.metadata().expect("stat"));
            let copied = copy(&source, before, &path, kind).expect("copy");
            assert_eq!(copied.kind, kind);
            std::fs::File::create(&path).expect("truncate");
            let mut read = Vec::new();
            let mut file = &copied.file;
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0)).expect("seek");
            file.read_to_end(&mut read).expect("read");
            assert!(read == bytes, "{kind:?}: the copy kept every byte");
            std::fs::write(&path, &bytes).expect("restore");
        }
    }

    #[test]
    fn a_sealed_memfd_refuses_to_shrink() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("live.mmdb");
        std::fs::write(&path, b"0123456789").expect("write");
        let source = std::fs::File::open(&path).expect("open");
        let before = FileIdentity::of(&source.metadata().expect("stat"));
        let copied = copy(&source, before, &path, PrivateCopy::Memfd).expect("copy");
        assert!(copied.file.set_len(0).is_err(), "sealed against shrinking");
    }

    #[test]
    fn a_file_changed_since_its_identity_was_taken_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("live.mmdb");
        std::fs::write(&path, b"0123456789").expect("write");
        let source = std::fs::File::open(&path).expect("open");
        let before = FileIdentity::of(&source.metadata().expect("stat"));
        std::fs::write(&path, b"01234").expect("rewrite in place");
        assert!(matches!(
            copy(&source, before, &path, PrivateCopy::Tmpfile),
            Err(super::CopyError::Changed)
        ));
    }
}
