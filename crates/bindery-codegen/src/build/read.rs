//! Reading a source file once per build. The bytes that are hashed are the bytes every later
//! stage stores, compresses, packs or hands to the compiler: a small file is kept in memory, a
//! large one is copied into the private cache as it is hashed, and nothing reads the source
//! again.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use crate::cache::{Cache, Staged};
use crate::describe::{Digester, Digests};
use crate::identity::Identity;
use crate::{Error, Integrity};

/// The cache folder of private copies of source files (snapshots), named by content hash.
pub(crate) const SNAPSHOTS: &str = "raw";

/// One source file's bytes, as read once.
pub(crate) enum Contents {
    /// A small file, whole.
    Memory(Vec<u8>),
    /// A large file, copied into the cache while it was hashed, not yet under a name.
    Staged(Box<Staged>),
    /// That copy, kept in the cache under its content hash.
    Kept(PathBuf),
    /// Only hashed: nothing of this build needs its bytes.
    Hashed,
}

impl Contents {
    /// Streams the bytes into `out`; `false` when they were not kept.
    pub(crate) fn copy_to(&mut self, out: &mut impl std::io::Write) -> std::io::Result<bool> {
        match self {
            Contents::Memory(bytes) => out.write_all(bytes).map(|()| true),
            Contents::Staged(staged) => {
                std::io::copy(&mut staged.read_back()?, out)?;
                Ok(true)
            }
            Contents::Kept(path) => {
                std::io::copy(&mut File::open(path)?, out)?;
                Ok(true)
            }
            Contents::Hashed => Ok(false),
        }
    }
}

/// What one read gave: the bytes, their length and digests (BLAKE3, SHA-256, integrity).
pub(crate) struct Read {
    pub(crate) contents: Contents,
    pub(crate) len: u64,
    pub(crate) digests: Digests,
}

/// Reads `source` once. `identity` is what `stat` said before: a length that differs from it
/// means the file changed while it was read. Files of at least `large` bytes are streamed, into
/// a staged copy when `keep_large` (something of this build needs their bytes), else only
/// through the hasher.
pub(crate) fn read(
    cache: &Cache,
    source: &Path,
    identity: Option<Identity>,
    large: u64,
    keep_large: bool,
    integrity: Option<Integrity>,
) -> Result<Read, Error> {
    let expected = identity.map(|identity| identity.len);
    if expected.is_some_and(|len| len < large) {
        let bytes = std::fs::read(source).map_err(|error| Error::read(source, error))?;
        let len = bytes.len() as u64;
        check_len(source, expected, len)?;
        let digests = crate::describe::digests(&bytes, integrity);
        return Ok(Read {
            contents: Contents::Memory(bytes),
            len,
            digests,
        });
    }
    let mut file = File::open(source).map_err(|error| Error::read(source, error))?;
    let mut staged = if keep_large {
        Some(cache.stage(SNAPSHOTS)?)
    } else {
        None
    };
    let mut hasher = Digester::new(integrity);
    let mut buffer = vec![0; 256 * 1024];
    let mut len = 0u64;
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(Error::read(source, error)),
        };
        hasher.update(&buffer[..read]);
        if let Some(staged) = &mut staged {
            staged
                .write_all(&buffer[..read])
                .map_err(|error| Error::write(cache.root(), error))?;
        }
        len += read as u64;
    }
    check_len(source, expected, len)?;
    Ok(Read {
        contents: staged.map_or(Contents::Hashed, |staged| {
            Contents::Staged(Box::new(staged))
        }),
        len,
        digests: hasher.finish(),
    })
}

fn check_len(source: &Path, expected: Option<u64>, len: u64) -> Result<(), Error> {
    match expected {
        Some(expected) if expected != len => Err(Error::Changed {
            path: source.to_path_buf(),
        }),
        _ => Ok(()),
    }
}
