//! Turning a caller's path into a catalog key, or refusing it.

/// Returns the catalog key for `path`, or `None` when it can name no embedded file.
///
/// One leading `/` is accepted. Backslashes, NUL bytes, empty segments and `.` or `..` segments
/// are refused rather than resolved: catalog keys never contain them, so a path that does is
/// either a mistake or an attempt to escape, and must find nothing.
pub(crate) fn normalise(path: &str) -> Option<&str> {
    let key = path.strip_prefix('/').unwrap_or(path);
    if key.is_empty() || key.contains(['\\', '\0']) {
        return None;
    }
    let is_clean = key
        .split('/')
        .all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    is_clean.then_some(key)
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
