//! Dev mode: read files from the embedded folder on disk, jailed to that folder.
//!
//! Only compiled in when the `dev` feature is on and debug assertions are enabled; release builds
//! always read the embedded bytes.

/// Reads `path` from the folder `root` the catalog was built from, or `None`.
///
/// The path goes through the same normalisation as a catalog lookup (no `..`, no backslash, no NUL),
/// hidden segments are refused, and the resolved file must still lie inside `root` once symlinks
/// are resolved: nothing outside the folder can be read.
#[cfg(all(feature = "dev", debug_assertions))]
pub(crate) fn read(root: &str, prefix: &str, path: &str) -> Option<Vec<u8>> {
    let key = crate::lookup::normalise(path)?;
    let relative = key.strip_prefix(prefix)?;
    if relative.is_empty() || relative.split('/').any(|segment| segment.starts_with('.')) {
        return None;
    }
    let root = std::fs::canonicalize(root).ok()?;
    let resolved = std::fs::canonicalize(root.join(relative)).ok()?;
    if !resolved.starts_with(&root) || !resolved.is_file() {
        return None;
    }
    std::fs::read(resolved).ok()
}

#[cfg(not(all(feature = "dev", debug_assertions)))]
pub(crate) fn read(_root: &str, _prefix: &str, _path: &str) -> Option<Vec<u8>> {
    None
}
