//! The three ways a catalog stores and hands out its bytes.

use std::fmt;
use std::str::FromStr;

/// How a catalog stores its files and what `Catalog::get` returns.
///
/// ```
/// use bindery_core::Mode;
///
/// assert_eq!("gzip".parse::<Mode>(), Ok(Mode::Gzip));
/// assert_eq!(Mode::Static.as_str(), "static");
/// assert_eq!(Mode::default(), Mode::Static);
/// assert!("brotli".parse::<Mode>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Bytes live in the binary's read-only data and are lent out as `&'static [u8]`.
    #[default]
    Static,
    /// Bytes are stored gzip-compressed and decompressed on read; the compressed bytes can be sent
    /// as they are to HTTP clients that accept gzip.
    Gzip,
    /// Bytes are stored as they are, and every read copies them into a fresh heap buffer.
    Copy,
}

impl Mode {
    /// Every mode, in the order the docs list them.
    pub const ALL: [Mode; 3] = [Mode::Static, Mode::Gzip, Mode::Copy];

    /// The mode's name as the macro and the generator spell it: `static`, `gzip` or `copy`.
    ///
    /// ```
    /// assert_eq!(bindery_core::Mode::Copy.as_str(), "copy");
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

/// A name that is not one of the three modes.
///
/// ```
/// let error = "zip".parse::<bindery_core::Mode>().unwrap_err();
/// assert_eq!(error.to_string(), "unknown mode `zip` (expected static, gzip or copy)");
/// assert_eq!(error.name, "zip");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{name}` (expected static, gzip or copy)")]
pub struct ParseModeError {
    /// The name as given.
    pub name: String,
}

impl FromStr for Mode {
    type Err = ParseModeError;

    fn from_str(name: &str) -> Result<Self, ParseModeError> {
        Mode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == name)
            .ok_or_else(|| ParseModeError {
                name: name.to_owned(),
            })
    }
}
