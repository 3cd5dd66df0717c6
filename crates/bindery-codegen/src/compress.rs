//! Build-time compression (gzip, and brotli and zstd behind their features) with a
//! content-addressed cache, so an unchanged file is never compressed twice.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::{Compression, GzBuilder};

use crate::{Encoding, Error};

/// A file whose compressed blob is not at least this many percent smaller than the file is stored
/// raw (gzip mode) or gets no variant for that encoding: it would cost CPU or bytes in the binary
/// for almost no saving.
pub const MIN_SAVING_PERCENT: u64 = 5;

/// The outcome of compressing one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Compressed {
    /// A cached blob worth storing.
    Blob { path: PathBuf, len: u64 },
    /// Compression saved less than [`MIN_SAVING_PERCENT`]: store the file raw.
    NotWorthIt,
}

/// Compresses `source` (whose BLAKE3 hex hash is `hash`) with `encoding` at `level`, or reuses
/// the cached result.
///
/// The cache holds, per encoding in a folder named after it, `<hash>-<level>.<gz|br|zst>` for
/// blobs and an empty `<hash>-<level>.raw` marker for files not worth compressing. Both are
/// written to a temporary file and renamed, so a build that is interrupted, or two builds racing,
/// never leave a half-written blob behind. Encoder parameters other than the level are constants
/// of this crate; were they to change, so would the folder name.
pub(crate) fn compressed_cached(
    source: &Path,
    hash: &str,
    len: u64,
    encoding: Encoding,
    level: u32,
    cache_dir: &Path,
) -> Result<Compressed, Error> {
    let dir = cache_dir.join(cache_folder(encoding));
    let blob = dir.join(format!("{hash}-{level}.{}", encoding.extension()));
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
    let compressed_len = match compress_to(source, &temporary, encoding, level) {
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

/// The cache folder of an encoding. Brotli's and zstd's carry their fixed parameters, so a change
/// of window never reuses blobs made with the old one.
fn cache_folder(encoding: Encoding) -> String {
    match encoding {
        Encoding::Gzip => "gzip".to_owned(),
        Encoding::Br => format!("br-w{}", crate::encoding::BROTLI_WINDOW_LOG),
        Encoding::Zstd => format!("zstd-w{}", crate::encoding::ZSTD_WINDOW_LOG),
    }
}

/// The level a blob of `encoding` is made at: `gzip_level` for gzip, the fixed best levels for
/// the others.
pub(crate) fn level_for(encoding: Encoding, gzip_level: u32) -> u32 {
    match encoding {
        Encoding::Gzip => gzip_level,
        Encoding::Br => crate::encoding::BROTLI_QUALITY,
        Encoding::Zstd => crate::encoding::ZSTD_LEVEL.unsigned_abs(),
    }
}

/// Streams `source` through the encoder into `target`. Output depends only on the input and the
/// parameters (gzip headers carry no name and no time), so equal input gives equal blobs on
/// every machine.
fn compress_to(source: &Path, target: &Path, encoding: Encoding, level: u32) -> Result<u64, Error> {
    let input = File::open(source).map_err(|error| Error::read(source, error))?;
    let output = File::create(target).map_err(|error| Error::write(target, error))?;
    let len = input
        .metadata()
        .map_err(|error| Error::read(source, error))?
        .len();
    let mut reader = BufReader::new(input);
    let mut writer =
        encode(&mut reader, BufWriter::new(output), encoding, level, len).map_err(|failure| {
            match failure {
                // `io::copy` does not say which side failed; reading is by far the likelier one.
                Failure::Copy(error) => Error::read(source, error),
                Failure::Write(error) => Error::write(target, error),
            }
        })?;
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

/// Where an encoding failed: while copying through it, or while finishing the stream.
enum Failure {
    Copy(std::io::Error),
    Write(std::io::Error),
}

/// Copies `reader` through `encoding` into `writer` and finishes the stream.
fn encode<W: Write>(
    reader: &mut impl std::io::Read,
    writer: W,
    encoding: Encoding,
    level: u32,
    len: u64,
) -> Result<W, Failure> {
    match encoding {
        Encoding::Gzip => {
            let mut encoder = GzBuilder::new().write(writer, Compression::new(level));
            std::io::copy(reader, &mut encoder).map_err(Failure::Copy)?;
            encoder.finish().map_err(Failure::Write)
        }
        #[cfg(feature = "br")]
        Encoding::Br => {
            // The writer swallows errors when it finishes the stream; record them on the way.
            let recording = Recording {
                inner: writer,
                error: None,
            };
            let mut encoder = brotli::CompressorWriter::new(
                recording,
                64 * 1024,
                level,
                crate::encoding::BROTLI_WINDOW_LOG,
            );
            std::io::copy(reader, &mut encoder).map_err(Failure::Copy)?;
            let recording = encoder.into_inner();
            match recording.error {
                Some(error) => Err(Failure::Write(error)),
                None => Ok(recording.inner),
            }
        }
        #[cfg(feature = "zstd")]
        Encoding::Zstd => {
            let setup = |encoder: &mut zstd::stream::write::Encoder<'static, W>| {
                encoder.set_pledged_src_size(Some(len))?;
                encoder.include_contentsize(true)?;
                encoder.include_checksum(false)?;
                encoder.window_log(crate::encoding::ZSTD_WINDOW_LOG)
            };
            let level = i32::try_from(level).unwrap_or(crate::encoding::ZSTD_LEVEL);
            let mut encoder =
                zstd::stream::write::Encoder::new(writer, level).map_err(Failure::Write)?;
            setup(&mut encoder).map_err(Failure::Write)?;
            std::io::copy(reader, &mut encoder).map_err(Failure::Copy)?;
            encoder.finish().map_err(Failure::Write)
        }
        #[allow(unreachable_patterns)]
        other => {
            let _ = (reader, writer, level, len);
            Err(Failure::Write(std::io::Error::other(format!(
                "the `{}` encoder is not compiled in: enable bindery's `{}` feature",
                other,
                other.feature().unwrap_or_default()
            ))))
        }
    }
}

/// A writer that keeps the first error it returns, for encoders that drop errors on finish.
#[cfg(feature = "br")]
struct Recording<W> {
    inner: W,
    error: Option<std::io::Error>,
}

#[cfg(feature = "br")]
impl<W: Write> Write for Recording<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.inner.write(bytes).inspect_err(|error| {
            self.error
                .get_or_insert_with(|| std::io::Error::new(error.kind(), error.to_string()));
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|error| {
            self.error
                .get_or_insert_with(|| std::io::Error::new(error.kind(), error.to_string()));
        })
    }
}

/// A temporary file name in `dir` for `name`, unique to this process and call: what blobs and
/// the hash cache are written to before they are renamed into place.
pub(crate) fn temporary_path(dir: &Path, name: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{name}.{}.{unique}.tmp", std::process::id()))
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
