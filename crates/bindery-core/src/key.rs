//! Catalog keys: the paths a catalog holds and answers, and the prefix put before them.

use crate::Error;

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

/// Checks a catalog path prefix and gives it its normal form: `""` or a clean relative path
/// ending in `/`.
///
/// ```
/// use bindery_core::key::normalise_prefix;
/// assert_eq!(normalise_prefix("static").unwrap(), "static/");
/// assert_eq!(normalise_prefix("a/b/").unwrap(), "a/b/");
/// assert_eq!(normalise_prefix("").unwrap(), "");
/// assert!(normalise_prefix("../up").is_err());
/// ```
pub fn normalise_prefix(prefix: &str) -> Result<String, Error> {
    let refuse = |reason| {
        Err(Error::Prefix {
            prefix: prefix.to_owned(),
            reason,
        })
    };
    let trimmed = prefix.strip_suffix('/').unwrap_or(prefix);
    if trimmed.is_empty() {
        return if prefix.is_empty() {
            Ok(String::new())
        } else {
            refuse("it must be relative")
        };
    }
    if trimmed.starts_with('/') {
        return refuse("it must be relative");
    }
    if trimmed.contains(['\\', '\0']) {
        return refuse("it must not hold backslashes or NUL");
    }
    if trimmed
        .split('/')
        .any(|segment| segment.is_empty() || segment == "." || segment == "..")
    {
        return refuse("it must not hold empty, `.` or `..` segments");
    }
    Ok(format!("{trimmed}/"))
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
