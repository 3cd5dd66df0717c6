//! The catalog: a sorted table of embedded files, built at compile time, searched at run time.

use std::borrow::Cow;
use std::path::Path;

use crate::layout::{BundleInfo, DevSource, ScriptHashes};
use crate::{Dir, EmbeddedFile, Error, Mode, lookup};

/// A folder of files embedded at build time, ready to be read without any start-up work.
///
/// A catalog is built by [`embed!`](crate::embed) or by a module that `bindery embed`
/// generated, and lives in a `static`. Lookups are a binary search over paths sorted at build
/// time: no allocation, no hashing, nothing to initialise.
///
/// ```
/// use bindery::{Catalog, Mode};
///
/// static ASSETS: Catalog = bindery::embed!("../../assets/fixtures", mode = "copy");
///
/// assert_eq!(ASSETS.mode(), Mode::Copy);
/// assert!(ASSETS.len() > 5);
/// assert!(ASSETS.get("no/such/file").is_none());
/// let paths: Vec<&str> = ASSETS.iter().map(|file| file.path()).collect();
/// assert!(paths.is_sorted());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Catalog {
    pub(crate) mode: Mode,
    pub(crate) prefix: &'static str,
    pub(crate) files: &'static [EmbeddedFile],
    /// The folders and rules dev mode reads with, one per folder; in builds without dev mode,
    /// empty, or with the `overlay` feature each folder's prefix and rules (no path) for an
    /// overlay to inherit.
    pub(crate) dev: &'static [DevSource],
    /// With `fingerprint = true`: each file's fingerprinted path, in file order; else empty.
    pub(crate) urls: &'static [&'static str],
    /// The indices of `files` in the order of their fingerprinted paths, for lookups by them.
    pub(crate) by_url: &'static [u32],
    /// What the bundler's manifest said (`manifest = "vite"`); else [`BundleInfo::NONE`].
    pub(crate) bundle: &'static BundleInfo,
    /// The CSP hashes of the HTML files' inline scripts (`script_hashes = true`), by path.
    pub(crate) scripts: &'static [ScriptHashes],
    /// What a folder missing when the crate was built says (`allow_missing = true`, debug
    /// builds: release builds of such a catalog fail); else empty.
    pub(crate) missing: &'static str,
}

impl Catalog {
    /// A catalog with no files, in the given mode.
    ///
    /// ```
    /// const NOTHING: bindery::Catalog = bindery::Catalog::empty(bindery::Mode::Static);
    /// assert!(NOTHING.is_empty());
    /// assert!(NOTHING.get("index.html").is_none());
    /// ```
    pub const fn empty(mode: Mode) -> Self {
        Catalog {
            mode,
            prefix: "",
            files: &[],
            dev: &[],
            urls: &[],
            by_url: &[],
            bundle: &BundleInfo::NONE,
            scripts: &[],
            missing: "",
        }
    }

