//! Per-file header values computed once when the service is built, never per request.

use http::HeaderValue;

use crate::{EmbeddedFile, Encoding};

/// `Cache-Control` for files whose name carries a content hash: they never change.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` for everything else: cache, but revalidate (cheap with ETags and 304s).
pub const NO_CACHE: &str = "no-cache";

/// The default `Cache-Control` policy: [`IMMUTABLE`] for non-HTML files whose name carries a
/// content hash (`app.3f9a1b2c.js`, `index-BdXw3aQ1.css`), [`NO_CACHE`] otherwise.
///
/// ```
/// use bindery::serve::{IMMUTABLE, NO_CACHE, default_cache_control};
/// static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
///
/// assert_eq!(default_cache_control(ASSETS.file("app.js").unwrap()), NO_CACHE);
/// assert_eq!(default_cache_control(ASSETS.file("index.html").unwrap()), NO_CACHE);
/// assert!(bindery::serve::is_fingerprinted("assets/app.3f9a1b2c.js"));
/// # let _ = IMMUTABLE;
/// ```
pub fn default_cache_control(file: &EmbeddedFile) -> &'static str {
    if file.mime() != "text/html" && is_fingerprinted(file.path()) {
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
/// use bindery::serve::is_fingerprinted;
/// assert!(is_fingerprinted("app.3f9a1b2c.js"));
/// assert!(is_fingerprinted("assets/index-BdXw3aQ1.js"));
/// assert!(is_fingerprinted("vendor.deadbeefcafe.js"));
/// assert!(!is_fingerprinted("chunk-vendors.js"));
/// assert!(!is_fingerprinted("3f9a1b2c3d.js"));
/// assert!(!is_fingerprinted("report-20240101.pdf"));
/// ```
pub fn is_fingerprinted(path: &str) -> bool {
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

/// One encoded representation of a file, with its header values ready.
#[derive(Debug, Clone)]
pub(crate) struct Representation {
    pub encoding: Encoding,
    pub bytes: &'static [u8],
    pub etag_text: &'static str,
    pub etag: HeaderValue,
    pub len: HeaderValue,
    pub content_encoding: HeaderValue,
}

impl Representation {
    pub(crate) fn new(encoding: Encoding, bytes: &'static [u8], etag_text: &'static str) -> Self {
        Representation {
            encoding,
            bytes,
            etag_text,
            etag: HeaderValue::try_from(etag_text)
                .unwrap_or_else(|_| HeaderValue::from_static("invalid")),
            len: HeaderValue::from(bytes.len()),
            content_encoding: HeaderValue::from_static(encoding.as_str()),
        }
    }
}

/// Header values for one file.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub file: &'static EmbeddedFile,
    pub content_type: HeaderValue,
    pub etag: HeaderValue,
    pub last_modified: Option<HeaderValue>,
    pub cache_control: HeaderValue,
    pub identity_len: HeaderValue,
    /// Every encoded representation, smallest first (ties in [`Encoding::ALL`] order), so the
    /// first of the best q-value is the smallest.
    pub representations: Box<[Representation]>,
}

impl Prepared {
    pub(crate) fn new(
        file: &'static EmbeddedFile,
        cache_control: &dyn Fn(&EmbeddedFile) -> HeaderValue,
    ) -> Self {
        let text = |value: &'static str| {
            HeaderValue::try_from(value).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
        };
        Prepared {
            file,
            content_type: HeaderValue::try_from(file.content_type())
                .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream")),
            etag: text(file.etag()),
            last_modified: file
                .modified()
                .and_then(|time| HeaderValue::try_from(httpdate::fmt_http_date(time)).ok()),
            cache_control: cache_control(file),
            identity_len: HeaderValue::from(file.len()),
            representations: representations(file),
        }
    }
}

fn representations(file: &'static EmbeddedFile) -> Box<[Representation]> {
    let mut representations: Vec<Representation> = file
        .encodings()
        .filter_map(|encoding| {
            let (bytes, etag) = file.representation(encoding)?;
            Some(Representation::new(encoding, bytes, etag))
        })
        .collect();
    // A stable sort keeps `Encoding::ALL` order among equal sizes.
    representations.sort_by_key(|representation| representation.bytes.len());
    representations.into_boxed_slice()
}
