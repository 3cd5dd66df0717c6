//! The three ways a catalog hands out its bytes.

use std::fmt;
use std::str::FromStr;

/// How a [`Catalog`](crate::Catalog) stores its files and what [`Catalog::get`](crate::Catalog::get)
/// returns.
///
/// ```
/// use bindery::Mode;
///
/// assert_eq!("gzip".parse::<Mode>(), Ok(Mode::Gzip));
/// assert_eq!(Mode::Static.as_str(), "static");
/// assert!("brotli".parse::<Mode>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Bytes live in the binary's read-only data and are lent out as `&'static [u8]`.
    Static,
    /// Bytes are stored gzip-compressed and decompressed on read; the compressed bytes can be sent
    /// as they are to HTTP clients that accept gzip.
    Gzip,
    /// Bytes are stored as they are, and every read copies them into a fresh heap buffer.
    Copy,
}

impl Mode {
    /// The mode's name as the macro and the generator spell it.
    ///
    /// ```
    /// assert_eq!(bindery::Mode::Copy.as_str(), "copy");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Static => "static",
            Mode::Gzip => "gzip",
            Mode::Copy => "copy",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`Mode`] from a string that names none.
///
/// ```
/// let error = "zip".parse::<bindery::Mode>().unwrap_err();
/// assert_eq!(error.to_string(), "unknown mode `zip` (expected static, gzip or copy)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{0}` (expected static, gzip or copy)")]
pub struct ParseModeError(String);

impl FromStr for Mode {
    type Err = ParseModeError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "static" => Ok(Mode::Static),
            "gzip" => Ok(Mode::Gzip),
            "copy" => Ok(Mode::Copy),
            other => Err(ParseModeError(other.to_owned())),
        }
    }
}
