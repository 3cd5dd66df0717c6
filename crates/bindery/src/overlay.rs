//! A folder on disk laid over a catalog's embedded files in release builds (feature
//! `overlay`), opt-in at run time: themes, branding, a hotfix without a rebuild.
//!
//! ```
//! use bindery::overlay::{Order, Overlay};
//!
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
//! let custom = tempfile::tempdir().unwrap();
//! std::fs::write(custom.path().join("hello.txt"), "Hello from the overlay\n").unwrap();
//!
//! let overlay = Overlay::new(&SITE, custom.path()).unwrap().order(Order::First);
//! assert_eq!(&overlay.get("hello.txt").unwrap()[..], b"Hello from the overlay\n");
//! assert_eq!(overlay.get("app.js"), SITE.get("app.js")); // not overridden: embedded
//! ```
//!
//! The folder is read with the **build's own rules** by default: the catalog carries them (the
//! `include`, `exclude`, `hidden`, `gitignore` and `siblings` of each of its folders, never a
//! path), so a file a build leaves out (`exclude = ["*.map"]`, a `.env`) is left out of the
//! overlay too; [`include`](Overlay::include), [`exclude`](Overlay::exclude),
//! [`hidden`](Overlay::hidden) and [`gitignore`](Overlay::gitignore) replace one of them. A
//! catalog of several folders reads each key with the rules of the folder whose prefix it falls
//! under, from the matching sub-folder of the overlay. A catalog whose rules are not in the
//! binary (a generated module made without `--dev`, a folder outside the crate) is read with
//! the default rules (every file whose name does not start with `.`).
//!
//! The folder is read with dev mode's rules: a key goes through the catalog's key rules (no
//! `..`, `.`, empty segments, backslashes, NUL); the rules (bindery-core's filter, as a build
//! applies them) decide which files count; a file must be spelled as its folder lists it.
//! **The folder is opened once**, when the overlay is made, and on Unix every lookup walks from
//! that descriptor: each name of the key is opened from the one before with `O_NOFOLLOW`, so a
//! link in the folder, wherever it points (inside or out), is no file there and the catalog
//! answers, and **replacing the folder itself** (renaming it away, a link or another folder put
//! in its place) **changes nothing until a restart**: replace the files inside it. A file with
//! more than one hard link is no file either (a hard link to a file outside the folder is
//! invisible to `O_NOFOLLOW`). A lookup costs a few system calls per name of its key, whatever
//! the number of files in the folders on the way (their listings, which check the spelling,
//! are kept while each folder is unchanged). A file longer than
//! [`max_file_size`](Overlay::max_file_size) is not read. ETags, media types and integrity
//! strings come from the bytes read.
//!
//! With `fingerprint = true`, a fingerprinted URL is `immutable` only over the bytes its
//! fingerprint names: an overlay file with other bytes at that path is served there with
//! `no-cache` (a hotfix, and later its revert, reach every browser), as are the embedded bytes
//! while an overlay file there cannot be read. A file that changes while it is read is read
//! again (a few times, then treated as absent): an answer is always bytes the file held, whole,
//! while the read lasted, under the ETag of those bytes. Replace overlay files by rename (write
//! a temporary beside it, then `mv`): a file rewritten in place passes through its truncation
//! and partial writes, and a request that reads it at such a moment gets that state.
//!
//! Overlay files are served as identity (no precompressed variants) with `no-cache`. Each
//! distinct version of an overlay file read stays in memory for the life of the process (the
//! catalog API hands out `&'static` files), kept by content: a version whose bytes were read
//! before for the same path is that version again, whatever came between (flipping a file
//! between two contents holds two). What is kept is bounded:
//! [`max_versions`](Overlay::max_versions) per path (default [`DEFAULT_MAX_VERSIONS`]) and
//! [`max_held`](Overlay::max_held) bytes in all (default [`DEFAULT_MAX_HELD`]). Past a bound a
//! new version is not kept, and its path answers as if the folder had no file there (the
//! catalog's file, or a miss) until the process restarts; [`held`](Overlay::held) counts what
//! is kept and what was refused. An overlay suits files that change now and then, not a folder
//! rewritten all day.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use bindery_core::rules::{Modified, Rules};

use crate::layout::DevSource;
pub use crate::live::Held;
use crate::live::{Keep, Lookup, Reading};
use crate::{Catalog, EmbeddedFile, Error};

/// Whether the folder's files win over the embedded ones, or only fill in what the catalog
/// lacks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// The folder first: a file there replaces the embedded one (the default).
    #[default]
    First,
    /// The catalog first: the folder only adds files the catalog does not have.
    Last,
}

/// The longest overlay file read, unless [`Overlay::max_file_size`] says otherwise: 64 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

/// How many distinct versions of one path are kept, unless [`Overlay::max_versions`] says
/// otherwise: 16.
pub const DEFAULT_MAX_VERSIONS: usize = 16;

