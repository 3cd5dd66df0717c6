//! Compression dictionary transport (RFC 9842), the request's side: which dictionary
//! `Available-Dictionary` says the client holds. The response's side (`Use-As-Dictionary`,
//! the deltas) is made once per file in `prepared.rs`.

use base64::Engine as _;

use crate::serve::head::text;

/// The SHA-256 an `Available-Dictionary` value names (a structured-field byte sequence,
/// `:<base64>:`), or `None` when it is not one of 32 bytes.
pub(crate) fn available(value: &[u8]) -> Option<[u8; 32]> {
    let inner = text(value)?.trim().strip_prefix(':')?.strip_suffix(':')?;
    // 32 bytes are 44 base64 characters; anything longer is not a SHA-256.
    if inner.len() != 44 {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .ok()?;
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::available;

    #[test]
    fn only_a_well_formed_sha256_is_read() {
        let hash = [7u8; 32];
        let encoded = format!(
            ":{}:",
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, hash)
        );
        assert_eq!(available(encoded.as_bytes()), Some(hash));
        assert_eq!(available(format!(" {encoded} ").as_bytes()), Some(hash));
        for bad in [
            "",
            "::",
            &encoded[1..],
            &encoded[..encoded.len() - 1],
            ":AAAA:",
            ":!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!:",
            "\"BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\"",
        ] {
            assert_eq!(available(bad.as_bytes()), None, "{bad:?}");
        }
    }
}
