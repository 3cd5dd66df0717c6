//! One embedded file: its stored bytes and the metadata computed for it at build time.

use std::borrow::Cow;
#[cfg(feature = "gzip")]
use std::io::Read;
use std::time::{Duration, SystemTime};

use crate::facts::contract::ETAG_LEN;

use crate::{Encoding, Error};

/// A file in a [`Catalog`](crate::Catalog), with everything a server needs computed at build time.
///
/// ```
/// static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
///
/// let page = FIXTURES.file("index.html").unwrap();
/// assert_eq!(page.path(), "index.html");
/// assert_eq!(page.mime(), "text/html");
/// assert_eq!(page.content_type(), "text/html; charset=utf-8");
/// assert!(page.etag().starts_with('"') && page.etag().ends_with('"'));
/// let body = page.contents().unwrap();
/// assert_eq!(body.len(), page.len());
/// ```
///
/// The fields are hidden and not part of the API: generated code writes them as literals,
/// which keeps a catalog of thousands of files cheap for rustc to compile (a `const fn` call
/// or a per-file reference costs it measurably; see BENCHMARKS.md, "Build cost").
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedFile {
    /// The path, immediately followed by the ETag (`"…"`, `ETAG_LEN` bytes).
    #[doc(hidden)]
    pub __name: &'static str,
    /// Where the stored bytes begin in the blob of `__info` (`data`).
    #[doc(hidden)]
    pub __start: usize,
    /// How many bytes are stored.
    #[doc(hidden)]
    pub __len: usize,
    /// What the file shares with others (the blob, the media type) or has alone.
    #[doc(hidden)]
    pub __info: &'static crate::layout::Info,
    /// SHA-256 of the contents, computed at build time when the catalog asks.
    #[doc(hidden)]
    pub __sha256: Option<&'static [u8; 32]>,
    /// The Subresource Integrity string of the contents, computed at build time when the
    /// catalog asks.
    #[doc(hidden)]
    pub __integrity: Option<&'static str>,
}

