//! The content codings a file can carry precompressed, each sent only as-is.

use std::fmt;

/// A content coding of an embedded file's wire variant (`precompress = ["br", "zstd", "gzip"]`).
///
/// The runtime never decodes `br` or `zstd`: those bytes were made at build time and go to
/// clients that accept them unchanged. `gzip` is decoded only when it is the `gzip` mode's own
/// storage and a client (or [`Catalog::get`](crate::Catalog::get)) needs the identity bytes.
///
/// ```
/// use bindery::Encoding;
/// assert_eq!(Encoding::Br.as_str(), "br");
/// assert_eq!(Encoding::ALL, [Encoding::Br, Encoding::Zstd, Encoding::Gzip]);
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
    /// Every encoding.
    pub const ALL: [Encoding; 3] = [Encoding::Br, Encoding::Zstd, Encoding::Gzip];

    /// The token of `Content-Encoding` and `Accept-Encoding`: `br`, `zstd` or `gzip`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Zstd => "zstd",
            Encoding::Gzip => "gzip",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
