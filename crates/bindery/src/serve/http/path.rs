//! Request paths: percent-decode once, then refuse anything that could step outside the catalog.

use std::borrow::Cow;

use percent_encoding::{AsciiSet, percent_decode_str};

/// Bytes a `Location` URI-reference cannot carry raw (RFC 3986 §3.3, §3.4): controls, space,
/// non-ASCII (always escaped by `percent_encode`) and the delimiters outside `pchar` and `query`.
/// `%` stays, so escapes the client sent are passed on unchanged.
pub(crate) const NOT_URI: &AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// What a catalog path must escape to be a URL path: what a `Location` cannot carry raw, `%`
/// (a catalog path is not yet escaped), `?` (else the rest of the name is a query), and `&` and
/// `'`, so that the URL can go into an HTML attribute as it is. `/` stays: it separates folders
/// in both.
pub(crate) const URL_PATH: &AsciiSet = &NOT_URI.add(b'%').add(b'?').add(b'&').add(b'\'');

/// Calls `with` on `parts` joined, in a buffer on the stack when they fit (a catalog key and
/// a suffix, looked up on every miss: no allocation per request), else in a `String`.
pub(crate) fn joined<R>(parts: &[&str], with: impl FnOnce(&str) -> R) -> R {
    let mut buffer = [0u8; 512];
    let len: usize = parts.iter().map(|part| part.len()).sum();
    if len > buffer.len() {
        return with(&parts.concat());
    }
    let mut at = 0;
    for part in parts {
        buffer[at..at + part.len()].copy_from_slice(part.as_bytes());
        at += part.len();
    }
    // Whole strings, end to end: valid UTF-8.
    match std::str::from_utf8(&buffer[..len]) {
        Ok(text) => with(text),
        Err(_) => with(&parts.concat()),
    }
}

/// Why a request path is refused (answered with 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathError {
    TooLong,
    EncodedSeparator,
    InvalidUtf8,
    Nul,
    Backslash,
    DotSegment,
}

impl PathError {
    /// What the 400 says.
    pub(crate) fn message(self) -> &'static str {
        match self {
            PathError::TooLong => "path too long",
            PathError::EncodedSeparator => "encoded slash or backslash in path",
            PathError::InvalidUtf8 => "path is not valid UTF-8",
            PathError::Nul => "NUL byte in path",
            PathError::Backslash => "backslash in path",
            PathError::DotSegment => "`.` or `..` segment in path",
        }
    }
}

/// Decodes a raw request path (as it came on the wire, starting with `/`) exactly once and checks
/// it. Double-encoded input such as `%252e%252e` decodes to the literal text `%2e%2e`, which can
/// only ever match a file of that name inside the catalog. A path with no `%` (most) is
/// borrowed as it is.
pub(crate) fn decode(raw: &str, max_len: usize) -> Result<Cow<'_, str>, PathError> {
    if raw.len() > max_len {
        return Err(PathError::TooLong);
    }
    let decoded = if raw.contains('%') {
        let has_encoded_separator = raw.as_bytes().windows(3).any(|window| {
            window[0] == b'%'
                && matches!(
                    (window[1], window[2].to_ascii_lowercase()),
                    (b'2', b'f') | (b'5', b'c')
                )
        });
        if has_encoded_separator {
            return Err(PathError::EncodedSeparator);
        }
        percent_decode_str(raw)
            .decode_utf8()
            .map_err(|_| PathError::InvalidUtf8)?
    } else {
        Cow::Borrowed(raw)
    };
    if decoded.contains('\0') {
        return Err(PathError::Nul);
    }
    if decoded.contains('\\') {
        return Err(PathError::Backslash);
    }
    if decoded
        .split('/')
        .any(|segment| segment == "." || segment == "..")
    {
        return Err(PathError::DotSegment);
    }
    Ok(decoded)
}

#[cfg(test)]
mod tests {
    #[test]
    fn parts_are_joined_on_the_stack_or_the_heap_alike() {
        assert_eq!(
            super::joined(&["docs", "/", "index.html"], str::to_owned),
            "docs/index.html"
        );
        let long = "é".repeat(300);
        assert_eq!(super::joined(&[&long, ".html"], str::len), long.len() + 5);
        assert_eq!(super::joined(&[], str::to_owned), "");
    }

    use super::{PathError, decode};

    #[test]
    fn decodes_once() {
        assert_eq!(
            decode("/with%20space.txt", 100).as_deref(),
            Ok("/with space.txt")
        );
        assert_eq!(decode("/%252e%252e/x", 100).as_deref(), Ok("/%2e%2e/x"));
        assert_eq!(decode("/unicod%C3%A9", 100).as_deref(), Ok("/unicodé"));
    }

    #[test]
    fn refuses_escapes() {
        let cases = [
            ("/../etc/passwd", PathError::DotSegment),
            ("/%2e%2e/etc/passwd", PathError::DotSegment),
            ("/%2E%2E/etc/passwd", PathError::DotSegment),
            ("/a/./b", PathError::DotSegment),
            ("/..%2fetc", PathError::EncodedSeparator),
            ("/..%5cetc", PathError::EncodedSeparator),
            ("/..%5Cetc", PathError::EncodedSeparator),
            ("/a\\b", PathError::Backslash),
            ("/a%00b", PathError::Nul),
            ("/%ff%fe", PathError::InvalidUtf8),
        ];
        for (raw, expected) in cases {
            assert_eq!(decode(raw, 100), Err(expected), "{raw}");
        }
        assert_eq!(
            decode(&format!("/{}", "a".repeat(100)), 100),
            Err(PathError::TooLong)
        );
    }
}
