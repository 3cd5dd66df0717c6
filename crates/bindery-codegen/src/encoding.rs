//! The content codings a catalog can carry precompressed (`precompress = ["br", "zstd", "gzip"]`),
//! their build-time parameters, and the cargo features their encoders sit behind.

use std::fmt;
use std::str::FromStr;

/// A content coding computed at build time and only ever sent as-is: the runtime never decodes
/// `br` or `zstd` (and decodes `gzip` only as the `gzip` mode's own storage).
///
/// ```
/// use bindery_codegen::Encoding;
/// assert_eq!("br".parse::<Encoding>().unwrap(), Encoding::Br);
/// assert_eq!(Encoding::Zstd.to_string(), "zstd");
/// assert!("deflate".parse::<Encoding>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Encoding {
    /// Brotli (RFC 7932), quality 11, window up to 16 MiB.
    Br,
    /// Zstandard (RFC 8878), level 19, window at most 8 MiB as RFC 9659 requires for HTTP.
    Zstd,
    /// Gzip (RFC 1952), at the catalog's level (9 unless asked otherwise).
    Gzip,
}

/// Brotli quality: the best; paid once per file content thanks to the blob cache.
pub const BROTLI_QUALITY: u32 = 11;
/// Brotli window: 2^24 bytes, the most RFC 7932 allows without the large-window extension.
pub const BROTLI_WINDOW_LOG: u32 = 24;
/// Zstandard level: high compression whose window stays within [`ZSTD_WINDOW_LOG`].
pub const ZSTD_LEVEL: i32 = 19;
/// Zstandard window: 2^23 bytes (8 MiB), the most browsers accept for `Content-Encoding: zstd`.
pub const ZSTD_WINDOW_LOG: u32 = 23;

impl Encoding {
    /// Every encoding, in the order catalogs list their variants.
    pub const ALL: [Encoding; 3] = [Encoding::Br, Encoding::Zstd, Encoding::Gzip];

    /// The name used in options and in `Content-Encoding`: `br`, `zstd` or `gzip`.
    ///
    /// ```
    /// assert_eq!(bindery_codegen::Encoding::Br.as_str(), "br");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Zstd => "zstd",
            Encoding::Gzip => "gzip",
        }
    }

    /// The file extension of its blobs, also the suffix of its ETags: `br`, `zst`, `gz`.
    pub const fn extension(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Zstd => "zst",
            Encoding::Gzip => "gz",
        }
    }

    /// The cargo feature of bindery (and of this crate) that compiles its encoder; gzip is always
    /// there.
    ///
    /// ```
    /// use bindery_codegen::Encoding;
    /// assert_eq!(Encoding::Zstd.feature(), Some("zstd"));
    /// assert_eq!(Encoding::Gzip.feature(), None);
    /// ```
    pub const fn feature(self) -> Option<&'static str> {
        match self {
            Encoding::Br => Some("br"),
            Encoding::Zstd => Some("zstd"),
            Encoding::Gzip => None,
        }
    }

    /// Whether this build of codegen can produce it (its feature is on).
    pub const fn is_available(self) -> bool {
        match self {
            Encoding::Br => cfg!(feature = "br"),
            Encoding::Zstd => cfg!(feature = "zstd"),
            Encoding::Gzip => true,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Checks a `precompress` list: no encoding twice, and every one compiled in (its feature on).
/// The manifest build applies it; front doors call it to report in their own words first.
///
/// ```
/// use bindery_codegen::{Encoding, Error, check_precompress};
/// assert!(check_precompress(&[Encoding::Gzip]).is_ok());
/// let twice = check_precompress(&[Encoding::Gzip, Encoding::Gzip]).unwrap_err();
/// assert!(matches!(twice, Error::DuplicateEncoding { encoding: Encoding::Gzip }));
/// ```
pub fn check_precompress(encodings: &[Encoding]) -> Result<(), crate::Error> {
    for (index, &encoding) in encodings.iter().enumerate() {
        if encodings[..index].contains(&encoding) {
            return Err(crate::Error::DuplicateEncoding { encoding });
        }
        if !encoding.is_available() {
            return Err(crate::Error::EncodingUnavailable {
                encoding,
                feature: encoding.feature().unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// A name that is not one of the encodings bindery precompresses.
///
/// ```
/// let error = "deflate".parse::<bindery_codegen::Encoding>().unwrap_err();
/// assert_eq!(error.to_string(), "unknown encoding `deflate` (expected br, zstd or gzip)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown encoding `{name}` (expected br, zstd or gzip)")]
pub struct ParseEncodingError {
    /// The name as given.
    pub name: String,
}

impl FromStr for Encoding {
    type Err = ParseEncodingError;

    fn from_str(name: &str) -> Result<Self, ParseEncodingError> {
        Encoding::ALL
            .into_iter()
            .find(|encoding| encoding.as_str() == name)
            .ok_or_else(|| ParseEncodingError {
                name: name.to_owned(),
            })
    }
}
