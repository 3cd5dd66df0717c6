//! What bindery records about one file from its name and contents: the content hash, the strong
//! ETag derived from it, the media type and the `Content-Type` value. One definition for builds
//! and for bindery's dev mode, which computes the same facts when it reads a file from disk.

/// The BLAKE3 hash of `bytes`, in lowercase hex (64 characters).
///
/// ```
/// let hash = bindery_core::describe::hash(b"Hello, bindery!\n");
/// assert_eq!(hash.len(), 64);
/// ```
pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The strong ETag of contents with this [`hash`], quoted: its first 128 bits.
///
/// ```
/// use bindery_core::describe::{etag, hash};
/// let tag = etag(&hash(b"Hello, bindery!\n"));
/// assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() == 34);
/// ```
pub fn etag(hash: &str) -> String {
    format!("\"{}\"", &hash[..32.min(hash.len())])
}

/// The media type guessed from a file's name, `application/octet-stream` when unknown.
///
/// ```
/// use bindery_core::describe::mime;
/// assert_eq!(mime("js/app.js"), "text/javascript");
/// assert_eq!(mime("data.unknown-extension"), "application/octet-stream");
/// ```
pub fn mime(path: &str) -> &'static str {
    mime_guess::from_path(path)
        .first_raw()
        .unwrap_or("application/octet-stream")
}

/// The `Content-Type` value for a media type: text types get an explicit charset so browsers
/// never sniff one.
///
/// ```
/// use bindery_core::describe::content_type;
/// assert_eq!(content_type("text/css"), "text/css; charset=utf-8");
/// assert_eq!(content_type("image/png"), "image/png");
/// ```
pub fn content_type(mime: &str) -> String {
    let is_text = mime.starts_with("text/")
        || matches!(
            mime,
            "application/javascript"
                | "application/json"
                | "application/xml"
                | "application/manifest+json"
                | "image/svg+xml"
        );
    if is_text {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_owned()
    }
}
