//! The hash algorithm of Subresource Integrity strings (`integrity="sha384-…"`).

use std::fmt;
use std::str::FromStr;

/// Which SHA-2 hash a catalog's [integrity strings] use: `sha384` unless asked otherwise, the
/// algorithm the SRI specification's examples and most tools use.
///
/// [integrity strings]: https://www.w3.org/TR/SRI/
///
/// ```
/// use bindery_core::Integrity;
///
/// assert_eq!("sha512".parse::<Integrity>(), Ok(Integrity::Sha512));
/// assert_eq!(Integrity::default(), Integrity::Sha384);
/// assert_eq!(Integrity::Sha256.text_len(), "sha256-".len() + 44);
/// assert!("md5".parse::<Integrity>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Integrity {
    /// SHA-256.
    Sha256,
    /// SHA-384, the default.
    #[default]
    Sha384,
    /// SHA-512.
    Sha512,
}

impl Integrity {
    /// Every algorithm.
    pub const ALL: [Integrity; 3] = [Integrity::Sha256, Integrity::Sha384, Integrity::Sha512];

    /// The name the macro, the generator and SRI spell: `sha256`, `sha384` or `sha512`.
    ///
    /// ```
    /// assert_eq!(bindery_core::Integrity::Sha384.as_str(), "sha384");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Integrity::Sha256 => "sha256",
            Integrity::Sha384 => "sha384",
            Integrity::Sha512 => "sha512",
        }
    }

    /// The length of one integrity string: the name, `-`, and the digest in padded base64.
    ///
    /// ```
    /// assert_eq!(bindery_core::Integrity::Sha384.text_len(), 71);
    /// ```
    pub const fn text_len(self) -> usize {
        let digest: usize = match self {
            Integrity::Sha256 => 32,
            Integrity::Sha384 => 48,
            Integrity::Sha512 => 64,
        };
        self.as_str().len() + 1 + digest.div_ceil(3) * 4
    }
}

impl fmt::Display for Integrity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an SRI algorithm.
///
/// ```
/// let error = "md5".parse::<bindery_core::Integrity>().unwrap_err();
/// assert_eq!(error.to_string(), "unknown integrity algorithm `md5` (expected sha256, sha384 or sha512)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown integrity algorithm `{name}` (expected sha256, sha384 or sha512)")]
pub struct ParseIntegrityError {
    /// The name as given.
    pub name: String,
}

impl FromStr for Integrity {
    type Err = ParseIntegrityError;

    fn from_str(name: &str) -> Result<Self, ParseIntegrityError> {
        Integrity::ALL
            .into_iter()
            .find(|integrity| integrity.as_str() == name)
            .ok_or_else(|| ParseIntegrityError {
                name: name.to_owned(),
            })
    }
}
