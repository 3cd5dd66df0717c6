//! Precompressed siblings (`siblings = true`): `app.js.br`, `app.js.gz` and
//! `app.js.zst` beside `app.js`, written by the front-end pipeline (vite-plugin-compression and
//! the like), become `app.js`'s wire variants instead of being compressed again, once they are
//! shown to decode to exactly `app.js`. They are not files of the catalog themselves.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::facts::Facts;
use crate::cache::{Cache, Kept};
use crate::scan::Found;
use crate::{Encoding, Error};

/// Each file's siblings, by its relative path, in [`Encoding::ALL`] order.
pub(crate) type Siblings = HashMap<String, Vec<(Encoding, PathBuf)>>;

/// Takes the siblings out of `found`: a file named `<name>.br`, `.gz` or `.zst` whose `<name>`
/// is also a file of the folder.
pub(crate) fn split(found: &mut Vec<Found>) -> Siblings {
    let names: std::collections::HashSet<String> =
        found.iter().map(|file| file.relative.clone()).collect();
    let mut siblings = Siblings::new();
    found.retain(|file| {
        let sibling = Encoding::ALL.into_iter().find_map(|encoding| {
            let base = file
                .relative
                .strip_suffix(encoding.extension())?
                .strip_suffix('.')?;
            names.contains(base).then(|| (base.to_owned(), encoding))
        });
        match sibling {
            Some((base, encoding)) => {
                siblings
                    .entry(base)
                    .or_default()
                    .push((encoding, file.source.clone()));
                false
            }
            None => true,
        }
    });
    for list in siblings.values_mut() {
        list.sort_by_key(|(encoding, _)| Encoding::ALL.iter().position(|known| known == encoding));
    }
    siblings
}

/// The blob for `sibling`, a precompressed form of the file `facts` describes: reused from the
/// cache when these very bytes were checked before (`<hash>-sibling-<their hash>.<ext>`), else
/// decoded and compared with the file (its BLAKE3 hash and length), then copied into the cache.
/// `None` when it saves too little to be worth sending.
pub(crate) fn blob(
    cache: &Cache,
    encoding: Encoding,
    facts: Facts<'_>,
    file: &Path,
    sibling: &Path,
) -> Result<Option<Kept>, Error> {
    let bytes = std::fs::read(sibling).map_err(|error| Error::read(sibling, error))?;
    if !crate::compress::is_worth_it(bytes.len() as u64, facts.len) {
        return Ok(None);
    }
    let folder = format!("siblings-{}", encoding.extension());
    let own_hash = crate::describe::hash(&bytes);
    let name = format!("{}-sibling-{own_hash}.{}", facts.hash, encoding.extension());
    if let Some(kept) = cache.reuse(&folder, &name) {
        return Ok(Some(kept));
    }
    check(encoding, &bytes, facts, file, sibling)?;
    let mut staged = cache.stage(&folder)?;
    std::io::Write::write_all(&mut staged, &bytes)
        .map_err(|error| Error::write(cache.root().join(&folder), error))?;
    Ok(Some(staged.commit(cache, &name, facts.source_time)?))
}

/// Fails unless `bytes` decode to exactly the file `facts` describes.
fn check(
    encoding: Encoding,
    bytes: &[u8],
    facts: Facts<'_>,
    file: &Path,
    sibling: &Path,
) -> Result<(), Error> {
    let mismatch = |reason: String| Error::SiblingMismatch {
        sibling: sibling.to_path_buf(),
        file: file.to_path_buf(),
        reason,
    };
    let mut decoder = decoder(encoding, bytes, sibling)?;
    let mut hasher = crate::describe::Digester::new(None);
    let mut buffer = vec![0; 64 * 1024];
    let mut len = 0u64;
    loop {
        let read = match decoder.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(mismatch(format!("it is not valid {encoding}: {error}"))),
        };
        len += read as u64;
        // More than the file: no need to decode the rest (a decompression bomb stops here).
        if len > facts.len {
            return Err(mismatch(format!(
                "it decodes to more than the file's {} bytes",
                facts.len
            )));
        }
        hasher.update(&buffer[..read]);
    }
    if len != facts.len {
        return Err(mismatch(format!(
            "it decodes to {len} bytes, the file has {}",
            facts.len
        )));
    }
    if hasher.finish().hash != facts.hash {
        return Err(mismatch(format!(
            "it decodes to {len} bytes that differ from the file's"
        )));
    }
    Ok(())
}

/// A reader of the decoded bytes; the decoders of brotli and zstd need their features.
fn decoder<'a>(
    encoding: Encoding,
    bytes: &'a [u8],
    sibling: &Path,
) -> Result<Box<dyn std::io::Read + 'a>, Error> {
    let _ = &bytes;
    match encoding {
        #[cfg(feature = "gzip")]
        Encoding::Gzip => Ok(Box::new(OneMember(flate2::bufread::GzDecoder::new(bytes)))),
        #[cfg(not(feature = "gzip"))]
        Encoding::Gzip => Err(unavailable(sibling, encoding, "gzip")),
        #[cfg(feature = "br")]
        Encoding::Br => Ok(Box::new(brotli::Decompressor::new(bytes, 64 * 1024))),
        #[cfg(not(feature = "br"))]
        Encoding::Br => Err(unavailable(sibling, encoding, "br")),
        #[cfg(feature = "zstd")]
        Encoding::Zstd => zstd::stream::read::Decoder::new(bytes)
            .map(|decoder| Box::new(decoder) as Box<dyn std::io::Read>)
            .map_err(|error| Error::read(sibling, error)),
        #[cfg(not(feature = "zstd"))]
        Encoding::Zstd => Err(unavailable(sibling, encoding, "zstd")),
    }
}

/// A gzip stream of one member and nothing after it: the runtime decodes the first member of
/// a stored gzip file only (as flate2's `GzDecoder` does), so anything more would be bytes a
/// client without gzip never gets.
#[cfg(feature = "gzip")]
struct OneMember<'a>(flate2::bufread::GzDecoder<&'a [u8]>);

#[cfg(feature = "gzip")]
impl std::io::Read for OneMember<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.0.read(buffer)?;
        if read == 0 && !buffer.is_empty() && !self.0.get_ref().is_empty() {
            return Err(std::io::Error::other("bytes follow the first gzip member"));
        }
        Ok(read)
    }
}

/// A sibling whose decoder is not compiled in.
#[cfg(any(not(feature = "gzip"), not(feature = "br"), not(feature = "zstd")))]
fn unavailable(sibling: &Path, encoding: Encoding, feature: &'static str) -> Error {
    Error::SiblingUnavailable {
        sibling: sibling.to_path_buf(),
        encoding,
        feature,
    }
}
