//! Walking the folder: a deterministic, sorted list of the files to embed.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::Error;
#[cfg(feature = "gitignore")]
use crate::ignore_files::Ignores;

/// One file found by [`scan`]: its path relative to the folder (`/`-separated) and on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Relative path, `/`-separated, valid UTF-8, without the catalog prefix.
    pub relative: String,
    /// Where the file is on disk (under the folder, through any symlinks).
    pub source: PathBuf,
}

/// Which files of the folder to keep: include and exclude globs, hidden files.
///
/// ```
/// use bindery_core::scan::Filter;
/// let filter = Filter::new(&["**/*.html".into()], &["drafts/**".into()], false).unwrap();
/// assert!(filter.is_match("index.html"));
/// assert!(!filter.is_match("drafts/index.html"));
/// assert!(!filter.is_match("app.js"));
/// ```
#[derive(Debug, Clone)]
pub struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
    include_hidden: bool,
    dotfiles: Vec<String>,
    #[cfg(feature = "gitignore")]
    ignores: Option<Ignores>,
}

use crate::glob::GlobSet;
pub use crate::glob::compile_glob;

fn compile_set(patterns: &[String]) -> Result<GlobSet, Error> {
    let globs = patterns
        .iter()
        .map(|pattern| compile_glob(pattern))
        .collect::<Result<_, _>>()?;
    Ok(GlobSet::new(globs))
}

impl Filter {
    /// Builds a filter; an empty `include` list includes everything. Exclude wins over include.
    pub fn new(
        include: &[String],
        exclude: &[String],
        include_hidden: bool,
    ) -> Result<Self, Error> {
        Ok(Filter {
            include: if include.is_empty() {
                None
            } else {
                Some(compile_set(include)?)
            },
            exclude: compile_set(exclude)?,
            include_hidden,
            dotfiles: Vec::new(),
            #[cfg(feature = "gitignore")]
            ignores: None,
        })
    }

    /// Also keeps files and folders with these names (each starting with `.`) though hidden
    /// ones are left out: `.well-known` in, `.env` still out.
    ///
    /// ```
    /// use bindery_core::scan::Filter;
    /// let filter = Filter::new(&[], &[], false).unwrap().dotfiles(&[".well-known".into()]);
    /// assert!(filter.keeps(".well-known/apple-app-site-association"));
    /// assert!(!filter.keeps(".env") && !filter.keeps(".well-known/.secret"));
    /// ```
    pub fn dotfiles(mut self, names: &[String]) -> Self {
        self.dotfiles = names.to_vec();
        self
    }

    /// Also leaves out what the `.gitignore` and `.ignore` files of `root` (the folder this
    /// filter walks) and of the folders below it say to ignore, as ripgrep would; the folders
    /// above `root` up to its git work tree's top count for what lies below `root`. `.git`
    /// itself is always left out. An ignore file that cannot be read or parsed is
    /// [`Error::Ignore`] when the walk meets it.
    ///
    /// ```
    /// use bindery_core::scan::{Filter, scan};
    /// let dir = std::env::temp_dir().join(format!("bindery-doc-ignore-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("node_modules/x")).unwrap();
    /// std::fs::write(dir.join(".gitignore"), "node_modules/\n*.log\n!keep.log\n").unwrap();
    /// for file in ["app.js", "debug.log", "keep.log", "node_modules/x/index.js"] {
    ///     std::fs::write(dir.join(file), "x").unwrap();
    /// }
    /// let filter = Filter::new(&[], &[], false).unwrap().gitignore(&dir);
    /// let found: Vec<String> = scan(&dir, &filter).unwrap().into_iter().map(|f| f.relative).collect();
    /// assert_eq!(found, ["app.js", "keep.log"]);
    /// assert!(!filter.keeps("node_modules/x/index.js"));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    #[cfg(feature = "gitignore")]
    pub fn gitignore(mut self, root: &Path) -> Self {
        self.ignores = Some(Ignores::new(root));
        self
    }

