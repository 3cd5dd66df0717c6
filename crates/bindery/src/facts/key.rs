// Generated from crates/bindery-core/src/facts/key.rs, which is the one to edit; then
// run `BINDERY_BLESS=1 cargo test -p bindery-core --test facts_copy`.
//! Catalog keys: the paths a catalog holds and answers, and the names that carry a content
//! hash. The runtime looks paths up by the same rules the build made them by.

/// The catalog key for `path`, or `None` when it can name no embedded file.
///
/// One leading `/` is accepted. Backslashes, NUL bytes, empty segments and `.` or `..` segments
/// are refused rather than resolved: catalog keys never contain them, so a path that does is
/// either a mistake or an attempt to escape, and must find nothing.
///
/// ```
/// use bindery_core::key::normalise;
/// assert_eq!(normalise("/a/b.txt"), Some("a/b.txt"));
/// assert_eq!(normalise("a/../b"), None);
/// ```
pub fn normalise(path: &str) -> Option<&str> {
    let key = path.strip_prefix('/').unwrap_or(path);
    if key.is_empty() || key.contains(['\\', '\0']) {
        return None;
    }
    let is_clean = key
        .split('/')
        .all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    is_clean.then_some(key)
}

/// How many hexadecimal digits of the content hash a fingerprinted name carries: 12, 48 bits,
/// as many as Vite's eight base64 characters. A fingerprinted file is cached for a year
/// without asking again, so what matters is the chance that an edited file keeps its old
/// fingerprint: 2^-48 per edit (with 32 bits, a site changing a thousand files a release would
/// reach one in four thousand over a thousand releases).
pub const FINGERPRINT_LEN: usize = 12;

/// A file's fingerprinted path: the first [`FINGERPRINT_LEN`] hex digits of its content `hash`
/// before the last extension of its name (`app.css` → `app.<hash>.css`), or after the name
/// when it has none (`LICENSE` → `LICENSE.<hash>`).
///
/// ```
/// use bindery_core::key::fingerprinted;
/// let hash = "3f2a9c1d0e4b5a6978695a4b3c2d1e0f3f2a9c1d0e4b5a6978695a4b3c2d1e0f";
/// assert_eq!(fingerprinted("css/app.css", hash), "css/app.3f2a9c1d0e4b.css");
/// assert_eq!(fingerprinted("app.min.js", hash), "app.min.3f2a9c1d0e4b.js");
/// assert_eq!(fingerprinted("LICENSE", hash), "LICENSE.3f2a9c1d0e4b");
/// assert_eq!(fingerprinted(".well-known/x", hash), ".well-known/x.3f2a9c1d0e4b");
/// ```
pub fn fingerprinted(path: &str, hash: &str) -> String {
    let digits = &hash[..FINGERPRINT_LEN.min(hash.len())];
    let name_start = path.rfind('/').map_or(0, |slash| slash + 1);
    match path[name_start..].rfind('.').filter(|&dot| dot > 0) {
        Some(dot) => {
            let (stem, extension) = path.split_at(name_start + dot);
            format!("{stem}.{digits}{extension}")
        }
        None => format!("{path}.{digits}"),
    }
}