/// How many bytes of versions are kept in all, unless [`Overlay::max_held`] says otherwise:
/// 256 MiB.
pub const DEFAULT_MAX_HELD: u64 = 256 << 20;

/// A folder laid over a catalog. Cheap to clone; clones share what was read.
#[derive(Debug, Clone)]
pub struct Overlay {
    catalog: &'static Catalog,
    root: String,
    /// Each folder of the catalog: its prefix in the catalog, and the rules its keys are read
    /// with (the build's, unless a setter changed them).
    folders: Vec<(&'static str, Rules)>,
    order: Order,
    max_file_size: u64,
    keep: Keep,
    sources: std::sync::Arc<OnceLock<Vec<&'static DevSource>>>,
    /// The folder, opened once: every lookup starts here.
    #[cfg(unix)]
    descriptor: std::sync::Arc<std::os::fd::OwnedFd>,
}

impl Overlay {
    /// The folder `folder` over `catalog`, the folder first, read with the catalog's build
    /// rules (see the [module docs](self)). Fails when the folder is not one.
    ///
    /// ```
    /// // Built with `exclude`: the overlay leaves the same files out.
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", exclude = ["*.map"]);
    /// let custom = tempfile::tempdir().unwrap();
    /// std::fs::write(custom.path().join("app.js.map"), "{}").unwrap();
    /// let overlay = bindery::overlay::Overlay::new(&SITE, custom.path()).unwrap();
    /// assert!(overlay.get("app.js.map").is_none());
    /// ```
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let error = bindery::overlay::Overlay::new(&SITE, "no/such/folder").unwrap_err();
    /// assert!(error.to_string().contains("no/such/folder"));
    /// ```
    pub fn new(catalog: &'static Catalog, folder: impl AsRef<Path>) -> Result<Overlay, Error> {
        let folder = folder.as_ref();
        let root = std::fs::canonicalize(folder)
            .map_err(|source| Error::io("cannot open the overlay folder", folder, source))?;
        if !root.is_dir() {
            return Err(Error::io(
                "the overlay is not a folder",
                folder,
                std::io::Error::from(std::io::ErrorKind::NotADirectory),
            ));
        }
        let root = root.to_str().map(str::to_owned).ok_or_else(|| {
            Error::io(
                "the overlay's path is not UTF-8",
                folder,
                std::io::Error::from(std::io::ErrorKind::InvalidInput),
            )
        })?;
        #[cfg(unix)]
        let descriptor = crate::beneath::open_root(Path::new(&root))
            .map_err(|source| Error::io("cannot open the overlay folder", folder, source))?;
        Ok(Overlay {
            catalog,
            root,
            folders: build_rules(catalog),
            order: Order::First,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            keep: Keep {
                versions_per_path: DEFAULT_MAX_VERSIONS,
                bytes: DEFAULT_MAX_HELD,
            },
            sources: Default::default(),
            #[cfg(unix)]
            descriptor: std::sync::Arc::new(descriptor),
        })
    }

    /// Which wins: the folder ([`Order::First`], the default) or the catalog.
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Only files matching one of these globs count (none: every file); replaces the build's
    /// `include`.
    pub fn include(self, globs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let globs: Vec<String> = globs.into_iter().map(Into::into).collect();
        self.with_rules(|rules| rules.include.clone_from(&globs))
    }

    /// Files matching one of these globs never count; exclude wins over include. Replaces the
    /// build's `exclude`: `.exclude(Vec::<String>::new())` serves what the build left out.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let custom = tempfile::tempdir().unwrap();
    /// std::fs::write(custom.path().join("hello.txt"), "overlay").unwrap();
    /// let overlay = bindery::overlay::Overlay::new(&SITE, custom.path()).unwrap().exclude(["*.txt"]);
    /// assert_eq!(overlay.get("hello.txt"), SITE.get("hello.txt"));
    /// ```
    pub fn exclude(self, globs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let globs: Vec<String> = globs.into_iter().map(Into::into).collect();
        self.with_rules(|rules| rules.exclude.clone_from(&globs))
    }

    /// Whether names starting with `.` count (the build's `hidden` unless set).
    pub fn hidden(self, hidden: bool) -> Self {
        self.with_rules(|rules| rules.hidden = hidden)
    }

    /// Whether the folder's `.gitignore` and `.ignore` files are honoured (the build's
    /// `gitignore` unless set).
    pub fn gitignore(self, gitignore: bool) -> Self {
        self.with_rules(|rules| rules.gitignore = gitignore)
    }

    /// Files longer than this are not read (they do not count); default
    /// [`DEFAULT_MAX_FILE_SIZE`].
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// How many distinct versions of one path are kept at most (default
    /// [`DEFAULT_MAX_VERSIONS`]); past it, a new version of that path is not served.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let custom = tempfile::tempdir().unwrap();
    /// let overlay = bindery::overlay::Overlay::new(&SITE, custom.path()).unwrap().max_versions(1);
    /// std::fs::write(custom.path().join("new.txt"), "one").unwrap();
    /// assert_eq!(&overlay.get("new.txt").unwrap()[..], b"one");
    /// std::fs::write(custom.path().join("new.txt"), "two").unwrap();
    /// assert!(overlay.get("new.txt").is_none()); // a second version: refused
    /// assert_eq!(overlay.held().refused, 1);
    /// ```
    pub fn max_versions(mut self, versions: usize) -> Self {
        self.keep.versions_per_path = versions;
        self
    }

