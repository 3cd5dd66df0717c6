//! The build cache: compressed blobs, packs and snapshots that bindery wrote, each reused only
//! while it still holds exactly what was written.
//!
//! Everything is written to a temporary file created exclusively (`O_EXCL`, a fresh name, mode
//! 0600) inside the private cache folder, then renamed into place, so an interrupted build or two
//! builds racing never leave half a file, and no symlink planted at a temporary name is ever
//! followed. Beside every file written, a seal (`seals/<folder>/<name>`) records the content hash
//! (XXH3-128: a check against corruption and truncation; the folder is private) and length of its bytes and the file's identity just after (length, modification and change
//! times, inode). A reuse whose file still has that identity is trusted without reading it; any
//! other is hashed again and trusted only if the hash matches, and a file without a seal is never
//! trusted: it is made again. A seal costs one `stat` and one small read per reuse, where hashing
//! every reused blob would read them all on every build (BENCHMARKS.md, "The build cache").

mod hashes;
mod location;
mod staged;

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub(crate) use hashes::Hashes;
pub use location::default_cache_dir;
pub(crate) use staged::TempFile;

use crate::Error;
use crate::describe::Digester;
use crate::identity::Identity;

const SEAL_VERSION: &str = "bindery-seal-v2";

/// The cache folder of one build, checked private.
#[derive(Debug)]
pub(crate) struct Cache {
    root: PathBuf,
}

/// A file of the cache that may be used: where it is and its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    pub(crate) path: PathBuf,
    pub(crate) len: u64,
}

impl Cache {
    /// Opens (creating it if needed) the cache at `root`, after checking that it is private.
    pub(crate) fn open(root: PathBuf) -> Result<Cache, Error> {
        location::prepare(&root)?;
        Ok(Cache { root })
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `folder/name` if it holds what bindery sealed there (see the module docs), else `None`.
    pub(crate) fn reuse(&self, folder: &str, name: &str) -> Option<Kept> {
        let path = self.root.join(folder).join(name);
        let metadata = std::fs::symlink_metadata(&path).ok()?;
        if !metadata.is_file() {
            return None;
        }
        let seal_path = self.seal_path(folder, name);
        let seal = std::fs::read_to_string(&seal_path).ok()?;
        let (hash, len, identity) = parse_seal(&seal)?;
        if metadata.len() != len {
            return None;
        }
        if Identity::of(&metadata) == Some(identity) {
            return Some(Kept { path, len });
        }
        // Touched, copied back or rewritten with the same bytes: hash it to know.
        if hash_file(&path).ok()? != hash {
            return None;
        }
        let _ = self.write_seal(folder, name, &path, &hash, len);
        Some(Kept { path, len })
    }

    /// Starts writing a new file into `folder`; nothing appears under a real name until
    /// [`Staged::commit`].
    pub(crate) fn stage(&self, folder: &str) -> Result<Staged, Error> {
        let dir = self.root.join(folder);
        location::create_private(&dir)?;
        let file = staged::TempFile::new_in(&dir).map_err(|error| Error::write(&dir, error))?;
        Ok(Staged {
            out: BufWriter::with_capacity(64 * 1024, file),
            hasher: Digester::new(None),
            len: 0,
            folder: folder.to_owned(),
        })
    }

    /// Whether an empty marker `folder/name` exists (a decision recorded, no bytes).
    pub(crate) fn is_marked(&self, folder: &str, name: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(folder).join(name))
            .is_ok_and(|metadata| metadata.is_file() && metadata.len() == 0)
    }

    /// Writes the empty marker `folder/name`.
    pub(crate) fn mark(&self, folder: &str, name: &str) -> Result<(), Error> {
        self.stage(folder)?.commit(self, name, None).map(|_| ())
    }

    /// Removes `folder/name` and its seal; a file that cannot be removed is only left behind.
    pub(crate) fn remove(&self, folder: &str, name: &str) {
        let _ = std::fs::remove_file(self.root.join(folder).join(name));
        let _ = std::fs::remove_file(self.seal_path(folder, name));
    }

    fn seal_path(&self, folder: &str, name: &str) -> PathBuf {
        self.root.join("seals").join(folder).join(name)
    }

    fn write_seal(
        &self,
        folder: &str,
        name: &str,
        path: &Path,
        hash: &str,
        len: u64,
    ) -> Result<(), Error> {
        let identity = Identity::at(path).ok_or_else(|| {
            Error::write(
                path,
                std::io::Error::other("cannot read the file's identity"),
            )
        })?;
        let text = format!("{SEAL_VERSION}\t{hash}\t{len}\t{}\n", identity.to_fields());
        let seals = self.root.join("seals").join(folder);
        location::create_private(&seals)?;
        staged::write_small(&seals, name, text.as_bytes())
            .map_err(|error| Error::write(seals.join(name), error))
    }
}

/// A file being written into the cache: its bytes are hashed on the way for its seal.
pub(crate) struct Staged {
    out: BufWriter<staged::TempFile>,
    hasher: Digester,
    len: u64,
    folder: String,
}

impl Staged {
    /// Bytes written so far.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The bytes written so far, to read from the start.
    pub(crate) fn read_back(&mut self) -> std::io::Result<std::fs::File> {
        self.out.flush()?;
        std::fs::File::open(self.out.get_ref().path())
    }

    /// Syncs the bytes to disk, gives the file `modified` as its modification time (a blob must
    /// not look newer than the sources it was made from, or cargo would rebuild once more), and
    /// renames it to `name`, replacing any file there; then seals it.
    pub(crate) fn commit(
        self,
        cache: &Cache,
        name: &str,
        modified: Option<SystemTime>,
    ) -> Result<Kept, Error> {
        let dir = cache.root.join(&self.folder);
        let target = dir.join(name);
        let file = self
            .out
            .into_inner()
            .map_err(|error| Error::write(&target, error.into_error()))?;
        file.seal_bytes(modified)
            .and_then(|()| file.persist(&target))
            .map_err(|error| Error::write(&target, error))?;
        cache.write_seal(
            &self.folder,
            name,
            &target,
            &self.hasher.finish().hash,
            self.len,
        )?;
        Ok(Kept {
            path: target,
            len: self.len,
        })
    }
}

impl Write for Staged {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        self.len += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

fn parse_seal(text: &str) -> Option<(String, u64, Identity)> {
    let mut fields = text.trim_end_matches('\n').split('\t');
    if fields.next()? != SEAL_VERSION {
        return None;
    }
    let hash = fields.next()?.to_owned();
    let len = fields.next()?.parse().ok()?;
    let identity = Identity::from_fields(&mut fields)?;
    fields.next().is_none().then_some((hash, len, identity))
}

/// The content hash of a file's bytes, streamed.
fn hash_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Digester::new(None);
    let mut buffer = vec![0; 256 * 1024];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return Ok(hasher.finish().hash),
            Ok(read) => {
                hasher.update(&buffer[..read]);
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}
