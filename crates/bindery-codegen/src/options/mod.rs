//! What to embed and how: the options shared by the macro, the generator and build scripts,
//! each defined once in [`SETTINGS`] (table.rs), set here.

mod table;

use std::path::{Path, PathBuf};

pub use bindery_core::rules::{Modified, Rules};
pub use table::{Given, SETTINGS, Setting, Takes, folder_names, markdown, names, setting};

use crate::{Encoding, Error, Integrity, Mode, normalise_prefix};

/// The path generated code names the runtime by unless told otherwise.
pub const DEFAULT_CRATE_PATH: &str = "::bindery";

/// The gzip level used unless another is asked for: the best compression, paid once per file
/// content thanks to the blob cache.
pub const DEFAULT_LEVEL: u32 = 9;

/// Stored size from which files go through the assembler rather than `include_bytes!`, and are
/// never packed: 1 MiB. Below it, `include_bytes!` costs rustc little; above, its cost grows
/// with the size, where the assembler's does not (BENCHMARKS.md, "Build cost").
pub const DEFAULT_LARGE_THRESHOLD: u64 = 1024 * 1024;

/// Parses a size as `max_file_size` and `max_total_size` take it: a number of bytes, or one with
/// a unit (`kB`, `MB`, `GB` are powers of 1000; `KiB`, `MiB`, `GiB` of 1024).
///
/// ```
/// use bindery_codegen::parse_size;
/// assert_eq!(parse_size("512"), Ok(512));
/// assert_eq!(parse_size("2 MiB"), Ok(2 * 1024 * 1024));
/// assert_eq!(parse_size("1.5MB"), Ok(1_500_000));
/// assert!(parse_size("big").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<bytesize::ByteSize>()
        .map(|size| size.as_u64())
        .map_err(|_| {
            format!("invalid size `{text}`: a number of bytes, or one with a unit such as `10 MiB`")
        })
}

/// Parses a large-file threshold as the macro and the generator take it: a number of bytes, or
/// `off`.
///
/// ```
/// use bindery_codegen::parse_large_threshold;
/// assert_eq!(parse_large_threshold("0"), Ok(Some(0)));
/// assert_eq!(parse_large_threshold("off"), Ok(None));
/// assert!(parse_large_threshold("big").is_err());
/// ```
pub fn parse_large_threshold(text: &str) -> Result<Option<u64>, String> {
    if text == "off" {
        return Ok(None);
    }
    text.parse::<u64>()
        .map(Some)
        .map_err(|_| format!("invalid large-file threshold `{text}`: a number of bytes, or `off`"))
}

/// Options for building a [`Manifest`](crate::Manifest) from a folder.
///
/// ```
/// use bindery_codegen::{Mode, Options};
///
/// let manifest = Options::new("../../assets/fixtures")
///     .mode(Mode::Static)
///     .include("**/*.txt")
///     .exclude("deep/**")
///     .prefix("static")
///     .build()
///     .unwrap();
/// assert!(manifest.entries.iter().all(|entry| entry.path.starts_with("static/")));
/// assert!(manifest.entries.iter().all(|entry| entry.path.ends_with(".txt")));
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    pub(crate) root: PathBuf,
    pub(crate) mode: Mode,
    /// Which files, and what they record: include and exclude globs, hidden files, ignore
    /// files, siblings, modification times, the integrity algorithm.
    pub(crate) rules: Rules,
    pub(crate) prefix: String,
    pub(crate) level: u32,
    pub(crate) cache_dir: Option<PathBuf>,
    pub(crate) allow_missing: bool,
    /// What a missing folder's error tells the user to do; empty: bindery's own advice.
    pub(crate) hint: String,
    /// `unknown_types = "deny"`: a file with no known media type fails the build.
    pub(crate) deny_unknown_types: bool,
    pub(crate) large_threshold: Option<u64>,
    pub(crate) precompress: Vec<Encoding>,
    pub(crate) pack: bool,
    pub(crate) snapshots: bool,
    pub(crate) crate_path: String,
    pub(crate) crate_dir: Option<PathBuf>,
    pub(crate) fingerprint: bool,
    pub(crate) manifest: Option<crate::Bundler>,
    pub(crate) script_hashes: bool,
    pub(crate) releases: Option<PathBuf>,
    pub(crate) keep_releases: u64,
    pub(crate) dictionaries: bool,
    /// Whether [`integrity`](Self::integrity) was set: else what needs SHA-256 turns it on.
    pub(crate) integrity_given: bool,
    pub(crate) max_file_size: Option<u64>,
    pub(crate) max_total_size: Option<u64>,
    /// The further folders of the catalog, each as options of which only the per-folder
    /// settings count ([`Options::folder`]).
    pub(crate) folders: Vec<Options>,
}

