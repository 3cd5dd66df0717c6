//! Files written into the cache: created exclusively (`O_CREAT | O_EXCL`, mode 0600) under a
//! fresh name in their destination folder, so no planted file or symlink is ever opened, then
//! synced and renamed into place. A staged file that is dropped unwritten is removed.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A new, empty file in `dir` that nobody else has opened: an existing name (planted, or a
/// leftover) is skipped, never followed or truncated.
pub(crate) fn create(dir: &Path) -> std::io::Result<(File, PathBuf)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.subsec_nanos());
    let names = std::iter::repeat_with(|| {
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        format!(".staged-{}-{nanos:08x}-{unique}", std::process::id())
    });
    create_among(dir, names)
}

/// [`create`] with the first of `names` that is free (at most 64 tried).
fn create_among(
    dir: &Path,
    names: impl Iterator<Item = String>,
) -> std::io::Result<(File, PathBuf)> {
    for name in names.take(64) {
        let path = dir.join(name);
        let mut options = OpenOptions::new();
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&path) {
            Ok(file) => return Ok((file, path)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free temporary name after 64 tries",
    ))
}

/// A staged file: removed when dropped unless [`persist`](Self::persist)ed.
pub(crate) struct TempFile {
    file: Option<File>,
    path: PathBuf,
}

impl TempFile {
    pub(crate) fn new_in(dir: &Path) -> std::io::Result<TempFile> {
        let (file, path) = create(dir)?;
        Ok(TempFile {
            file: Some(file),
            path,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Gives the file `modified` as its modification time, and syncs its bytes to disk.
    pub(crate) fn seal_bytes(
        &self,
        modified: Option<std::time::SystemTime>,
    ) -> std::io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if let Some(modified) = modified {
            file.set_modified(modified)?;
        }
        file.sync_all()
    }

    /// Renames the file to `target`, replacing what is there (a symlink itself, never its
    /// target).
    pub(crate) fn persist(mut self, target: &Path) -> std::io::Result<()> {
        drop(self.file.take());
        std::fs::rename(&self.path, target)?;
        // Persisted: nothing to remove on drop.
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Write for TempFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(file) => file.write(bytes),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Writes `bytes` to `dir/name` through a staged file (no sync: for records whose loss only
/// costs work).
pub(crate) fn write_small(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut staged = TempFile::new_in(dir)?;
    staged.write_all(bytes)?;
    staged.persist(&dir.join(name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_name_taken_by_a_planted_symlink_is_skipped_and_its_target_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").expect("victim");
        let names: Vec<String> = (0..4).map(|index| format!(".staged-{index}")).collect();
        for name in &names[..3] {
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).expect("symlink");
        }
        let (mut file, path) =
            super::create_among(dir.path(), names.into_iter()).expect("a free name");
        std::io::Write::write_all(&mut file, b"new").expect("write");
        assert_eq!(path, dir.path().join(".staged-3"));
        assert_eq!(std::fs::read(&victim).expect("victim"), b"precious");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path)
            .expect("staged")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
