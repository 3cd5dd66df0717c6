//! `Cache-Control` policies: [`IMMUTABLE`] for bytes that never change under their URL,
//! [`NO_CACHE`] for the rest, and [`default`], the policy a service uses unless told otherwise
//! ([`Builder::cache_control`](super::Builder::cache_control)).

use crate::EmbeddedFile;

/// `Cache-Control` for files whose name carries a content hash: they never change.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` for everything else: cache, but revalidate (cheap with ETags and 304s).
pub const NO_CACHE: &str = "no-cache";

/// The default `Cache-Control` policy: [`IMMUTABLE`] for non-HTML files whose name carries a
/// content hash (`app.3f9a1b2c.js`, `index-BdXw3aQ1.css`), [`NO_CACHE`] otherwise.
///
/// ```
/// use bindery::serve::cache_control::{self, NO_CACHE};
/// static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
///
/// assert_eq!(cache_control::default(ASSETS.file("app.js").unwrap()), NO_CACHE);
/// assert_eq!(cache_control::default(ASSETS.file("index.html").unwrap()), NO_CACHE);
/// assert!(cache_control::has_content_hash("assets/app.3f9a1b2c.js"));
/// ```
pub fn default(file: &EmbeddedFile) -> &'static str {
    if file.mime() != "text/html" && has_content_hash(file.path()) {
        IMMUTABLE
    } else {
        NO_CACHE
    }
}

/// Whether a file name carries a content hash: a part between `.`, `-` or `_` (not the first
/// nor the extension) of 8 to 64 ASCII letters and digits that mixes letters and digits, or is
/// hexadecimal with at least one letter. All-digit parts are dates or versions, not hashes.
///
/// ```
/// use bindery::serve::cache_control::has_content_hash;
/// assert!(has_content_hash("app.3f9a1b2c.js"));
/// assert!(has_content_hash("assets/index-BdXw3aQ1.js"));
/// assert!(has_content_hash("vendor.deadbeefcafe.js"));
/// assert!(!has_content_hash("chunk-vendors.js"));
/// assert!(!has_content_hash("3f9a1b2c3d.js"));
/// assert!(!has_content_hash("report-20240101.pdf"));
/// ```
pub fn has_content_hash(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parts: Vec<&str> = name.split(['.', '-', '_']).collect();
    let Some(middle) = parts.get(1..parts.len().saturating_sub(1)) else {
        return false;
    };
    middle.iter().any(|part| {
        let has_digit = part.bytes().any(|byte| byte.is_ascii_digit());
        let has_letter = part.bytes().any(|byte| byte.is_ascii_alphabetic());
        let is_hex = part.bytes().all(|byte| byte.is_ascii_hexdigit());
        (8..=64).contains(&part.len())
            && part.bytes().all(|byte| byte.is_ascii_alphanumeric())
            && has_letter
            && (has_digit || is_hex)
    })
}
