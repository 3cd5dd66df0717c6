//! Build-time gzip with a content-addressed cache, so an unchanged file is never compressed twice.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::{Compression, GzBuilder};

use crate::Error;

/// A file whose gzip blob is not at least this many percent smaller than the file is stored raw:
/// decompressing it would cost CPU for almost no saving.
pub const MIN_SAVING_PERCENT: u64 = 5;

/// The outcome of compressing one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Compressed {
    /// A cached gzip blob worth storing.
    Blob { path: PathBuf, len: u64 },
    /// Compression saved less than [`MIN_SAVING_PERCENT`]: store the file raw.
    NotWorthIt,
}

/// Compresses `source` (whose BLAKE3 hex hash is `hash`) at `level`, or reuses the cached result.
///
/// The cache holds `<hash>-<level>.gz` for blobs and an empty `<hash>-<level>.raw` marker for files
/// not worth compressing. Both are written to a temporary file and renamed, so a build that is
/// interrupted, or two builds racing, never leave a half-written blob behind.
pub(crate) fn gzip_cached(
    source: &Path,
    hash: &str,
    len: u64,
    level: u32,
    cache_dir: &Path,
) -> Result<Compressed, Error> {
    let dir = cache_dir.join("gzip");
    let blob = dir.join(format!("{hash}-{level}.gz"));
    let marker = dir.join(format!("{hash}-{level}.raw"));
    if let Ok(metadata) = std::fs::metadata(&blob) {
        return Ok(Compressed::Blob {
            path: blob,
            len: metadata.len(),
        });
    }
    if marker.exists() {
        return Ok(Compressed::NotWorthIt);
    }
    std::fs::create_dir_all(&dir).map_err(|error| Error::write(&dir, error))?;
    let temporary = temporary_path(&dir, hash);
    let compressed_len = match compress_to(source, &temporary, level) {
        Ok(compressed_len) => compressed_len,
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(error);
        }
    };
    if compressed_len * 100 > len * (100 - MIN_SAVING_PERCENT) {
        let _ = std::fs::remove_file(&temporary);
        File::create(&marker).map_err(|error| Error::write(&marker, error))?;
        return Ok(Compressed::NotWorthIt);
    }
    std::fs::rename(&temporary, &blob).map_err(|error| Error::write(&blob, error))?;
    Ok(Compressed::Blob {
        path: blob,
        len: compressed_len,
    })
}

/// Streams `source` through gzip into `target`. The header carries no name and no time, so equal
/// input gives equal output on every machine.
fn compress_to(source: &Path, target: &Path, level: u32) -> Result<u64, Error> {
    let input = File::open(source).map_err(|error| Error::read(source, error))?;
    let output = File::create(target).map_err(|error| Error::write(target, error))?;
    let mut encoder = GzBuilder::new().write(BufWriter::new(output), Compression::new(level));
    std::io::copy(&mut BufReader::new(input), &mut encoder).map_err(|error| {
        // `io::copy` does not say which side failed; reading is by far the likelier one.
        Error::read(source, error)
    })?;
    let mut writer = encoder
        .finish()
        .map_err(|error| Error::write(target, error))?;
    writer
        .flush()
        .map_err(|error| Error::write(target, error))?;
    let file = writer
        .into_inner()
        .map_err(|error| Error::write(target, error.into_error()))?;
    // The blob is created while rustc runs and `include_bytes!` makes it a dependency; with a
    // fresh mtime cargo would see it as newer than the build and compile the crate once more on
    // the next, no-op build. It holds exactly the source's content, so it takes the source's time.
    let source_modified = std::fs::metadata(source)
        .and_then(|metadata| metadata.modified())
        .map_err(|error| Error::read(source, error))?;
    file.set_modified(source_modified)
        .map_err(|error| Error::write(target, error))?;
    file.sync_all()
        .map_err(|error| Error::write(target, error))?;
    let metadata = file
        .metadata()
        .map_err(|error| Error::write(target, error))?;
    Ok(metadata.len())
}

fn temporary_path(dir: &Path, hash: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{hash}.{}.{unique}.tmp", std::process::id()))
}

/// Where compressed blobs are cached when no directory is given.
///
/// In order: `$BINDERY_CACHE_DIR`; `$CARGO_TARGET_DIR/bindery`; `target/bindery` in the nearest
/// folder above `near` whose `target/` holds cargo's `CACHEDIR.TAG`; the system temp folder.
/// The cache is content-addressed, so sharing it between crates and workspaces is safe.
///
/// ```
/// let dir = bindery_codegen::default_cache_dir(std::path::Path::new("."));
/// assert!(dir.ends_with("bindery") || dir.ends_with("bindery-cache") || std::env::var_os("BINDERY_CACHE_DIR").is_some());
/// ```
pub fn default_cache_dir(near: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("BINDERY_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        let dir = PathBuf::from(dir);
        let dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir().unwrap_or_default().join(dir)
        };
        return dir.join("bindery");
    }
    let start = std::path::absolute(near).unwrap_or_else(|_| near.to_path_buf());
    for folder in start.ancestors() {
        let target = folder.join("target");
        if target.join("CACHEDIR.TAG").is_file() {
            return target.join("bindery");
        }
    }
    std::env::temp_dir().join("bindery-cache")
}