    /// The contents of the file at `path`, read the way the catalog's [`Mode`] says:
    /// borrowed in `static` mode, decompressed in `gzip` mode, copied in `copy` mode.
    ///
    /// One leading `/` is accepted. Paths with `.` or `..` segments, backslashes, NUL bytes or
    /// empty segments find nothing.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// static STATIC: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// static COPY: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "copy");
    ///
    /// assert!(matches!(STATIC.get("hello.txt"), Some(Cow::Borrowed(_))));
    /// assert!(matches!(COPY.get("hello.txt"), Some(Cow::Owned(_))));
    /// assert!(STATIC.get("../hello.txt").is_none());
    /// ```
    pub fn get(&self, path: &str) -> Option<Cow<'static, [u8]>> {
        let file = self.file(path)?;
        match self.mode {
            Mode::Static | Mode::Gzip => file.contents().ok(),
            Mode::Copy => Some(Cow::Owned(file.contents().ok()?.into_owned())),
        }
    }

    /// The file at `path` with its metadata, or `None`. The same paths are accepted as by
    /// [`get`](Self::get).
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let logo = ASSETS.file("images/logo.svg").unwrap();
    /// assert_eq!(logo.mime(), "image/svg+xml");
    /// ```
    pub fn file(&self, path: &str) -> Option<&'static EmbeddedFile> {
        #[cfg(all(feature = "dev", debug_assertions))]
        if self.is_dev() {
            // Of two folders that now give one path, the first listed wins (a build refuses it).
            return self.dev.iter().find_map(|source| {
                crate::live::file(source, source.prefix, path, crate::live::Reading::DEV)
            });
        }
        let files = self.files;
        self.position(path).map(|index| &files[index])
    }

    /// The URL path (relative, without a leading `/`) a page should use for the file at
    /// `path`: its fingerprinted name (`app.3f2a9c1d4e5b.css`) when the catalog was built with
    /// `fingerprint = true`, else `path` itself as the catalog spells it; `None` when the
    /// catalog has no such file, so that a template can fail on a typo instead of linking a 404.
    /// In dev mode it is the plain path, always fresh (no fingerprint to go stale).
    ///
    /// A mounted server adds its mount point: see `ServeCatalog::url` (feature `serve`).
    ///
    /// ```
    /// static HASHED: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
    /// static PLAIN: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    ///
    /// let url = HASHED.url("style.css").unwrap();
    /// assert!(url.starts_with("style.") && url.ends_with(".css") && url.len() == "style..css".len() + 12);
    /// assert_eq!(HASHED.file_by_url(url).unwrap().path(), "style.css");
    /// assert_eq!(PLAIN.url("/style.css"), Some("style.css"));
    /// assert_eq!(HASHED.url("styles.css"), None);
    /// ```
    pub fn url(&self, path: &str) -> Option<&'static str> {
        #[cfg(all(feature = "dev", debug_assertions))]
        if self.is_dev() {
            return self.file(path).map(EmbeddedFile::path);
        }
        let index = self.position(path)?;
        Some(match self.urls.get(index) {
            Some(url) => url,
            None => self.files[index].path(),
        })
    }

    /// Whether files are also served under fingerprinted names (`fingerprint = true`).
    ///
    /// ```
    /// static HASHED: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
    /// assert!(HASHED.has_fingerprints());
    /// ```
    pub const fn has_fingerprints(&self) -> bool {
        !self.urls.is_empty()
    }

    /// The file whose fingerprinted path is `url` (one leading `/` accepted), or `None`: a
    /// binary search, no allocation. A name whose hash digits are not the file's current ones
    /// finds nothing, so an old URL never serves new bytes under a year-long cache.
    ///
    /// ```
    /// static HASHED: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
    /// let url = HASHED.url("hello.txt").unwrap();
    /// assert!(HASHED.file_by_url(&format!("/{url}")).is_some());
    /// assert!(HASHED.file_by_url("hello.000000000000.txt").is_none());
    /// assert!(HASHED.file_by_url("hello.txt").is_none());
    /// ```
    pub fn file_by_url(&self, url: &str) -> Option<&'static EmbeddedFile> {
        #[cfg(all(feature = "dev", debug_assertions))]
        if self.is_dev() {
            if !self.has_fingerprints() {
                return None;
            }
            let key = lookup::normalise(url)?;
            let (plain, digits) = crate::facts::key::unfingerprinted(key)?;
            let file = self.file(&plain)?;
            return file
                .etag()
                .get(1..1 + digits.len())
                .filter(|etag| *etag == digits)
                .map(|_| file);
        }
        let key = lookup::normalise(url)?;
        let urls = self.urls;
        let slot = self
            .by_url
            .binary_search_by(|&index| urls[index as usize].cmp(key))
            .ok()?;
        self.files.get(self.by_url[slot] as usize)
    }

    /// The index of the file at `path` in [`files`](Self::files) (path order), or `None`.
    /// Lets callers keep their own per-file tables, such as precomputed HTTP headers.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let index = ASSETS.position("hello.txt").unwrap();
    /// assert_eq!(ASSETS.files()[index].path(), "hello.txt");
    /// ```
    pub fn position(&self, path: &str) -> Option<usize> {
        let key = lookup::normalise(path)?;
        self.files()
            .binary_search_by(|file| file.path().cmp(key))
            .ok()
    }

    /// Every file as a slice, sorted by path.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(ASSETS.files().len(), ASSETS.len());
    /// ```
    pub fn files(&self) -> &'static [EmbeddedFile] {
        #[cfg(all(feature = "dev", debug_assertions))]
        if let [source] = self.dev {
            return crate::live::files(source, source.prefix);
        } else if self.is_dev() {
            return crate::live::merged(self.dev);
        }
        self.files
    }

    /// Every file, sorted by path.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let total: usize = ASSETS.iter().map(|file| file.len()).sum();
    /// assert!(total > 0);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'static, EmbeddedFile> {
        self.files().iter()
    }

    /// The number of files.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(ASSETS.len(), ASSETS.iter().count());
    /// ```
    pub fn len(&self) -> usize {
        self.files().len()
    }

    /// Whether the catalog holds no files.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert!(!ASSETS.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.files().is_empty()
    }

    /// The mode the catalog was built in.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// assert_eq!(ASSETS.mode(), bindery::Mode::Gzip);
    /// ```
    pub const fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether reads come from the folder on disk (the `dev` feature in a build with debug
    /// assertions) rather than from the embedded bytes.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// assert_eq!(ASSETS.is_dev(), cfg!(all(feature = "dev", debug_assertions)));
    /// ```
    pub const fn is_dev(&self) -> bool {
        // With `overlay` alone, `dev` holds the build's rules, not folders to read.
        cfg!(all(feature = "dev", debug_assertions)) && !self.dev.is_empty()
    }

    /// The prefix put before every path at build time (`""` when none was asked for); for a
    /// catalog of several folders, the folders that the prefixes of all of them share.
    ///
    /// ```
    /// static PREFIXED: bindery::Catalog =
    ///     bindery::embed!("../../assets/fixtures", prefix = "static/");
    /// assert_eq!(PREFIXED.prefix(), "static/");
    /// assert!(PREFIXED.get("static/hello.txt").is_some());
    /// ```
    pub const fn prefix(&self) -> &'static str {
        self.prefix
    }

    /// The direct entries of the folder `path` (`""` or `"/"` for the top): files and sub-folders,
    /// in path order. A path that is not a folder of the catalog gives an empty listing.
    ///
    /// ```
    /// use bindery::DirEntry;
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let names: Vec<String> = ASSETS
    ///     .dir("deep/a")
    ///     .map(|entry| match entry {
    ///         DirEntry::File(file) => file.path().to_owned(),
    ///         DirEntry::Dir(path) => format!("{path}/"),
    ///     })
    ///     .collect();
    /// assert_eq!(names, ["deep/a/b/"]);
    /// ```
    pub fn dir(&self, path: &str) -> Dir {
        Dir::new(self.files(), path)
    }

    /// Writes every file under `target`, creating folders as needed, like go-bindata's
    /// `RestoreAssets`. Existing files are overwritten.
    ///
    /// ```
    /// # static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let target = tempfile::tempdir().unwrap();
    /// ASSETS.restore(target.path()).unwrap();
    /// let restored = std::fs::read(target.path().join("hello.txt")).unwrap();
    /// assert_eq!(restored, b"Hello, bindery!\n");
    /// ```
    pub fn restore(&self, target: impl AsRef<Path>) -> Result<(), Error> {
        let target = target.as_ref();
        std::fs::create_dir_all(target)
            .map_err(|source| Error::io("cannot create", target, source))?;
        for file in self.files() {
            // Keys come from codegen and never hold `..`; checking again keeps `restore` unable to
            // write outside `target` even if a hand-written catalog breaks that rule.
            let Some(key) = lookup::normalise(file.path()) else {
                continue;
            };
            let destination = target.join(key);
            if let Some(parent) = destination.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|source| Error::io("cannot create", parent, source))?;
            }
            let contents = file.contents()?;
            std::fs::write(&destination, &contents)
                .map_err(|source| Error::io("cannot write", &destination, source))?;
        }
        Ok(())
    }
}

impl IntoIterator for &Catalog {
    type Item = &'static EmbeddedFile;
    type IntoIter = std::slice::Iter<'static, EmbeddedFile>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