impl Options {
    /// Options to embed the folder `root` in `static` mode, with every non-hidden file.
    ///
    /// ```
    /// let options = bindery_codegen::Options::new("assets/spa");
    /// assert_eq!(options.root(), std::path::Path::new("assets/spa"));
    /// ```
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Options {
            root: root.into(),
            mode: Mode::Static,
            rules: Rules::default(),
            prefix: String::new(),
            level: DEFAULT_LEVEL,
            cache_dir: None,
            allow_missing: false,
            hint: String::new(),
            deny_unknown_types: false,
            large_threshold: Some(DEFAULT_LARGE_THRESHOLD),
            precompress: Vec::new(),
            pack: false,
            snapshots: false,
            crate_path: DEFAULT_CRATE_PATH.to_owned(),
            crate_dir: None,
            fingerprint: false,
            manifest: None,
            script_hashes: false,
            releases: None,
            keep_releases: crate::release::DEFAULT_KEEP,
            dictionaries: false,
            integrity_given: false,
            max_file_size: None,
            max_total_size: None,
            folders: Vec::new(),
        }
    }

    /// Adds a further folder to the same catalog. Of `folder` only its root and the settings
    /// each folder has its own of count (those [`SETTINGS`] marks
    /// [`per_folder`](Setting::per_folder); [`folder_names`] lists them); every other setting is the whole
    /// catalog's and is given here, with the first folder ([`validate`](Self::validate) refuses
    /// one set on a further folder). Two folders that give the same catalog path fail the build
    /// with [`Error::FolderOverlap`], naming both files.
    ///
    /// ```
    /// use bindery_codegen::Options;
    ///
    /// let manifest = Options::new("../../assets/fixtures")
    ///     .include("*.txt")
    ///     .folder(Options::new("../../assets/spa").prefix("app").include("index.html"))
    ///     .build()
    ///     .unwrap();
    /// let paths: Vec<&str> = manifest.entries.iter().map(|entry| entry.path.as_str()).collect();
    /// assert!(paths.contains(&"hello.txt") && paths.contains(&"app/index.html"));
    /// assert!(paths.is_sorted());
    /// ```
    pub fn folder(mut self, folder: Options) -> Self {
        self.folders.push(folder);
        self
    }

    /// The further folders added with [`folder`](Self::folder), in the order given.
    pub fn folders(&self) -> &[Options] {
        &self.folders
    }

    /// Every folder of the catalog as the options it is built with: the first folder's own,
    /// then each further one's root and the settings [`SETTINGS`] marks
    /// [`per_folder`](Setting::per_folder), read from it and set over the whole catalog's: the
    /// mark is the one list. A test walks every setting to the part it must reach (table.rs).
    pub(crate) fn parts(&self) -> Vec<Options> {
        let first = Options {
            folders: Vec::new(),
            ..self.clone()
        };
        let mut parts = vec![first.clone()];
        for folder in &self.folders {
            let own = SETTINGS.iter().filter(|setting| setting.per_folder);
            let part = own.fold(
                Options {
                    root: folder.root.clone(),
                    ..first.clone()
                },
                |part, setting| {
                    setting.set(part, &setting.get(folder)).expect(
                        "a setting takes back the value it gives (held by table.rs's tests)",
                    )
                },
            );
            parts.push(part);
        }
        parts
    }

    /// Sets the option `name` (a macro key, as [`SETTINGS`] defines them) to `value`: what
    /// every front door calls; the typed setters below are the same for Rust callers.
    ///
    /// ```
    /// use bindery_codegen::options::Given;
    /// let options = bindery_codegen::Options::new("assets").set("max_file_size", &Given::Text("2 MiB".into())).unwrap();
    /// assert!(bindery_codegen::Options::new("assets").set("nope", &Given::Bool(true)).is_err());
    /// # let _ = options;
    /// ```
    pub fn set(self, name: &str, value: &Given) -> Result<Self, String> {
        match setting(name) {
            Some(setting) => setting.set(self, value),
            None => Err(format!(
                "unknown option `{name}` (expected one of: {})",
                names()
            )),
        }
    }

    /// The rules that choose the files and what they record.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Uses the precompressed files a front-end pipeline wrote beside each file (`app.js.br`,
    /// `app.js.gz`, `app.js.zst`) as its wire variants instead of compressing it again, once
    /// each is shown to decode to exactly the file ([`Error::SiblingMismatch`] otherwise, naming
    /// both; checking brotli and zstd needs the features of those names). They are not files of
    /// the catalog themselves; one that saves less than
    /// [`MIN_SAVING_PERCENT`](crate::MIN_SAVING_PERCENT) is left out. In gzip mode a `.gz`
    /// sibling is the stored form. The macro's `siblings = true`.
    pub fn siblings(mut self, siblings: bool) -> Self {
        self.rules.siblings = siblings;
        self
    }

    /// Leaves out what the folder's `.gitignore` and `.ignore` files ignore, as ripgrep does
    /// (see [`Filter::gitignore`](crate::scan::Filter::gitignore)): a `node_modules/` in the
    /// project's `.gitignore` is not embedded by accident. Dev mode applies the same rules.
    ///
    /// ```
    /// let manifest = bindery_codegen::Options::new("../../assets/fixtures").gitignore(true).build().unwrap();
    /// assert!(manifest.rules.gitignore);
    /// ```
    pub fn gitignore(mut self, gitignore: bool) -> Self {
        self.rules.gitignore = gitignore;
        self
    }

    /// Whether files carry a modification time: [`Modified::Off`] (the default, so builds are
    /// reproducible), [`Modified::Files`] (each file's own), or [`Modified::SourceDateEpoch`]:
    /// one date for every file, the same for every build of one commit on any machine (instead
    /// of each file's modification time, which a checkout sets to the time of the checkout):
    /// `SOURCE_DATE_EPOCH` when set, else the time of the last commit that touched the folder,
    /// else of the last one that touched [`crate_dir`](Self::crate_dir) (the folder a build
    /// script wrote, under `target/`, has no history of its own), else [`Error::NoSourceDate`].
    ///
    /// ```
    /// use bindery_codegen::options::Modified;
    /// // This repository's fixtures: SOURCE_DATE_EPOCH if set, else their last commit's time.
    /// let manifest = bindery_codegen::Options::new("../../assets/fixtures").modified(Modified::SourceDateEpoch).build().unwrap();
    /// let date = manifest.source_date.as_ref().unwrap().seconds;
    /// assert!(manifest.entries.iter().all(|entry| entry.modified == Some(date)));
    /// ```
    pub fn modified(mut self, modified: Modified) -> Self {
        self.rules.modified = modified;
        self
    }

    /// The crate's folder (the macro gives `CARGO_MANIFEST_DIR`): where
    /// [`Modified::SourceDateEpoch`] looks for a commit when the folder has none.
    pub fn crate_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.crate_dir = Some(dir.into());
        self
    }

    /// Records each file's SHA-256 and its Subresource Integrity string
    /// ([`Entry::integrity`](crate::Entry::integrity)) in this algorithm, or (`None`) neither.
    /// Not recorded unless asked, or unless something compares or names files by SHA-256 (a
    /// bundler's [`manifest`](Self::manifest), [`releases`](Self::releases),
    /// [`dictionaries`](Self::dictionaries)): then sha384, as the SRI specification recommends.
    /// Computing them needs the feature `integrity` ([`Error::FeatureUnavailable`](crate::Error)
    /// without it); what is recorded depends on the options only, so the macro and the
    /// generator record the same.
    ///
    /// ```
    /// use bindery_codegen::{Integrity, Options};
    /// let manifest = Options::new("../../assets/fixtures").integrity(Integrity::Sha512).build().unwrap();
    /// assert!(manifest.entries[0].integrity.as_deref().unwrap().starts_with("sha512-"));
    /// let manifest = Options::new("../../assets/fixtures").build().unwrap();
    /// assert_eq!((manifest.entries[0].sha256, manifest.entries[0].integrity.as_deref()), (None, None));
    /// ```
    pub fn integrity(mut self, integrity: impl Into<Option<Integrity>>) -> Self {
        self.rules.integrity = integrity.into();
        self.integrity_given = true;
        self
    }

    /// What needs SHA-256 was asked for: integrity is recorded unless it was set.
    fn needs_sha256(mut self) -> Self {
        if !self.integrity_given && self.rules.integrity.is_none() {
            self.rules.integrity = Some(Integrity::default());
        }
        self
    }

    /// Makes each file also addressable under a name that holds the first
    /// [`FINGERPRINT_LEN`](crate::FINGERPRINT_LEN) hex digits of its content hash
    /// (`app.css` → `app.3f2a9c1d4e5b.css`), which the server marks `immutable`; the plain name
    /// stays, served with revalidation. Two files whose fingerprinted and plain names meet are
    /// [`Error::FingerprintCollision`].
    ///
    /// ```
    /// let manifest = bindery_codegen::Options::new("../../assets/fixtures").fingerprint(true).build().unwrap();
    /// let hello = manifest.entries.iter().find(|entry| entry.path == "hello.txt").unwrap();
    /// assert_eq!(hello.fingerprinted.as_deref(), Some(format!("hello.{}.txt", &hello.hash[..12]).as_str()));
    /// ```
    pub fn fingerprint(mut self, fingerprint: bool) -> Self {
        self.fingerprint = fingerprint;
        self
    }

    /// Reads the bundler's manifest in the (first) folder at build time (Vite's
    /// `.vite/manifest.json`, written with `build.manifest: true`): each chunk's file, the
    /// stylesheets and chunks it needs, and every file it names, whose name already carries the
    /// bundler's hash (served `immutable` as it is, never fingerprinted again). A manifest that
    /// names a file the catalog does not hold fails the build ([`Error::BundleMissingFile`]).
    ///
    /// ```
    /// # let dist = tempfile::tempdir().unwrap();
    /// # std::fs::create_dir_all(dist.path().join(".vite")).unwrap();
    /// # std::fs::create_dir_all(dist.path().join("assets")).unwrap();
    /// # std::fs::write(dist.path().join("assets/index-B1x2.js"), "import './shared-C3.js'").unwrap();
    /// # std::fs::write(dist.path().join("assets/shared-C3.js"), "export {}").unwrap();
    /// # std::fs::write(dist.path().join("assets/index-D4.css"), "p{}").unwrap();
    /// std::fs::write(dist.path().join(".vite/manifest.json"), r#"{
    ///   "index.html": {"file": "assets/index-B1x2.js", "isEntry": true, "imports": ["_shared"], "css": ["assets/index-D4.css"]},
    ///   "_shared": {"file": "assets/shared-C3.js"}
    /// }"#).unwrap();
    /// let manifest = bindery_codegen::Options::new(dist.path())
    ///     .manifest(Some(bindery_codegen::Bundler::Vite))
    ///     .build()
    ///     .unwrap();
    /// let bundle = manifest.bundle.unwrap();
    /// let index = bundle.chunks.iter().find(|chunk| chunk.name == "index.html").unwrap();
    /// assert_eq!(index.file, "assets/index-B1x2.js");
    /// assert_eq!(index.preloads, ["assets/shared-C3.js"]);
    /// assert_eq!(index.styles, ["assets/index-D4.css"]);
    /// assert_eq!(bundle.scripts, ["assets/index-B1x2.js", "assets/shared-C3.js"]);
    /// ```
    pub fn manifest(mut self, bundler: Option<crate::Bundler>) -> Self {
        self.manifest = bundler;
        if bundler.is_some() {
            return self.needs_sha256();
        }
        self
    }

    /// Records the CSP hash (`'sha256-…'`) of every inline `<script>` of each HTML file
    /// (feature `csp`), found as a browser parses the page, so that a
    /// `Content-Security-Policy` can allow exactly those scripts without `'unsafe-inline'`.
    /// A script whose text a template fills in at run time has another hash: only fixed
    /// scripts are allowed this way.
    ///
    /// ```
    /// # let site = tempfile::tempdir().unwrap();
    /// std::fs::write(site.path().join("index.html"), "<script>go()</script><script src=app.js></script>").unwrap();
    /// let manifest = bindery_codegen::Options::new(site.path()).script_hashes(true).build().unwrap();
    /// assert_eq!(manifest.entries[0].script_hashes, ["'sha256-5KYv+PUboo5h+0+YAtGRPbwv5d/QxzHslP4YGnUaxRw='"]);
    /// ```
    pub fn script_hashes(mut self, record: bool) -> Self {
        self.script_hashes = record;
        self
    }

    /// Serves the hashed files of the newest [`keep_releases`](Self::keep_releases) releases
    /// saved in `folder` ([`release::save`](crate::release::save), `bindery release <dir> --into <folder>`)
    /// beside this build's: a page loaded before a deploy still finds the chunks it asks for.
    /// They are served `immutable` under their own names; plain names, the SPA fallback and a
    /// bundler's entries stay the current build's. A release whose files are not what its
    /// record says fails the build ([`Error::Release`]); a missing folder holds none. Relative
    /// to the crate (the macro) or the working folder (the generator).
    ///
    /// ```
    /// use bindery_codegen::{Options, release};
    /// let releases = tempfile::tempdir().unwrap();
    /// let old = Options::new("../../assets/fixtures").fingerprint(true).build().unwrap();
    /// release::save(&old, releases.path(), 3).unwrap();
    /// let manifest = Options::new("../../assets/spa").fingerprint(true)
    ///     .releases(Some(releases.path().into())).build().unwrap();
    /// assert!(manifest.entries.iter().any(|entry| entry.kept == Some(1)));
    /// ```
    pub fn releases(mut self, folder: Option<PathBuf>) -> Self {
        let is_set = folder.is_some();
        self.releases = folder;
        if is_set {
            return self.needs_sha256();
        }
        self
    }

    /// How many of the newest releases in [`releases`](Self::releases) are kept: 3 unless set,
    /// at most [`release::MAX_KEEP`](crate::release::MAX_KEEP).
    ///
    /// ```
    /// let options = bindery_codegen::Options::new("assets").keep_releases(5);
    /// ```
    pub fn keep_releases(mut self, count: u64) -> Self {
        self.keep_releases = count;
        self
    }

    /// Compression dictionary transport (RFC 9842; feature `zstd`): every hashed file is sent
    /// with `Use-As-Dictionary` naming a pattern of its next versions, and for each earlier
    /// version kept by [`releases`](Self::releases) a `dcz` delta (zstd with that version as
    /// dictionary) is made at build time, for browsers that announce they hold it.
    ///
    /// ```
    /// let options = bindery_codegen::Options::new("assets").dictionaries(true);
    /// ```
    pub fn dictionaries(mut self, on: bool) -> Self {
        self.dictionaries = on;
        if on {
            return self.needs_sha256();
        }
        self
    }

    /// Refuses any file larger than `bytes` ([`Error::FileTooLarge`], naming the largest):
    /// a guard against embedding a video or a database by accident.
    ///
    /// ```
    /// let error = bindery_codegen::Options::new("../../assets/fixtures").max_file_size(Some(10)).build().unwrap_err();
    /// assert!(error.to_string().contains("larger than max_file_size (10 B)"), "{error}");
    /// ```
    pub fn max_file_size(mut self, bytes: Option<u64>) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// Refuses a catalog whose files add up to more than `bytes` ([`Error::TotalTooLarge`],
    /// naming the five largest): a guard against a `node_modules` embedded by accident.
    ///
    /// ```
    /// let error = bindery_codegen::Options::new("../../assets/fixtures").max_total_size(Some(100)).build().unwrap_err();
    /// assert!(error.to_string().contains("(more than max_total_size, 100 B)"), "{error}");
    /// ```
    pub fn max_total_size(mut self, bytes: Option<u64>) -> Self {
        self.max_total_size = bytes;
        self
    }

    /// Puts the bytes of the small files stored as they are (no variants, no time, under the
    /// large threshold) into one blob in the cache, when there are two or more, so that the
    /// generated code includes one file instead of one per file ([`Manifest::pack`](crate::Manifest::pack)). The macro
    /// does; generated modules, which are committed, include each file.
    ///
    /// ```
    /// let root = std::path::absolute("../../assets/fixtures").unwrap();
    /// let manifest = bindery_codegen::Options::new(root).pack(true).build().unwrap();
    /// let pack = manifest.pack.unwrap();
    /// assert!(pack.offsets.iter().flatten().count() >= 2);
    /// ```
    pub fn pack(mut self, pack: bool) -> Self {
        self.pack = pack;
        self
    }

    /// Gives every raw file outside the pack a private copy in the cache, written from the
    /// bytes that were hashed ([`Entry::snapshot`](crate::Entry::snapshot)), so that the
    /// generated code includes what was hashed even if the source changes while the build
    /// runs. The macro does; generated modules, which are committed, include each source.
    ///
    /// ```
    /// let root = std::path::absolute("../../assets/fixtures").unwrap();
    /// let manifest = bindery_codegen::Options::new(root).snapshots(true).build().unwrap();
    /// let page = manifest.entries.iter().find(|entry| entry.path == "index.html").unwrap();
    /// assert_eq!(std::fs::read(page.stored_path()).unwrap(), std::fs::read(&page.source).unwrap());
    /// assert_ne!(page.stored_path(), page.source);
    /// ```
    pub fn snapshots(mut self, snapshots: bool) -> Self {
        self.snapshots = snapshots;
        self
    }

    /// The path generated code names the runtime by (`::bindery` by default): for a crate that
    /// re-exports bindery (`pub use bindery;`) and whose users do not depend on it themselves,
    /// e.g. `my_crate::bindery`.
    ///
    /// ```
    /// let root = std::path::absolute("../../assets/fixtures").unwrap();
    /// let manifest = bindery_codegen::Options::new(root).crate_path("my_crate::bindery").build().unwrap();
    /// assert_eq!(manifest.crate_path, "my_crate::bindery");
    /// ```
    pub fn crate_path(mut self, path: impl Into<String>) -> Self {
        self.crate_path = path.into();
        self
    }

    /// The folder to embed.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Sets the mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds an include glob, matched against paths relative to the folder (`*` also crosses `/`).
    /// With no include glob every file is included.
    pub fn include(mut self, glob: impl Into<String>) -> Self {
        self.rules.include.push(glob.into());
        self
    }

    /// Adds an exclude glob; a file matching any exclude glob is left out even if included.
    pub fn exclude(mut self, glob: impl Into<String>) -> Self {
        self.rules.exclude.push(glob.into());
        self
    }

    /// Puts `prefix` (a clean relative path, `/` added if missing) before every catalog path.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Includes files and folders whose name starts with `.` (left out by default).
    pub fn hidden(mut self, hidden: bool) -> Self {
        self.rules.hidden = hidden;
        self
    }

    /// Sets the gzip level, 0 to 9 ([`DEFAULT_LEVEL`] by default).
    pub fn level(mut self, level: u32) -> Self {
        self.level = level;
        self
    }

    /// Sets where compressed blobs, packs and snapshots are cached (see
    /// [`default_cache_dir`](crate::default_cache_dir)). The folder is created if needed and must
    /// belong to the user who builds; one that others may write to is made private (mode 0700).
    pub fn cache_dir(mut self, cache_dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = Some(cache_dir.into());
        self
    }

    /// Lets a missing folder give an empty catalog instead of an error (a front end not built yet).
    pub fn allow_missing(mut self, allow_missing: bool) -> Self {
        self.allow_missing = allow_missing;
        self
    }

    /// What the error for a missing folder tells the user to do (how the folder is made: `"run
    /// npm run build in web/"`), in place of bindery's general advice. The macro's `hint`.
    ///
    /// ```
    /// let error = bindery_codegen::Options::new("no/such/dist")
    ///     .hint("run `npm run build` in web/")
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(error.to_string(), "folder `no/such/dist` does not exist; run `npm run build` in web/");
    /// ```
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }

    /// Embeds names starting with `.` that are in `names` (`.well-known`), a file or folder
    /// of that name at any depth, without [`hidden`](Self::hidden): every other dotfile stays
    /// out. The macro's `dotfiles = [".well-known"]`.
    ///
    /// ```
    /// let manifest = bindery_codegen::Options::new("../../assets/types").dotfiles([".well-known"]).build().unwrap();
    /// let paths: Vec<&str> = manifest.entries.iter().map(|entry| entry.path.as_str()).collect();
    /// assert!(paths.contains(&".well-known/apple-app-site-association"));
    /// assert!(!paths.contains(&".env"));
    /// ```
    pub fn dotfiles<N: Into<String>>(mut self, names: impl IntoIterator<Item = N>) -> Self {
        self.rules.dotfiles = names.into_iter().map(Into::into).collect();
        self
    }

    /// Gives the files a `glob` matches the media type `media_type` (`application/json`), over
    /// the guess from the extension; the first rule that matches wins. Recorded in the catalog,
    /// so dev mode and an overlay give the same type. The macro's `types = ["glob=type"]`.
    ///
    /// ```
    /// let manifest = bindery_codegen::Options::new("../../assets/types")
    ///     .dotfiles([".well-known"])
    ///     .media_type(".well-known/apple-app-site-association", "application/json")
    ///     .build()
    ///     .unwrap();
    /// let file = manifest.entries.iter().find(|entry| entry.path.ends_with("association")).unwrap();
    /// assert_eq!(file.mime, "application/json");
    /// ```
    pub fn media_type(mut self, glob: &str, media_type: &str) -> Self {
        self.rules.types.push(format!("{glob}={media_type}"));
        self
    }

    /// With `true`, a file whose media type is unknown (no [`media_type`](Self::media_type)
    /// rule, an extension no table knows: `LICENSE`, `data.bin2`) fails the build with
    /// [`Error::UnknownMediaTypes`] naming each; with `false` (the default) it is served as
    /// `application/octet-stream`. The macro's `unknown_types = "deny"`.
    pub fn deny_unknown_types(mut self, deny: bool) -> Self {
        self.deny_unknown_types = deny;
        self
    }

    /// Files whose stored bytes are at least this long enter the binary through the assembler
    /// (`.incbin`) instead of `include_bytes!`, so rustc never holds them ([`DEFAULT_LARGE_THRESHOLD`]
    /// by default; `Some(0)` for every file; `None` never).
    pub fn large_threshold(mut self, threshold: Option<u64>) -> Self {
        self.large_threshold = threshold;
        self
    }

    /// Adds precompressed wire variants, in any mode: each encoding is computed once per file
    /// content (cached like gzip blobs) and kept where it saves at least
    /// [`MIN_SAVING_PERCENT`](crate::MIN_SAVING_PERCENT). `br` and `zstd` need this crate's
    /// features of the same names; asking twice for one encoding is an error at build.
    ///
    /// ```
    /// use bindery_codegen::{Encoding, Mode, Options};
    ///
    /// let manifest = Options::new("../../assets/fixtures")
    ///     .mode(Mode::Static)
    ///     .precompress([Encoding::Gzip])
    ///     .build()
    ///     .unwrap();
    /// let page = manifest.entries.iter().find(|entry| entry.path == "index.html").unwrap();
    /// assert_eq!(page.variants[0].encoding, Encoding::Gzip);
    /// ```
    pub fn precompress(mut self, encodings: impl IntoIterator<Item = Encoding>) -> Self {
        self.precompress = encodings.into_iter().collect();
        self
    }

    /// The prefix in its normal form (`""` or ending in `/`), or why it is refused.
    pub(crate) fn normalised_prefix(&self) -> Result<String, Error> {
        normalise_prefix(&self.prefix)
    }
}

/// One step of a build, for progress reports.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Files finished so far, this one included.
    pub done: usize,
    /// Files in the build.
    pub total: usize,
    /// The catalog path of the file just finished.
    pub path: &'a str,
    /// Its size in bytes.
    pub len: u64,
}
