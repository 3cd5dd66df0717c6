//! Catalog keys: the paths a catalog holds and answers ([`crate::facts`]' rules, which the
//! runtime shares), and the prefix put before them.

use crate::Error;

pub use crate::facts::key::*;

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
