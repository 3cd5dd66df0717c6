//! Writing paths and strings into generated code.

use std::path::{Component, Path};

use proc_macro2::TokenStream;
use quote::quote;

/// Appends `text` as a Rust string literal. Plain ASCII is copied as it is (the common case, and
/// fast even in the unoptimised builds proc macros get); anything else is escaped as `{:?}`
/// would.
///
/// ```
/// let mut out = String::new();
/// bindery_codegen::emit::push_literal(&mut out, "a\"b");
/// assert_eq!(out, r#""a\"b""#);
/// ```
pub fn push_string_literal(out: &mut String, text: &str) {
    out.push('"');
    for (index, byte) in text.bytes().enumerate() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(byte)),
            _ => {
                // The rest, from the first byte that is not plain ASCII, the standard way.
                let debug = format!("{:?}", &text[index..]);
                out.push_str(&debug[1..]);
                return;
            }
        }
    }
    out.push('"');
}

/// Appends a digest as a byte string literal (`b"\x6c\xf4…"`), whose type is `&'static [u8; N]`:
/// one token for the compiler, like the ETag's string. Digests are metadata of a few bytes;
/// file contents never go through here (they are `include_bytes!` of files).
pub(crate) fn push_digest_literal(out: &mut String, digest: &[u8]) {
    use std::fmt::Write as _;
    out.push_str("b\"");
    for byte in digest {
        let _ = write!(out, "\\x{byte:02x}");
    }
    out.push('"');
}

/// `concat!(env!("CARGO_MANIFEST_DIR"), "/<relative>")` for any absolute path: files outside the
/// crate (a shared assets folder, the cache under `target/`) are reached through `..`, so no path
/// of the building machine appears in the expansion.
pub(crate) fn under_manifest_dir(manifest_dir: &Path, path: &Path) -> Option<TokenStream> {
    let suffix = manifest_suffix(manifest_dir, path)?;
    Some(quote!(
        ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix)
    ))
}

/// `/<path relative to the manifest folder>`, `/`-separated.
pub(crate) fn manifest_suffix(manifest_dir: &Path, path: &Path) -> Option<String> {
    let relative = pathdiff::diff_paths(path, manifest_dir)?;
    Some(format!("/{}", slash_path(&relative)))
}

/// A path with `/` separators, as `include_bytes!` accepts on every host.
pub(crate) fn slash_path(path: &Path) -> String {
    let mut text = String::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => text.push_str(&prefix.as_os_str().to_string_lossy()),
            Component::RootDir => text.push('/'),
            other => {
                if !text.is_empty() && !text.ends_with('/') {
                    text.push('/');
                }
                text.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    text
}

/// Whether the assembler can take this path inside `.incbin "…"` within a `global_asm!` template:
/// printable ASCII without quotes, backslashes or the template's braces. Anything else falls back
/// to `include_bytes!`.
pub(crate) fn is_assembler_safe(path: &str) -> bool {
    path.bytes()
        .all(|byte| (0x20..0x7f).contains(&byte) && !matches!(byte, b'"' | b'\\' | b'{' | b'}'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn string_literals_are_written_as_debug_writes_them() {
        for text in [
            "plain/path.txt\"0123456789abcdef0123456789abcdef\"",
            "",
            "quote\"and\\backslash",
            "tab\tnewline\ncontrol\u{1}del\u{7f}",
            "unicodé-日本.txt",
            "a\u{301}combining",
            "emoji 😀 then \"quotes\"",
        ] {
            let mut out = String::new();
            super::push_string_literal(&mut out, text);
            assert_eq!(out, format!("{text:?}"), "{text}");
        }
    }
}
