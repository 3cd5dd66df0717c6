//! The encoders' build-time parameters for each content coding, and which of them this build
//! of codegen has (each behind a cargo feature but gzip).

use crate::Encoding;

/// Brotli quality: the best; paid once per file content thanks to the blob cache.
pub const BROTLI_QUALITY: u32 = 11;
/// Brotli window: 2^24 bytes, the most RFC 7932 allows without the large-window extension.
pub const BROTLI_WINDOW_LOG: u32 = 24;
/// Zstandard level: high compression whose window stays within [`ZSTD_WINDOW_LOG`].
pub const ZSTD_LEVEL: i32 = 19;
/// Zstandard window: 2^23 bytes (8 MiB), the most browsers accept for `Content-Encoding: zstd`.
pub const ZSTD_WINDOW_LOG: u32 = 23;

/// Whether this build of codegen can produce `encoding` (its feature is on).
///
/// ```
/// use bindery_codegen::{Encoding, is_compiled_in};
/// assert!(is_compiled_in(Encoding::Gzip));
/// ```
pub const fn is_compiled_in(encoding: Encoding) -> bool {
    match encoding {
        Encoding::Br => cfg!(feature = "br"),
        Encoding::Zstd => cfg!(feature = "zstd"),
        Encoding::Gzip => cfg!(feature = "gzip"),
    }
}

/// Checks a `precompress` list: no encoding twice, and every one compiled in (its feature on).
/// [`Options::validate`](crate::Options::validate) applies it, each problem with its index.
///
/// ```
/// use bindery_codegen::{Encoding, Error, check_precompress};
/// assert!(check_precompress(&[Encoding::Gzip]).is_ok());
/// let twice = check_precompress(&[Encoding::Gzip, Encoding::Gzip]).unwrap_err();
/// assert!(matches!(twice, Error::DuplicateEncoding { encoding: Encoding::Gzip }));
/// ```
pub fn check_precompress(encodings: &[Encoding]) -> Result<(), crate::Error> {
    match (0..encodings.len()).find_map(|index| precompress_problem(encodings, index)) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// What is wrong with the encoding at `index` of a `precompress` list: given before, or not
/// compiled in.
pub(crate) fn precompress_problem(encodings: &[Encoding], index: usize) -> Option<crate::Error> {
    let encoding = encodings[index];
    if encodings[..index].contains(&encoding) {
        return Some(crate::Error::DuplicateEncoding { encoding });
    }
    (!is_compiled_in(encoding)).then(|| crate::Error::EncodingUnavailable {
        encoding,
        feature: encoding.feature(),
    })
}