impl EmbeddedFile {
    /// The file's path in the catalog: relative, `/`-separated, with the catalog's prefix.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(FIXTURES.file("/hello.txt").unwrap().path(), "hello.txt");
    /// ```
    pub fn path(&self) -> &'static str {
        self.__name.get(..self.path_len()).unwrap_or(self.__name)
    }

    /// [`path`](Self::path), in `const`.
    pub(crate) const fn const_path(&self) -> &'static str {
        let (path, _) = self.__name.as_bytes().split_at(self.path_len());
        match core::str::from_utf8(path) {
            Ok(path) => path,
            Err(_) => self.__name,
        }
    }

    /// Where the name's path ends and its ETag begins.
    pub(crate) const fn path_len(&self) -> usize {
        self.__name.len().saturating_sub(ETAG_LEN)
    }

    /// The length of the file's contents, uncompressed.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// assert_eq!(FIXTURES.file("hello.txt").unwrap().len(), 16);
    /// ```
    pub const fn len(&self) -> usize {
        match self.__info.len {
            Some(len) => len,
            None => self.__len,
        }
    }

    /// Whether the file is empty.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert!(FIXTURES.file("empty.txt").unwrap().is_empty());
    /// ```
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The strong ETag of the uncompressed contents, quoted: `"…"`, derived from a content hash,
    /// so equal contents have equal tags in every build.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let tag = FIXTURES.file("hello.txt").unwrap().etag();
    /// assert_eq!(tag.len(), 34);
    /// ```
    pub fn etag(&self) -> &'static str {
        self.__name.get(self.path_len()..).unwrap_or_default()
    }

    /// SHA-256 of the file's contents (its uncompressed bytes, whatever the mode), computed at
    /// build time (nothing is hashed at run time), when the catalog records it: `integrity =
    /// true` (feature `integrity`), or a bundler's manifest, releases or dictionaries.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = true);
    /// let digest = FIXTURES.file("hello.txt").unwrap().sha256().unwrap();
    /// // `sha256sum assets/fixtures/hello.txt`
    /// assert_eq!(digest[..4], [0x6c, 0xf4, 0x33, 0x4b]);
    /// ```
    pub const fn sha256(&self) -> Option<&'static [u8; 32]> {
        self.__sha256
    }

    /// The file's [Subresource Integrity] string (`sha384-…` unless the catalog chose
    /// `integrity = "sha256"` or `"sha512"`), computed at build time, for the `integrity`
    /// attribute of a `<script>` or `<link>` that loads it; recorded as
    /// [`sha256`](Self::sha256) is.
    ///
    /// [Subresource Integrity]: https://www.w3.org/TR/SRI/
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = true);
    /// let script = FIXTURES.file("app.js").unwrap();
    /// assert!(script.integrity().unwrap().starts_with("sha384-"));
    /// assert_eq!(script.integrity().unwrap().len(), 71);
    /// # static PLAIN: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(PLAIN.file("app.js").unwrap().integrity(), None);
    /// ```
    pub const fn integrity(&self) -> Option<&'static str> {
        self.__integrity
    }

    /// The strong ETag of the gzip representation, distinct from [`etag`](Self::etag), when the file
    /// is stored compressed.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let page = FIXTURES.file("index.html").unwrap();
    /// assert_ne!(page.gzip_etag(), Some(page.etag()));
    /// ```
    pub const fn gzip_etag(&self) -> Option<&'static str> {
        self.__info.gzip_etag
    }

    /// The media type guessed from the file name at build time, `application/octet-stream` when unknown.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(FIXTURES.file("data.json").unwrap().mime(), "application/json");
    /// ```
    pub const fn mime(&self) -> &'static str {
        self.__info.mime
    }

    /// The `Content-Type` header value: the media type, with `; charset=utf-8` for text.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(FIXTURES.file("style.css").unwrap().content_type(), "text/css; charset=utf-8");
    /// ```
    pub const fn content_type(&self) -> &'static str {
        self.__info.content_type
    }

    /// The file's modification time, when the catalog was built with `modified = true`.
    /// Off by default so that builds are reproducible.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(FIXTURES.file("hello.txt").unwrap().modified(), None);
    /// ```
    pub fn modified(&self) -> Option<SystemTime> {
        self.__info
            .modified
            .map(|seconds| SystemTime::UNIX_EPOCH + Duration::from_secs(seconds))
    }

    /// The stored gzip bytes, when the file is stored compressed. They go out as they are to
    /// clients that accept gzip. `None` in `static` and `copy` mode, and in `gzip` mode for files
    /// whose compression saved too little to be worth it.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let page = FIXTURES.file("index.html").unwrap();
    /// assert_eq!(&page.gzip().unwrap()[..2], &[0x1f, 0x8b]); // the gzip magic
    /// ```
    pub fn gzip(&self) -> Option<&'static [u8]> {
        self.__info.gzip_etag.map(|_| self.stored())
    }

    /// The uncompressed contents as stored in the binary, when the file is stored raw.
    /// `Some` in `static` and `copy` mode, and in `gzip` mode for files kept raw.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(FIXTURES.file("hello.txt").unwrap().raw(), Some(&b"Hello, bindery!\n"[..]));
    /// ```
    pub fn raw(&self) -> Option<&'static [u8]> {
        match self.__info.gzip_etag {
            None => Some(self.stored()),
            Some(_) => None,
        }
    }

    /// The bytes as stored: the file's own, or its part of the catalog's pack.
    pub(crate) fn stored(&self) -> &'static [u8] {
        self.__info
            .data
            .get(self.__start..self.__start.saturating_add(self.__len))
            .unwrap_or_default()
    }

    /// The bytes of this file in `encoding`, exactly as they are sent with `Content-Encoding`:
    /// a variant precompressed at build time (`precompress = [...]`), or in `gzip` mode the
    /// stored gzip bytes. `None` when the file has no such representation (the encoding was not
    /// asked for, or saved less than 5%).
    ///
    /// ```
    /// use bindery::Encoding;
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", precompress = ["gzip"]);
    ///
    /// let page = SITE.file("index.html").unwrap();
    /// assert!(page.encoded(Encoding::Gzip).unwrap().starts_with(&[0x1f, 0x8b]));
    /// assert_eq!(page.encoded(Encoding::Br), None);
    /// assert_ne!(page.encoded_etag(Encoding::Gzip), Some(page.etag()));
    /// ```
    pub fn encoded(&self, encoding: Encoding) -> Option<&'static [u8]> {
        self.representation(encoding).map(|(bytes, _)| bytes)
    }

    /// The strong ETag of this file's `encoding` representation, distinct from [`etag`](Self::etag)
    /// and from every other encoding's; `None` when there is no such representation.
    pub fn encoded_etag(&self, encoding: Encoding) -> Option<&'static str> {
        self.representation(encoding).map(|(_, etag)| etag)
    }

    /// The bytes and ETag of the `encoding` representation: the `gzip` mode's own stored bytes
    /// for gzip when it has them, else a precompressed variant.
    pub(crate) fn representation(
        &self,
        encoding: Encoding,
    ) -> Option<(&'static [u8], &'static str)> {
        match (encoding, self.__info.gzip_etag) {
            (Encoding::Gzip, Some(etag)) => Some((self.stored(), etag)),
            _ => self
                .__info
                .variants
                .iter()
                .find(|variant| variant.encoding == encoding)
                .map(|variant| (variant.bytes, variant.etag)),
        }
    }

    /// The encodings this file can be sent in besides identity, in [`Encoding::ALL`] order.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let page = SITE.file("index.html").unwrap();
    /// assert_eq!(page.encodings().collect::<Vec<_>>(), [bindery::Encoding::Gzip]);
    /// ```
    pub fn encodings(&self) -> impl Iterator<Item = Encoding> + 'static {
        let file = *self;
        Encoding::ALL
            .into_iter()
            .filter(move |&encoding| file.encoded(encoding).is_some())
    }

    /// The uncompressed contents: borrowed when stored raw, decompressed into a new buffer when
    /// stored gzip-compressed. Unlike [`Catalog::get`](crate::Catalog::get) this never copies raw bytes,
    /// whatever the catalog's mode.
    ///
    /// ```
    /// # static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let page = FIXTURES.file("index.html").unwrap();
    /// assert!(page.contents().unwrap().starts_with(b"<!doctype html>"));
    /// ```
    pub fn contents(&self) -> Result<Cow<'static, [u8]>, Error> {
        match self.gzip() {
            None => Ok(Cow::Borrowed(self.stored())),
            Some(compressed) => self.decompress(compressed).map(Cow::Owned),
        }
    }

    fn decompress(&self, compressed: &'static [u8]) -> Result<Vec<u8>, Error> {
        Ok(self
            .decompress_upto(compressed, self.len(), &|| true)?
            .unwrap_or_default())
    }

    /// The first `upto` bytes of the contents of a gzip-stored file (all of them, checked
    /// against the gzip trailer, when `upto` reaches the length), decompressed 64 KiB at a time;
    /// `None` as soon as `keep_going` says the result is no longer wanted.
    pub(crate) fn decompress_upto(
        &self,
        compressed: &'static [u8],
        upto: usize,
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        let target = upto.min(self.len());
        #[cfg(not(feature = "gzip"))]
        {
            // Unreachable: a catalog that stores gzip does not compile without the feature
            // (generated code asks `__bindery_requires!(gzip)`); never a panic all the same.
            let _ = (compressed, keep_going, target);
            Err(Error::Corrupt {
                path: self.path(),
                reason: "it is stored gzip and bindery's `gzip` feature is off".to_owned(),
            })
        }
        #[cfg(feature = "gzip")]
        self.decompress_gzip(compressed, target, keep_going)
    }

    /// The first `target` bytes of a gzip stream, as [`decompress_upto`](Self::decompress_upto)
    /// says.
    #[cfg(feature = "gzip")]
    fn decompress_gzip(
        &self,
        compressed: &'static [u8],
        target: usize,
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        const CHUNK: usize = 64 * 1024;
        let corrupt = |reason: String| Error::Corrupt {
            path: self.path(),
            reason,
        };
        let len = self.len();
        let mut contents = Vec::with_capacity(target);
        let mut decoder = flate2::read::GzDecoder::new(compressed);
        // Each read is bounded: a corrupt length can never make us allocate without limit.
        while contents.len() < target {
            if !keep_going() {
                return Ok(None);
            }
            let want = (target - contents.len()).min(CHUNK) as u64;
            let read = (&mut decoder)
                .take(want)
                .read_to_end(&mut contents)
                .map_err(|error| corrupt(error.to_string()))?;
            if read == 0 {
                break;
            }
        }
        // The whole file: it must end here, which also checks the trailer's CRC and length.
        let mut beyond = [0u8; 1];
        let is_longer = target == len
            && decoder
                .read(&mut beyond)
                .map_err(|error| corrupt(error.to_string()))?
                > 0;
        if contents.len() != target || is_longer {
            return Err(corrupt(format!(
                "decompressed to {}{} bytes, expected {len}",
                if is_longer { "more than " } else { "" },
                contents.len(),
            )));
        }
        Ok(Some(contents))
    }
}
