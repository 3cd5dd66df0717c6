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
    let digits = crate::ETAG_LEN - 2;
    format!("\"{}\"", &hash[..digits.min(hash.len())])
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

/// Every digest bindery records of a file's contents: the BLAKE3 [`hash`] (ETags and
/// fingerprints come from it), SHA-256, and the Subresource Integrity string in the catalog's
/// algorithm. Made in one pass by a [`Digester`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digests {
    /// BLAKE3, lowercase hex (64 characters).
    pub hash: String,
    /// SHA-256.
    pub sha256: [u8; 32],
    /// `sha384-<base64>` (or the algorithm asked for).
    pub integrity: String,
}

/// The hashes of [`Digests`], fed as the bytes stream by.
///
/// ```
/// use bindery_core::{Integrity, describe::{Digester, digests}};
/// let mut digester = Digester::new(Integrity::Sha384);
/// digester.update(b"Hello, ");
/// digester.update(b"bindery!\n");
/// let streamed = digester.finish();
/// assert_eq!(streamed, digests(b"Hello, bindery!\n", Integrity::Sha384));
/// assert!(streamed.integrity.starts_with("sha384-"));
/// ```
#[derive(Debug, Clone)]
pub struct Digester {
    blake3: blake3::Hasher,
    sha256: sha2::Sha256,
    integrity: Sri,
}

#[derive(Debug, Clone)]
enum Sri {
    /// SHA-256 is also the integrity hash: computed once.
    Sha256,
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Digester {
    /// A digester whose integrity string uses `integrity`.
    pub fn new(integrity: crate::Integrity) -> Self {
        use sha2::Digest as _;
        Digester {
            blake3: blake3::Hasher::new(),
            sha256: sha2::Sha256::new(),
            integrity: match integrity {
                crate::Integrity::Sha256 => Sri::Sha256,
                crate::Integrity::Sha384 => Sri::Sha384(sha2::Sha384::new()),
                crate::Integrity::Sha512 => Sri::Sha512(sha2::Sha512::new()),
            },
        }
    }

    /// Feeds the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest as _;
        self.blake3.update(bytes);
        self.sha256.update(bytes);
        match &mut self.integrity {
            Sri::Sha256 => {}
            Sri::Sha384(hasher) => hasher.update(bytes),
            Sri::Sha512(hasher) => hasher.update(bytes),
        }
    }

    /// The digests of everything fed.
    pub fn finish(self) -> Digests {
        use base64::Engine as _;
        use sha2::Digest as _;
        let sha256: [u8; 32] = self.sha256.finalize().into();
        let (name, digest) = match self.integrity {
            Sri::Sha256 => ("sha256", sha256.to_vec()),
            Sri::Sha384(hasher) => ("sha384", hasher.finalize().to_vec()),
            Sri::Sha512(hasher) => ("sha512", hasher.finalize().to_vec()),
        };
        let encoded = base64::engine::general_purpose::STANDARD.encode(digest);
        Digests {
            hash: self.blake3.finalize().to_hex().to_string(),
            sha256,
            integrity: format!("{name}-{encoded}"),
        }
    }
}

/// The [`Digests`] of `bytes`, the integrity string in `integrity`.
///
/// ```
/// use bindery_core::{Integrity, describe::digests};
/// // `printf 'alert(1)' | openssl dgst -sha256 -binary | base64`
/// let digests = digests(b"alert(1)", Integrity::Sha256);
/// assert_eq!(digests.integrity, "sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI=");
/// ```
pub fn digests(bytes: &[u8], integrity: crate::Integrity) -> Digests {
    let mut digester = Digester::new(integrity);
    digester.update(bytes);
    digester.finish()
}
