//! What bindery records about one file from its name and contents: the content hash, the strong
//! ETag derived from it, the media type and the `Content-Type` value, and (feature `integrity`)
//! SHA-256 and the Subresource Integrity string. One definition for builds and for bindery's dev
//! mode, which computes the same facts when it reads a file from disk.
//!
//! The content hash is XXH3-128: ETags and fingerprinted names need a hash that changes with
//! the contents, not one that resists an attacker (the files are the site's own), and XXH3 is
//! one small crate of pure Rust, fast even unoptimised, as a build's proc macro runs. SHA-2 is
//! computed only where something asks for it: integrity strings, release records, dictionaries.

/// The content hash of `bytes` (XXH3-128), in lowercase hex (32 characters).
///
/// ```
/// let hash = bindery_core::describe::hash(b"Hello, bindery!\n");
/// assert_eq!(hash.len(), 32);
/// assert_ne!(hash, bindery_core::describe::hash(b"Hello, bindery?\n"));
/// ```
pub fn hash(bytes: &[u8]) -> String {
    hex(xxhash_rust::xxh3::xxh3_128(bytes))
}

/// A 128-bit hash in [`HASH_LEN`](crate::HASH_LEN) lowercase hex digits.
fn hex(hash: u128) -> String {
    format!("{hash:0width$x}", width = crate::HASH_LEN)
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

/// The media type the extension of `path` is known by, or `None` (`LICENSE`, `data.bin2`).
///
/// ```
/// use bindery_core::describe::known_mime;
/// assert_eq!(known_mime("a.css"), Some("text/css"));
/// assert_eq!(known_mime("LICENSE"), None);
/// ```
pub fn known_mime(path: &str) -> Option<&'static str> {
    mime_guess::from_path(path).first_raw()
}

/// Media types chosen by path ([`Rules::types`](crate::rules::Rules::types)): `glob=type`
/// rules, each checked once, the first that matches a path winning over the extension's guess.
///
/// ```
/// use bindery_core::describe::MediaTypes;
/// let types = MediaTypes::new(&[".well-known/apple-app-site-association=application/json".into()]).unwrap();
/// assert_eq!(types.of(".well-known/apple-app-site-association"), Some("application/json"));
/// assert_eq!(types.of("index.html"), None);
/// assert!(MediaTypes::new(&["*.x=not a type".into()]).is_err());
/// ```
#[cfg(feature = "glob")]
#[derive(Debug, Clone, Default)]
pub struct MediaTypes(Vec<(crate::glob::Glob, String)>);

#[cfg(feature = "glob")]
impl MediaTypes {
    /// The rules, or [`Error::MediaType`](crate::Error::MediaType) naming the first one that is
    /// not `glob=type`, whose glob does not compile, or whose type is not a media type.
    pub fn new(rules: &[String]) -> Result<MediaTypes, crate::Error> {
        let mut compiled = Vec::with_capacity(rules.len());
        for rule in rules {
            let bad = |reason: String| crate::Error::MediaType {
                rule: rule.clone(),
                reason,
            };
            let (glob, media_type) = rule
                .rsplit_once('=')
                .ok_or_else(|| bad("expected `glob=type`".to_owned()))?;
            let parsed: mime_guess::mime::Mime = media_type.trim().parse().map_err(|error| {
                bad(format!(
                    "`{}` is not a media type: {error}",
                    media_type.trim()
                ))
            })?;
            let glob =
                crate::glob::compile_glob(glob.trim()).map_err(|error| bad(error.message))?;
            compiled.push((glob, parsed.essence_str().to_owned()));
        }
        Ok(MediaTypes(compiled))
    }

    /// The media type the first matching rule gives the file at `path`, if any.
    pub fn of(&self, path: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(glob, _)| glob.is_match(path))
            .map(|(_, media_type)| media_type.as_str())
    }
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

/// Every digest bindery records of a file's contents: the content [`hash`] (ETags and
/// fingerprints come from it) and, when integrity is asked for, SHA-256 and the Subresource
/// Integrity string in the catalog's algorithm. Made in one pass by a [`Digester`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digests {
    /// XXH3-128, lowercase hex (32 characters).
    pub hash: String,
    /// SHA-256, when integrity is asked for.
    pub sha256: Option<[u8; 32]>,
    /// `sha384-<base64>` (or the algorithm asked for), when integrity is asked for.
    pub integrity: Option<String>,
}

