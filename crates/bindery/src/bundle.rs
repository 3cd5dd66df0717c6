//! A bundler's manifest as the catalog holds it (`manifest = "vite"`): entry points, what each
//! needs, and which files carry the bundler's own content hash. Made at build time; looking
//! something up is a binary search.

use crate::layout::ChunkInfo;
use crate::{Catalog, EmbeddedFile};

/// One chunk of a bundler's manifest (`manifest = "vite"`): the file an entry point or a lazily
/// imported module became, and the stylesheets and chunks a page that loads it needs. Paths
/// are catalog paths; [`ServeCatalog::entry_tags`](crate::serve::ServeCatalog::entry_tags)
/// turns them into tags with URLs and integrity.
///
/// ```
/// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
///
/// let entry = DIST.entry("index.html").unwrap();
/// assert!(entry.is_entry());
/// assert_eq!(entry.script(), "assets/index-Bq3xK9aZ.js");
/// assert_eq!(entry.styles(), ["assets/shared-Gh5sV3wY.css", "assets/index-Cm7vLp2Q.css"]);
/// assert_eq!(entry.preloads(), ["assets/shared-DkTw81xQ.js"]);
/// assert!(DIST.entry("src/main.js").is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct EntryPoint<'a> {
    catalog: &'a Catalog,
    chunk: &'static ChunkInfo,
}

impl<'a> EntryPoint<'a> {
    /// Its key in the manifest: the source it was built from (`index.html`, `src/main.js`).
    pub fn name(&self) -> &'static str {
        self.chunk.name
    }

    /// Whether it is an entry point of the build (`isEntry`), not a lazily imported chunk.
    pub fn is_entry(&self) -> bool {
        self.chunk.entry
    }

    /// The catalog path of the file it became (`assets/index-Bq3xK9aZ.js`).
    pub fn script(&self) -> &'static str {
        self.chunk.file
    }

    /// The stylesheets it needs, in the order a page links them: those of the chunks it
    /// imports, then its own.
    pub fn styles(&self) -> &'static [&'static str] {
        self.chunk.styles
    }

    /// The chunks it imports statically, directly or not: what a page preloads
    /// (`modulepreload`) so that they load beside it rather than after it.
    pub fn preloads(&self) -> &'static [&'static str] {
        self.chunk.preloads
    }

    /// The file of [`script`](Self::script), as the catalog has it now (dev mode reads it from
    /// disk: a file a later bundler run removed is `None`).
    pub fn script_file(&self) -> Option<&'static EmbeddedFile> {
        self.catalog.file(self.chunk.file)
    }
}