    /// How many bytes of versions are kept at most, over every path (default
    /// [`DEFAULT_MAX_HELD`]); past it, a new version is not served.
    pub fn max_held(mut self, bytes: u64) -> Self {
        self.keep.bytes = bytes;
        self
    }

    /// What is kept now, and how many new versions a bound refused.
    pub fn held(&self) -> Held {
        let Some(sources) = self.sources.get() else {
            return Held::default();
        };
        sources.iter().fold(Held::default(), |mut all, source| {
            let one = crate::live::held(source, source.prefix);
            all.versions += one.versions;
            all.bytes += one.bytes;
            all.refused += one.refused;
            all
        })
    }

    /// The rules with `change` made to each folder's; what was read under the old ones is
    /// not reused.
    fn with_rules(mut self, change: impl Fn(&mut Rules)) -> Self {
        for (_, rules) in &mut self.folders {
            change(rules);
        }
        self.sources = Default::default();
        self
    }

    /// Which wins, as [`order`](Self::order) set it.
    pub fn order_of(&self) -> Order {
        self.order
    }

    /// The catalog it lies over.
    pub fn catalog(&self) -> &'static Catalog {
        self.catalog
    }

    /// The folder's file at `path` (a catalog key, the catalog's prefix included), as it is
    /// now, whichever the order; `None` when the folder has none that counts.
    pub fn on_disk(&self, path: &str) -> Option<&'static EmbeddedFile> {
        self.lookup(path).found()
    }

    /// What the folder has at `path` now: a file, none, or one that cannot be served now.
    pub(crate) fn lookup(&self, path: &str) -> Lookup {
        let sources = self.sources.get_or_init(|| self.sources());
        let Some(key) = crate::lookup::normalise(path) else {
            return Lookup::Absent;
        };
        // The folder whose prefix the key falls under; the longest, when prefixes nest.
        let Some(source) = sources
            .iter()
            .filter(|source| key.starts_with(source.prefix))
            .max_by_key(|source| source.prefix.len())
        else {
            return Lookup::Absent;
        };
        let reading = Reading {
            max_len: Some(self.max_file_size),
            follow_links: false,
            keep: self.keep,
        };
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let below = source
                .prefix
                .strip_prefix(self.catalog.prefix())
                .unwrap_or_default();
            crate::live::file_beneath(
                self.descriptor.as_fd(),
                below,
                source,
                source.prefix,
                key,
                reading,
            )
        }
        #[cfg(not(unix))]
        crate::live::file(source, source.prefix, key, reading).map_or(Lookup::Absent, Lookup::Found)
    }

    /// One source per folder, made once per set of rules (the state of what was read is keyed
    /// by it): the overlay's sub-folder for that folder's prefix, its rules.
    fn sources(&self) -> Vec<&'static DevSource> {
        let base = self.catalog.prefix();
        self.folders
            .iter()
            .map(|(prefix, rules)| {
                let below = prefix.strip_prefix(base).unwrap_or_default();
                let root = Path::new(&self.root).join(below);
                &*Box::leak(Box::new(DevSource {
                    root: String::leak(root.to_string_lossy().into_owned()),
                    prefix,
                    rules: String::leak(rules.to_text()),
                }))
            })
            .collect()
    }

    /// The file at `path`: the folder's or the catalog's, by [`Order`].
    pub fn file(&self, path: &str) -> Option<&'static EmbeddedFile> {
        match self.order {
            Order::First => self.on_disk(path).or_else(|| self.catalog.file(path)),
            Order::Last => self.catalog.file(path).or_else(|| self.on_disk(path)),
        }
    }

    /// The bytes of [`file`](Self::file).
    pub fn get(&self, path: &str) -> Option<Cow<'static, [u8]>> {
        self.file(path)?.contents().ok()
    }
}

/// The rules of each of the catalog's folders, as the build made them; the default rules over
/// the catalog's prefix when the binary does not carry them. A date the build gave every file
/// (`modified = "source-date-epoch"`) is no overlay file's: those carry their own time.
fn build_rules(catalog: &'static Catalog) -> Vec<(&'static str, Rules)> {
    let mut folders: Vec<(&'static str, Rules)> = catalog
        .dev
        .iter()
        .filter_map(|source| Some((source.prefix, Rules::parse(source.rules).ok()?)))
        .collect();
    if folders.is_empty() {
        folders.push((catalog.prefix(), Rules::default()));
    }
    for (_, rules) in &mut folders {
        if rules.modified == Modified::SourceDateEpoch {
            rules.modified = Modified::Files;
            rules.date = None;
        }
    }
    folders
}
