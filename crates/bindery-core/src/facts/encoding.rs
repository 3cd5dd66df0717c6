//! The content codings a file can carry precompressed (`precompress = ["br", "zstd", "gzip"]`).

use std::fmt;
use std::str::FromStr;

/// A content coding of an embedded file's wire variant, computed at build time and only ever
/// sent as-is: the runtime never decodes `br` or `zstd`, and decodes `gzip` only when it is the
/// `gzip` mode's own storage and a client (or `Catalog::get`) needs the identity bytes.
///
/// ```
/// use bindery_core::Encoding;
/// assert_eq!("br".parse::<Encoding>().unwrap(), Encoding::Br);
/// assert_eq!(Encoding::Zstd.to_string(), "zstd");
/// assert_eq!(Encoding::ALL, [Encoding::Br, Encoding::Zstd, Encoding::Gzip]);
/// assert!("deflate".parse::<Encoding>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Encoding {
    /// Brotli (RFC 7932).
    Br,
    /// Zstandard (RFC 8878), with a window of at most 8 MiB as HTTP requires (RFC 9659).
    Zstd,
    /// Gzip (RFC 1952).
    Gzip,
}

impl Encoding {
    /// Every encoding, in the order catalogs list their variants.
    pub const ALL: [Encoding; 3] = [Encoding::Br, Encoding::Zstd, Encoding::Gzip];

    /// The token of `Content-Encoding` and `Accept-Encoding`, and the name options use: `br`,
    /// `zstd` or `gzip`.
    ///
    /// ```
    /// assert_eq!(bindery_core::Encoding::Br.as_str(), "br");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Zstd => "zstd",
            Encoding::Gzip => "gzip",
        }
    }

    /// The file extension of its blobs, also the suffix of its ETags: `br`, `zst`, `gz`.
    ///
    /// ```
    /// assert_eq!(bindery_core::Encoding::Gzip.extension(), "gz");
    /// ```
    pub const fn extension(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Zstd => "zst",
            Encoding::Gzip => "gz",
        }
    }

    /// The cargo feature of bindery (and of bindery-codegen and bindery-cli) that compiles its
    /// encoder: the encoding's own name.
    ///
    /// ```
    /// use bindery_core::Encoding;
    /// assert_eq!(Encoding::Zstd.feature(), "zstd");
    /// assert_eq!(Encoding::Gzip.feature(), "gzip");
    /// ```
    pub const fn feature(self) -> &'static str {
        self.as_str()
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the encodings bindery precompresses.
///
/// ```
/// let error = "deflate".parse::<bindery_core::Encoding>().unwrap_err();
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