impl Catalog {
    /// The chunk `name` of the bundler's manifest (`manifest = "vite"`): an entry point such as
    /// `index.html` or `src/main.js`, as the manifest keys it; `None` when the manifest has no
    /// such key or the catalog was built without one.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// assert_eq!(DIST.entry("src/lazy.js").unwrap().script(), "assets/lazy-Ef4nR2sM.js");
    /// ```
    pub fn entry(&self, name: &str) -> Option<EntryPoint<'_>> {
        let chunks = self.bundle.chunks;
        let index = chunks.binary_search_by(|chunk| chunk.name.cmp(name)).ok()?;
        Some(EntryPoint {
            catalog: self,
            chunk: &chunks[index],
        })
    }

    /// Whether the bundler's manifest has the chunk `name`, in `const`: a `const` assertion
    /// turns an entry the code asks for that the manifest lacks into a compile error.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// const _: () = assert!(DIST.has_entry("index.html"), "Vite's manifest has no index.html");
    /// assert!(!DIST.has_entry("src/main.js"));
    /// ```
    ///
    /// ```compile_fail,E0080
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// const _: () = assert!(DIST.has_entry("main.js"), "Vite's manifest has no main.js");
    /// ```
    pub const fn has_entry(&self, name: &str) -> bool {
        let chunks = self.bundle.chunks;
        let mut index = 0;
        while index < chunks.len() {
            if crate::lookup::same_bytes(chunks[index].name.as_bytes(), name.as_bytes()) {
                return true;
            }
            index += 1;
        }
        false
    }

    /// Every chunk of the bundler's manifest, sorted by name: entry points and lazily
    /// imported chunks (see [`EntryPoint::is_entry`]).
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// let entries: Vec<&str> = DIST.entries().filter(|e| e.is_entry()).map(|e| e.name()).collect();
    /// assert_eq!(entries, ["index.html"]);
    /// ```
    pub fn entries(&self) -> impl ExactSizeIterator<Item = EntryPoint<'_>> {
        self.bundle.chunks.iter().map(move |chunk| EntryPoint {
            catalog: self,
            chunk,
        })
    }

    /// Every JavaScript file the bundler's manifest names, lazily imported chunks included
    /// (catalog paths, sorted): an import map lists their integrity, so the browser checks a
    /// chunk it imports later too.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// assert_eq!(DIST.bundled_scripts().len(), 3);
    /// ```
    pub fn bundled_scripts(&self) -> &'static [&'static str] {
        self.bundle.scripts
    }

    /// Whether the file at `path` is one the bundler named with its own content hash (every
    /// file its manifest lists): served `immutable` under that name, never fingerprinted again.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// assert!(DIST.is_bundled("assets/lazy-Ef4nR2sM.js"));
    /// assert!(DIST.is_bundled("/assets/index-Cm7vLp2Q.css"));
    /// assert!(!DIST.is_bundled("index.html") && !DIST.is_bundled("favicon.svg"));
    /// ```
    pub fn is_bundled(&self, path: &str) -> bool {
        crate::lookup::normalise(path)
            .is_some_and(|key| self.bundle.hashed.binary_search(&key).is_ok())
    }

    /// Whether the file at `path` was kept from an earlier release (`releases`): served, so that
    /// a page loaded before a deploy finds it, but not part of this build.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// assert!(!DIST.is_kept("assets/lazy-Ef4nR2sM.js"));
    /// ```
    pub fn is_kept(&self, path: &str) -> bool {
        crate::lookup::normalise(path)
            .is_some_and(|key| self.bundle.kept.binary_search(&key).is_ok())
    }

    /// The files kept from earlier releases (catalog paths, sorted); empty without `releases`.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// assert!(DIST.kept().is_empty());
    /// ```
    pub fn kept(&self) -> &'static [&'static str] {
        self.bundle.kept
    }

    /// The file at `path` as a compression dictionary (`dictionaries = true`): the pattern of
    /// its next versions and its deltas against earlier ones; `None` for a file that is not one.
    /// Only the server reads it.
    #[cfg(feature = "serve")]
    pub(crate) fn dictionary(&self, path: &str) -> Option<&'static crate::layout::DictionaryInfo> {
        let dictionaries = self.bundle.dictionaries;
        crate::lookup::normalise(path)
            .and_then(|key| {
                dictionaries
                    .binary_search_by(|info| info.path.cmp(key))
                    .ok()
            })
            .map(|index| &dictionaries[index])
    }

    /// The CSP sources (`'sha256-…'`) of the inline scripts of the HTML file at `path`, as the
    /// build found them (`script_hashes = true`, feature `csp`); empty for a file without any,
    /// or a catalog built without the setting. What a `Content-Security-Policy` lists to let
    /// exactly those scripts run: see `serve::Csp`.
    ///
    /// ```
    /// static PAGES: bindery::Catalog = bindery::embed!("../../assets/vite-dist", script_hashes = true);
    /// assert_eq!(PAGES.script_hashes("index.html"), ["'sha256-8sd7gaUQpl/Wix4sdPxGszfH4u2wQeq2HrKgY5TT1JU='"]);
    /// assert!(PAGES.script_hashes("favicon.svg").is_empty());
    /// ```
    pub fn script_hashes(&self, path: &str) -> &'static [&'static str] {
        let scripts = self.scripts;
        crate::lookup::normalise(path)
            .and_then(|key| scripts.binary_search_by(|file| file.path.cmp(key)).ok())
            .map_or(&[], |index| scripts[index].hashes)
    }
}