/// The hashes of [`Digests`], fed as the bytes stream by.
///
/// ```
/// use bindery_core::describe::{Digester, digests};
/// let mut digester = Digester::new(None);
/// digester.update(b"Hello, ");
/// digester.update(b"bindery!\n");
/// let streamed = digester.finish();
/// assert_eq!(streamed, digests(b"Hello, bindery!\n", None));
/// assert_eq!((streamed.sha256, streamed.integrity), (None, None));
/// ```
#[derive(Clone)]
pub struct Digester {
    hash: xxhash_rust::xxh3::Xxh3,
    #[cfg(feature = "integrity")]
    sri: Option<sri::Sri>,
}

impl std::fmt::Debug for Digester {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Digester").finish_non_exhaustive()
    }
}

impl Digester {
    /// A digester that also makes SHA-256 and the integrity string in `integrity`, when given.
    /// Without the feature `integrity` nothing but the content hash is made (the build refuses
    /// `integrity` before it gets here, naming the feature).
    pub fn new(integrity: Option<crate::Integrity>) -> Self {
        #[cfg(not(feature = "integrity"))]
        let _ = integrity;
        Digester {
            hash: xxhash_rust::xxh3::Xxh3::new(),
            #[cfg(feature = "integrity")]
            sri: integrity.map(sri::Sri::new),
        }
    }

    /// Feeds the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.hash.update(bytes);
        #[cfg(feature = "integrity")]
        if let Some(sri) = &mut self.sri {
            sri.update(bytes);
        }
    }

    /// The digests of everything fed.
    pub fn finish(self) -> Digests {
        #[cfg(feature = "integrity")]
        let (sha256, integrity) = match self.sri {
            Some(sri) => {
                let (sha256, integrity) = sri.finish();
                (Some(sha256), Some(integrity))
            }
            None => (None, None),
        };
        #[cfg(not(feature = "integrity"))]
        let (sha256, integrity) = (None, None);
        Digests {
            hash: hex(self.hash.digest128()),
            sha256,
            integrity,
        }
    }
}

/// The [`Digests`] of `bytes`, the integrity string (with SHA-256) in `integrity` when given.
///
/// ```
/// # #[cfg(feature = "integrity")] {
/// use bindery_core::{Integrity, describe::digests};
/// // `printf 'alert(1)' | openssl dgst -sha256 -binary | base64`
/// let digests = digests(b"alert(1)", Some(Integrity::Sha256));
/// assert_eq!(digests.integrity.unwrap(), "sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI=");
/// # }
/// ```
pub fn digests(bytes: &[u8], integrity: Option<crate::Integrity>) -> Digests {
    let mut digester = Digester::new(integrity);
    digester.update(bytes);
    digester.finish()
}

#[cfg(feature = "integrity")]
mod sri {
    use sha2::Digest as _;

    /// SHA-256 and the integrity string's own hash (SHA-256 itself computed once).
    #[derive(Clone)]
    pub(super) struct Sri {
        sha256: sha2::Sha256,
        other: Other,
    }

    #[derive(Clone)]
    enum Other {
        Sha256,
        Sha384(sha2::Sha384),
        Sha512(sha2::Sha512),
    }

    impl Sri {
        pub(super) fn new(integrity: crate::Integrity) -> Sri {
            Sri {
                sha256: sha2::Sha256::new(),
                other: match integrity {
                    crate::Integrity::Sha256 => Other::Sha256,
                    crate::Integrity::Sha384 => Other::Sha384(sha2::Sha384::new()),
                    crate::Integrity::Sha512 => Other::Sha512(sha2::Sha512::new()),
                },
            }
        }

        pub(super) fn update(&mut self, bytes: &[u8]) {
            self.sha256.update(bytes);
            match &mut self.other {
                Other::Sha256 => {}
                Other::Sha384(hasher) => hasher.update(bytes),
                Other::Sha512(hasher) => hasher.update(bytes),
            }
        }

        /// SHA-256, and the integrity string.
        pub(super) fn finish(self) -> ([u8; 32], String) {
            use base64::Engine as _;
            let sha256: [u8; 32] = self.sha256.finalize().into();
            let (name, digest) = match self.other {
                Other::Sha256 => ("sha256", sha256.to_vec()),
                Other::Sha384(hasher) => ("sha384", hasher.finalize().to_vec()),
                Other::Sha512(hasher) => ("sha512", hasher.finalize().to_vec()),
            };
            let encoded = base64::engine::general_purpose::STANDARD.encode(digest);
            (sha256, format!("{name}-{encoded}"))
        }
    }
}
