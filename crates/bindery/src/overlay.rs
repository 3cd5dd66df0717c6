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
//! The folder is read as dev mode reads its folder, by the same code: a key goes through the
//! catalog's key rules (no `..`, `.`, empty segments, backslashes, NUL); the overlay's rules
//! (`include`, `exclude`, `hidden`, `gitignore`: bindery-core's filter, as a build applies
//! them) decide which files count; a file must be spelled as its folder lists it; it is opened
//! from the folder down following no link, so nothing outside the folder is ever read; a file
//! longer than [`max_file_size`](Overlay::max_file_size) is not read. ETags, media types and
//! integrity strings come from the bytes read. A file that changes while it is read is read
//! again (a few times, then treated as absent): an answer is always bytes the file held, whole,
//! while the read lasted, under the ETag of those bytes. Replace overlay files by rename (write
//! a temporary beside it, then `mv`): a file rewritten in place passes through its truncation
//! and partial writes, and a request that reads it at such a moment gets that state.
//!
//! Overlay files are served as identity (no precompressed variants) with `no-cache`. Each
//! distinct version of an overlay file read stays in memory for the life of the process (the
//! catalog API hands out `&'static` files): an overlay suits files that change now and then,
//! not a folder rewritten all day.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use bindery_core::rules::Rules;

use crate::layout::DevSource;
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

/// A folder laid over a catalog. Cheap to clone; clones share what was read.
#[derive(Debug, Clone)]
pub struct Overlay {
    catalog: &'static Catalog,
    root: String,
    rules: Rules,
    order: Order,
    max_file_size: u64,
    source: std::sync::Arc<OnceLock<&'static DevSource>>,
}

impl Overlay {
    /// The folder `folder` over `catalog`, the folder first, with the default rules (every
    /// file whose name does not start with `.`). Fails when the folder is not one.
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
        Ok(Overlay {
            catalog,
            root,
            rules: Rules::default(),
            order: Order::First,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            source: Default::default(),
        })
    }

    /// Which wins: the folder ([`Order::First`], the default) or the catalog.
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Only files matching one of these globs count (none: every file).
    pub fn include(mut self, globs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.rules.include = globs.into_iter().map(Into::into).collect();
        self.reset()
    }

    /// Files matching one of these globs never count; exclude wins over include.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let custom = tempfile::tempdir().unwrap();
    /// std::fs::write(custom.path().join("hello.txt"), "overlay").unwrap();
    /// let overlay = bindery::overlay::Overlay::new(&SITE, custom.path()).unwrap().exclude(["*.txt"]);
    /// assert_eq!(overlay.get("hello.txt"), SITE.get("hello.txt"));
    /// ```
    pub fn exclude(mut self, globs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.rules.exclude = globs.into_iter().map(Into::into).collect();
        self.reset()
    }

    /// Whether names starting with `.` count (default `false`, as in a build).
    pub fn hidden(mut self, hidden: bool) -> Self {
        self.rules.hidden = hidden;
        self.reset()
    }

    /// Whether the folder's `.gitignore` and `.ignore` files are honoured (default `false`).
    pub fn gitignore(mut self, gitignore: bool) -> Self {
        self.rules.gitignore = gitignore;
        self.reset()
    }

    /// Files longer than this are not read (they do not count); default
    /// [`DEFAULT_MAX_FILE_SIZE`].
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    fn reset(mut self) -> Self {
        self.source = Default::default();
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
        let source = *self.source.get_or_init(|| {
            // Made once per set of rules: the state of what was read is keyed by it.
            Box::leak(Box::new(DevSource {
                root: String::leak(self.root.clone()),
                prefix: self.catalog.prefix(),
                rules: String::leak(self.rules.to_text()),
            }))
        });
        crate::live::file(
            source,
            self.catalog.prefix(),
            path,
            Some(self.max_file_size),
        )
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