    /// The filter `rules` describe for the folder `root`: their globs, hidden files, and ignore
    /// files when they say so (which needs the feature `gitignore`:
    /// [`Error::FeatureUnavailable`] without it). What a build and dev mode both use.
    ///
    /// ```
    /// use bindery_core::rules::Rules;
    /// let rules = Rules { exclude: vec!["**/*.map".into()], ..Rules::default() };
    /// let filter = bindery_core::scan::Filter::for_rules(&rules, std::path::Path::new(".")).unwrap();
    /// assert!(!filter.keeps("app.js.map") && filter.keeps("app.js"));
    /// ```
    pub fn for_rules(rules: &crate::rules::Rules, root: &Path) -> Result<Filter, Error> {
        let filter =
            Filter::new(&rules.include, &rules.exclude, rules.hidden)?.dotfiles(&rules.dotfiles);
        if !rules.gitignore {
            return Ok(filter);
        }
        #[cfg(feature = "gitignore")]
        return Ok(filter.gitignore(root));
        #[cfg(not(feature = "gitignore"))]
        {
            let _ = root;
            Err(Error::FeatureUnavailable {
                setting: "gitignore",
                feature: "gitignore",
            })
        }
    }

    /// Whether a file at this relative path is kept.
    pub fn is_match(&self, relative: &str) -> bool {
        let is_included = self
            .include
            .as_ref()
            .is_none_or(|set| set.is_match(relative));
        is_included && !self.exclude.is_match(relative)
    }

    /// Whether [`scan`] would keep a file at this relative path: no hidden segment (unless hidden
    /// files are included) and matched by the globs. The same rule as a walk, for one path:
    /// bindery's dev mode asks it of each request instead of walking the folder.
    ///
    /// ```
    /// use bindery_core::scan::Filter;
    /// let filter = Filter::new(&[], &["**/*.map".into()], false).unwrap();
    /// assert!(filter.keeps("js/app.js"));
    /// assert!(!filter.keeps("js/app.js.map"));
    /// assert!(!filter.keeps(".env"));
    /// assert!(!filter.keeps("a/.git/config"));
    /// ```
    pub fn keeps(&self, relative: &str) -> bool {
        let is_hidden = relative
            .split('/')
            .any(|segment| self.is_hidden(segment.as_ref()));
        #[cfg(feature = "gitignore")]
        let is_ignored = self
            .ignores
            .as_ref()
            .is_some_and(|ignores| ignores.is_ignored(relative, false));
        #[cfg(not(feature = "gitignore"))]
        let is_ignored = false;
        !is_hidden && !is_ignored && self.is_match(relative)
    }

    /// Whether the ignore files leave out the walk's entry at `path` (under `root`).
    #[cfg(feature = "gitignore")]
    fn is_ignored(&self, root: &Path, path: &Path, is_dir: bool) -> bool {
        self.ignores
            .as_ref()
            .is_some_and(|ignores| ignores.is_ignored(&lossy_key(root, path), is_dir))
    }

    #[cfg(not(feature = "gitignore"))]
    fn is_ignored(&self, _root: &Path, _path: &Path, _is_dir: bool) -> bool {
        false
    }

    fn is_hidden(&self, name: &std::ffi::OsStr) -> bool {
        let bytes = name.as_encoded_bytes();
        !self.include_hidden
            && bytes.first() == Some(&b'.')
            && !self.dotfiles.iter().any(|named| named.as_bytes() == bytes)
    }
}

/// Lists the files under `root` that `filter` keeps, sorted by relative path.
///
/// Symlinks are followed; a loop is an error, as is a dangling link, an unreadable folder, a name
/// that is not UTF-8 or that holds a backslash, and anything that is not a regular file.
///
/// ```
/// use bindery_core::scan::{Filter, scan};
/// let filter = Filter::new(&[], &[], false).unwrap();
/// let found = scan("../../assets/fixtures".as_ref(), &filter).unwrap();
/// assert!(found.windows(2).all(|pair| pair[0].relative < pair[1].relative));
/// ```
pub fn scan(root: &Path, filter: &Filter) -> Result<Vec<Found>, Error> {
    let found = walk(root, filter, &mut |error| Err(error))?;
    if let Some(pair) = found
        .windows(2)
        .find(|pair| pair[0].relative == pair[1].relative)
    {
        return Err(Error::DuplicatePath {
            key: pair[0].relative.clone(),
            first: pair[0].source.clone(),
            second: pair[1].source.clone(),
        });
    }
    Ok(found)
}

