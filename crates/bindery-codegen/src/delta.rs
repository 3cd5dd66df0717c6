//! Compression dictionary deltas (RFC 9842): a file of this build compressed with zstd against
//! an earlier version of it kept from a previous release, as `dcz` (a 40-byte header naming
//! the dictionary's SHA-256, then a zstd frame made with that file as a raw dictionary). Made
//! once per pair of contents and kept in the cache, like every other blob.

use std::path::Path;

use crate::cache::{Cache, Kept};
use crate::{Entry, Error};

/// The `dcz` header's first eight bytes (RFC 9842 §4.2); the dictionary's SHA-256 follows.
pub const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];

/// The largest file used as a dictionary: past it, a delta's window would exceed what
/// browsers decode (128 MiB).
pub const MAX_DICTIONARY: u64 = 64 << 20;

/// The first four bytes of a zstd dictionary: a file starting with them would be read as one
/// rather than as raw content, so it is never offered as a dictionary.
const ZSTD_DICTIONARY_MAGIC: [u8; 4] = [0x37, 0xa4, 0x30, 0xec];

/// The cache folder of `dcz` blobs.
const FOLDER: &str = "dcz";

/// The window a delta against a dictionary of `len` bytes is made with: the most RFC 9842 asks
/// every client to decode, `max(8 MiB, 1.25 × len)`, as a power of two below it.
///
/// ```
/// assert_eq!(bindery_codegen::delta_window_log(1000), 23);
/// assert_eq!(bindery_codegen::delta_window_log(20 << 20), 24);
/// ```
pub fn delta_window_log(len: u64) -> u32 {
    let allowed = (8u64 << 20).max(len.saturating_mul(5) / 4);
    allowed.ilog2().clamp(10, 27)
}

/// The `dcz` blob of `target` against `dictionary`: from the cache, or made from the two
/// files (each read and checked against the build's hash). `None` when it does not save at
/// least [`MIN_SAVING_PERCENT`](crate::MIN_SAVING_PERCENT) of the file, or when the dictionary
/// cannot be one.
pub(crate) fn dcz(
    cache: &Cache,
    target: &Entry,
    dictionary: &Entry,
) -> Result<Option<Kept>, Error> {
    if dictionary.len > MAX_DICTIONARY || dictionary.len == 0 {
        return Ok(None);
    }
    let name = format!("{}-{}.dcz", target.hash, dictionary.hash);
    let marker = format!("{}-{}.raw", target.hash, dictionary.hash);
    if let Some(kept) = cache.reuse(FOLDER, &name) {
        return Ok(Some(kept));
    }
    if cache.is_marked(FOLDER, &marker) {
        return Ok(None);
    }
    let raw = checked(&dictionary.source, &dictionary.hash)?;
    if raw.starts_with(&ZSTD_DICTIONARY_MAGIC) {
        cache.mark(FOLDER, &marker)?;
        return Ok(None);
    }
    // Recorded: `dictionaries` is refused under `integrity = false`.
    let sha256 = dictionary.sha256.ok_or(Error::NeedsIntegrity {
        setting: "dictionaries",
    })?;
    let contents = checked(&target.source, &target.hash)?;
    let mut blob = Vec::with_capacity(contents.len() / 4 + 64);
    blob.extend_from_slice(&DCZ_MAGIC);
    blob.extend_from_slice(&sha256);
    compress(&contents, &raw, &mut blob)
        .map_err(|error| Error::write(cache.root().join(FOLDER), error))?;
    if !crate::compress::is_worth_it(blob.len() as u64, target.len) {
        cache.mark(FOLDER, &marker)?;
        return Ok(None);
    }
    let mut staged = cache.stage(FOLDER)?;
    std::io::Write::write_all(&mut staged, &blob)
        .map_err(|error| Error::write(cache.root().join(FOLDER), error))?;
    // Dated as its sources, as every other blob made from a source: stamped with the time it was
    // written (during the compile that includes it), it would look newer than that compile to
    // cargo and rebuild the crate once more on the next `cargo build`.
    let newest = [&target.source, &dictionary.source]
        .iter()
        .filter_map(|path| {
            std::fs::metadata(path)
                .and_then(|meta| meta.modified())
                .ok()
        })
        .max();
    staged.commit(cache, &name, newest).map(Some)
}

/// The file's bytes, refused when they no longer have the build's hash.
fn checked(path: &Path, hash: &str) -> Result<Vec<u8>, Error> {
    let bytes = std::fs::read(path).map_err(|error| Error::read(path, error))?;
    if crate::describe::hash(&bytes) != hash {
        return Err(Error::Changed {
            path: path.to_owned(),
        });
    }
    Ok(bytes)
}

#[cfg(feature = "zstd")]
fn compress(contents: &[u8], dictionary: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut encoder = zstd::stream::write::Encoder::with_dictionary(
        out,
        crate::encoding::ZSTD_LEVEL,
        dictionary,
    )?;
    encoder.set_pledged_src_size(Some(contents.len() as u64))?;
    encoder.include_contentsize(true)?;
    encoder.include_checksum(false)?;
    encoder.include_dictid(false)?;
    encoder.window_log(delta_window_log(dictionary.len() as u64))?;
    std::io::Write::write_all(&mut encoder, contents)?;
    encoder.finish().map(drop)
}

#[cfg(not(feature = "zstd"))]
fn compress(_: &[u8], _: &[u8], _: &mut Vec<u8>) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "`dictionaries` needs the `zstd` feature of bindery",
    ))
}
