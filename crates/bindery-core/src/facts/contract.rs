//! What generated code and the runtime agree on: the contract's version, and the ETag every
//! file's name carries (its length, and how it is made from the content hash).

/// The version of the contract between generated code and the `bindery` runtime: what
/// `bindery::__private_v{CONTRACT}` offers, the hidden fields of `EmbeddedFile`, and the
/// arguments of the macros generated code calls. Generated code names that module and
/// committed modules record the number, so a module meets only a runtime that reads it
/// (ARCHITECTURE.md, "The generated-code contract"). A test keeps a hash of that surface and
/// fails, asking for a bump, when it changes.
///
/// ```
/// // What generated code names: `::bindery::__private_v{CONTRACT}`.
/// let module = format!("__private_v{}", bindery_core::CONTRACT);
/// assert!(module.len() > "__private_v".len());
/// ```
pub const CONTRACT: u32 = 8;

/// The length of the content hash in lowercase hexadecimal (XXH3-128: 32 digits), as file
/// records, blob names and ETags carry it.
///
/// ```
/// assert_eq!(bindery_core::HASH_LEN, "0123456789abcdef0123456789abcdef".len());
/// ```
pub const HASH_LEN: usize = 32;

/// The length of the ETag of a file as stored ([`etag`] of [`Tagged::File`]): a quote, the
/// content hash, a quote.
///
/// ```
/// assert_eq!(bindery_core::ETAG_LEN, "\"0123456789abcdef0123456789abcdef\"".len());
/// ```
pub const ETAG_LEN: usize = HASH_LEN + 2;

/// What an ETag tags: the file as stored, one encoded variant of it, or a delta of it against
/// an earlier release's file (a dictionary). RFC 9110 asks distinct tags of distinct
/// representations, so each kind has its own form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagged<'a> {
    /// The file itself: `"<hash>"`.
    File,
    /// The file encoded: `"<hash>-<extension>"` (`"…-br"`, `"…-zst"`, `"…-gz"`; the extension
    /// is [`Encoding::extension`](super::encoding::Encoding::extension)).
    Encoded(super::encoding::Encoding),
    /// A delta against the dictionary whose content hash is given: `"<hash>-dcz.<its first
    /// 12 digits>"`.
    Delta {
        /// The dictionary's content hash.
        dictionary: &'a str,
    },
}

/// How many digits of a dictionary's content hash a delta's ETag carries.
const DICTIONARY_DIGITS: usize = 12;

/// The strong ETag of one representation of contents whose content `hash` (lowercase hex) is
/// given: its first [`HASH_LEN`] digits, quoted, with what [`Tagged`] says. Every ETag bindery
/// makes, at build time or run time, is made here.
///
/// ```
/// use bindery_core::{etag, Tagged};
/// let hash = "0123456789abcdef0123456789abcdef";
/// assert_eq!(etag(hash, Tagged::File), format!("\"{hash}\""));
/// assert_eq!(etag(hash, Tagged::Delta { dictionary: hash }), format!("\"{hash}-dcz.0123456789ab\""));
/// ```
pub fn etag(hash: &str, tagged: Tagged<'_>) -> String {
    let digits = &hash[..HASH_LEN.min(hash.len())];
    match tagged {
        Tagged::File => format!("\"{digits}\""),
        Tagged::Encoded(encoding) => format!("\"{digits}-{}\"", encoding.extension()),
        Tagged::Delta { dictionary } => {
            let dictionary = &dictionary[..DICTIONARY_DIGITS.min(dictionary.len())];
            format!("\"{digits}-dcz.{dictionary}\"")
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_encoded_variant_s_etag_names_its_encoding() {
        let hash = "0123456789abcdef0123456789abcdef";
        let tag = super::etag(
            hash,
            super::Tagged::Encoded(super::super::encoding::Encoding::Br),
        );
        assert_eq!(tag, format!("\"{hash}-br\""));
    }

    #[test]
    fn an_etag_is_the_quoted_start_of_the_hash() {
        let tag = super::etag("0123456789abcdef0123456789abcdefffff", super::Tagged::File);
        assert_eq!(tag, "\"0123456789abcdef0123456789abcdef\"");
        assert_eq!(tag.len(), super::ETAG_LEN);
    }
}