/// Lists what [`scan`] would, skipping what it would refuse (a symlink loop or dangling link, an
/// odd name, a file that is not regular) instead of failing: the folder as it is now, for a
/// reader that must go on while someone edits it (bindery's dev mode). Each skipped entry is
/// handed to `skipped`.
///
/// ```
/// use bindery_core::scan::{Filter, scan, scan_skipping};
/// let filter = Filter::new(&[], &[], false).unwrap();
/// let root = std::path::Path::new("../../assets/fixtures");
/// let mut skipped = Vec::new();
/// let found = scan_skipping(root, &filter, &mut |error| skipped.push(error));
/// assert_eq!(found, scan(root, &filter).unwrap());
/// assert!(skipped.is_empty());
/// ```
pub fn scan_skipping(root: &Path, filter: &Filter, skipped: &mut dyn FnMut(Error)) -> Vec<Found> {
    let mut found = walk(root, filter, &mut |error| {
        skipped(error);
        Ok(())
    })
    .unwrap_or_default();
    found.dedup_by(|later, earlier| later.relative == earlier.relative);
    found
}

/// The walk behind [`scan`] and [`scan_skipping`]: `on_error` decides whether an entry's error
/// stops the walk (`Err`) or skips the entry (`Ok`).
fn walk(
    root: &Path,
    filter: &Filter,
    on_error: &mut dyn FnMut(Error) -> Result<(), Error>,
) -> Result<Vec<Found>, Error> {
    let walker = WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0
                || !(filter.is_hidden(entry.file_name())
                    || filter.is_ignored(root, entry.path(), entry.file_type().is_dir()))
        });
    let mut found = Vec::new();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                on_error(walk_error(root, error))?;
                continue;
            }
        };
        if entry.file_type().is_dir() {
            continue;
        }
        // Filter on a lossy key first, so that an excluded file with an odd name never fails the
        // build; only files that are kept must have names a catalog can carry.
        if !filter.is_match(&lossy_key(root, entry.path())) {
            continue;
        }
        let relative = match relative_key(root, entry.path()) {
            Ok(relative) => relative,
            Err(error) => {
                on_error(error)?;
                continue;
            }
        };
        if !entry.file_type().is_file() {
            on_error(Error::read(
                entry.path(),
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"),
            ))?;
            continue;
        }
        found.push(Found {
            relative,
            source: entry.into_path(),
        });
    }
    #[cfg(feature = "gitignore")]
    if let Some(error) = filter.ignores.as_ref().and_then(Ignores::take_error) {
        on_error(error)?;
    }
    found.sort_by(|left, right| left.relative.cmp(&right.relative));
    Ok(found)
}

fn walk_error(root: &Path, error: walkdir::Error) -> Error {
    let path = error.path().unwrap_or(root).to_path_buf();
    if let Some(ancestor) = error.loop_ancestor() {
        return Error::SymlinkLoop {
            path,
            ancestor: ancestor.to_path_buf(),
        };
    }
    let source = error
        .into_io_error()
        .unwrap_or_else(|| std::io::Error::other("cannot walk folder"));
    Error::read(path, source)
}

fn lossy_key(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let names: Vec<_> = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect();
    names.join("/")
}

fn relative_key(root: &Path, path: &Path) -> Result<String, Error> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let mut key = String::new();
    for component in relative.components() {
        let name = component
            .as_os_str()
            .to_str()
            .ok_or_else(|| Error::NonUtf8Name {
                path: path.to_path_buf(),
            })?;
        if name.contains('\\') {
            return Err(Error::UnsupportedName {
                path: path.to_path_buf(),
                reason: "backslashes cannot appear in catalog paths",
            });
        }
        if !key.is_empty() {
            key.push('/');
        }
        key.push_str(name);
    }
    Ok(key)
}
