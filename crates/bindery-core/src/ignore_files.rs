//! `.gitignore` and `.ignore` files, honoured as ripgrep does (the `ignore` crate's matchers):
//! the rules of a folder apply to everything below it, a deeper folder's rules win over its
//! parents', and in one folder `.ignore` wins over `.gitignore`. The folders above the embedded
//! one count up to the top of its git work tree, but only for what lies below the embedded
//! folder: a parent's `/target` rule never empties a catalog of `$OUT_DIR/dist`. A folder's
//! `.git` is never embedded. Global and `.git/info/exclude` rules are not read: they differ
//! between machines, and a build must not.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::Error;

/// The ignore files of one folder, in the order they are asked: `.ignore`, then `.gitignore`.
const NAMES: [&str; 2] = [".ignore", ".gitignore"];

/// The ignore rules for the files under one folder, read as they are needed.
#[derive(Debug, Clone)]
pub(crate) struct Ignores {
    root: PathBuf,
    /// The folders above `root` whose rules apply, nearest first (up to the work tree's top).
    above: Vec<PathBuf>,
    loaded: Arc<Mutex<HashMap<PathBuf, Vec<Gitignore>>>>,
    /// The first ignore file that could not be read or parsed.
    failed: Arc<Mutex<Option<Error>>>,
}

impl Ignores {
    /// The rules for the files under `root`.
    pub(crate) fn new(root: &Path) -> Ignores {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut above = Vec::new();
        if !root.join(".git").exists() {
            let mut dir = root.parent();
            let mut chain = Vec::new();
            while let Some(current) = dir {
                chain.push(current.to_path_buf());
                if current.join(".git").exists() {
                    above = chain;
                    break;
                }
                dir = current.parent();
            }
        }
        Ignores {
            root,
            above,
            loaded: Arc::default(),
            failed: Arc::default(),
        }
    }

    /// The first ignore file that could not be read, if any (the walk reports it).
    pub(crate) fn take_error(&self) -> Option<Error> {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Whether the entry at `relative` (`/`-separated, below the root) is ignored: it, or a
    /// folder on the way to it, matches an ignore rule that no nearer rule re-includes.
    pub(crate) fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        let segments: Vec<&str> = relative.split('/').collect();
        let mut path = self.root.clone();
        for (index, segment) in segments.iter().enumerate() {
            path.push(segment);
            let is_last = index + 1 == segments.len();
            if *segment == ".git" || self.matches(&path, !is_last || is_dir) {
                return true;
            }
        }
        false
    }

    /// Whether the nearest rule about `path` ignores it.
    fn matches(&self, path: &Path, is_dir: bool) -> bool {
        let within = path
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(&self.root))
            .map(Path::to_path_buf);
        for dir in within.chain(self.above.iter().cloned()) {
            for matcher in self.matchers(&dir) {
                match matcher.matched(path, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
        }
        false
    }

    /// The matchers of `dir`'s ignore files, `.ignore` first, read once.
    fn matchers(&self, dir: &Path) -> Vec<Gitignore> {
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(matchers) = loaded.get(dir) {
            return matchers.clone();
        }
        let mut matchers = Vec::new();
        for name in NAMES {
            let file = dir.join(name);
            if !file.is_file() {
                continue;
            }
            let mut builder = GitignoreBuilder::new(dir);
            let built = match builder.add(&file) {
                None => builder.build().map_err(|error| error.to_string()),
                Some(error) => Err(error.to_string()),
            };
            match built {
                Ok(matcher) => matchers.push(matcher),
                Err(message) => {
                    let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
                    failed.get_or_insert(Error::Ignore {
                        path: file,
                        message,
                    });
                }
            }
        }
        loaded.insert(dir.to_path_buf(), matchers.clone());
        matchers
    }
}