/// The plain path and the hash digits of a path that may be [`fingerprinted`]
/// (`a.3f2a9c1d0e4b.css` is `a.css`; `LICENSE.3f2a9c1d0e4b` is `LICENSE`). The caller checks
/// that the plain file's fingerprinted path is exactly this one.
///
/// ```
/// use bindery_core::key::unfingerprinted;
/// assert_eq!(unfingerprinted("css/app.3f2a9c1d0e4b.css"), Some(("css/app.css".to_owned(), "3f2a9c1d0e4b")));
/// assert_eq!(unfingerprinted("LICENSE.3f2a9c1d0e4b"), Some(("LICENSE".to_owned(), "3f2a9c1d0e4b")));
/// assert_eq!(unfingerprinted("app.css"), None);
/// assert_eq!(unfingerprinted("app.3F2A9C1D0E4B.css"), None);
/// ```
pub fn unfingerprinted(path: &str) -> Option<(String, &str)> {
    let name_start = path.rfind('/').map_or(0, |slash| slash + 1);
    let name = &path[name_start..];
    let is_digits = |text: &str| {
        text.len() == FINGERPRINT_LEN
            && text
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    };
    let mut parts = name.rsplitn(3, '.');
    let last = parts.next()?;
    let before = parts.next()?;
    if is_digits(before) && parts.next().is_some_and(|stem| !stem.is_empty()) {
        let stem_end = path.len() - last.len() - FINGERPRINT_LEN - 2;
        return Some((format!("{}.{last}", &path[..stem_end]), before));
    }
    if is_digits(last) && !before.is_empty() {
        return Some((path[..path.len() - FINGERPRINT_LEN - 1].to_owned(), last));
    }
    None
}

/// The `match` pattern of `Use-As-Dictionary` (RFC 9842) for a file whose name carries a content
/// hash: the path with the hash replaced by `*`, so that it covers the file's next versions.
/// Two forms of hashed names are known: bindery's [`fingerprinted`] (`app.3f2a9c1d0e4b.css` →
/// `app.*.css`) and Vite's and Rollup's default `[name]-[hash]` of eight base64url characters
/// (`assets/index-MBSfBoIx.js` → `assets/index-*.js`). `None` for another name, or one holding a
/// character that URL patterns or structured-field strings would have to escape.
///
/// ```
/// use bindery_core::key::hash_pattern;
/// assert_eq!(hash_pattern("assets/index-MBSfBoIx.js").as_deref(), Some("assets/index-*.js"));
/// assert_eq!(hash_pattern("assets/my-chunk-a_b-C9zZ.js").as_deref(), Some("assets/my-chunk-*.js"));
/// assert_eq!(hash_pattern("app.3f2a9c1d0e4b.css").as_deref(), Some("app.*.css"));
/// assert_eq!(hash_pattern("app.css"), None);
/// assert_eq!(hash_pattern("assets/a+b-MBSfBoIx.js"), None);
/// ```
pub fn hash_pattern(path: &str) -> Option<String> {
    let plain = |byte: u8| byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte);
    if !path.bytes().all(plain) {
        return None;
    }
    if let Some((_, digits)) = unfingerprinted(path) {
        let at = path.rfind(digits)?;
        return Some(format!("{}*{}", &path[..at], &path[at + digits.len()..]));
    }
    const VITE_HASH: usize = 8;
    let name_start = path.rfind('/').map_or(0, |slash| slash + 1);
    let stem_end = path[name_start..]
        .rfind('.')
        .filter(|&dot| dot > 0)
        .map_or(path.len(), |dot| name_start + dot);
    let stem = &path[name_start..stem_end];
    let hash_start = stem.len().checked_sub(VITE_HASH)?;
    let is_hash = stem[hash_start..]
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if hash_start < 2 || stem.as_bytes()[hash_start - 1] != b'-' || !is_hash {
        return None;
    }
    let at = name_start + hash_start;
    Some(format!("{}*{}", &path[..at], &path[stem_end..]))
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn accepts_plain_and_rooted_paths() {
        assert_eq!(normalise("a/b.txt"), Some("a/b.txt"));
        assert_eq!(normalise("/a/b.txt"), Some("a/b.txt"));
        assert_eq!(normalise("..."), Some("..."));
        assert_eq!(normalise("a/.hidden"), Some("a/.hidden"));
    }

    #[test]
    fn refuses_escapes_and_odd_shapes() {
        for path in [
            "", "/", "//a", "a//b", "a/", "../a", "a/../b", "a/..", "./a", "a/./b", "a\\b",
            "..\\a", "a\0b",
        ] {
            assert_eq!(normalise(path), None, "{path:?}");
        }
    }
}
