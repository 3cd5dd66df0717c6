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
/// assert_eq!(bindery_core::CONTRACT, 7);
/// ```
pub const CONTRACT: u32 = 7;

/// The length of the content hash in lowercase hexadecimal (XXH3-128: 32 digits), as file
/// records, blob names and ETags carry it.
///
/// ```
/// assert_eq!(bindery_core::HASH_LEN, "0123456789abcdef0123456789abcdef".len());
/// ```
pub const HASH_LEN: usize = 32;

/// The length of every ETag: a quote, the content hash, a quote.
///
/// ```
/// assert_eq!(bindery_core::ETAG_LEN, "\"0123456789abcdef0123456789abcdef\"".len());
/// ```
pub const ETAG_LEN: usize = HASH_LEN + 2;

/// The strong ETag of contents with this content `hash` (lowercase hex): its first
/// [`ETAG_LEN`]` - 2` digits, quoted.
pub fn etag(hash: &str) -> String {
    let digits = ETAG_LEN - 2;
    format!("\"{}\"", &hash[..digits.min(hash.len())])
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_etag_is_the_quoted_start_of_the_hash() {
        let tag = super::etag("0123456789abcdef0123456789abcdefffff");
        assert_eq!(tag, "\"0123456789abcdef0123456789abcdef\"");
        assert_eq!(tag.len(), super::ETAG_LEN);
    }
}
