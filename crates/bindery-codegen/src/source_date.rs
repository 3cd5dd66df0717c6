//! One date for every file of a catalog, the same for every build of one commit on any machine:
//! `SOURCE_DATE_EPOCH` (the reproducible-builds convention), else the time of the last commit
//! that touched the folder, else of the last commit that touched the crate.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Error;

/// The variable that fixes the date of a reproducible build (reproducible-builds.org).
pub const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

/// Where a catalog's one date came from.
///
/// ```
/// use bindery_codegen::{DateOrigin, SourceDate};
/// let date = SourceDate { seconds: 1_700_000_000, origin: DateOrigin::Variable };
/// assert_eq!(date.origin, DateOrigin::Variable);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDate {
    /// Seconds since the Unix epoch.
    pub seconds: u64,
    /// Where they were read.
    pub origin: DateOrigin,
}

/// The source of a [`SourceDate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateOrigin {
    /// `SOURCE_DATE_EPOCH`.
    Variable,
    /// The last commit touching `dir`, read with git. `tracked` are the repository files that
    /// change with every commit (`HEAD`, the branch's ref, `packed-refs`), which the macro names to
    /// cargo so that a new commit rebuilds the crate.
    Commit {
        /// The folder whose history was read.
        dir: PathBuf,
        /// Files to watch for a new commit.
        tracked: Vec<PathBuf>,
    },
}

/// The date: `SOURCE_DATE_EPOCH` when set, else the last commit touching `folder`, else the last
/// commit touching `fallback` (the crate), else [`Error::NoSourceDate`]. A variable that is set
/// but is not a whole number of seconds is [`Error::SourceDateEpoch`], never ignored.
pub(crate) fn resolve(folder: &Path, fallback: Option<&Path>) -> Result<SourceDate, Error> {
    if let Some(value) = std::env::var_os(SOURCE_DATE_EPOCH) {
        let text = value.to_string_lossy();
        let seconds = text
            .trim()
            .parse::<u64>()
            .map_err(|_| Error::SourceDateEpoch {
                value: text.clone().into_owned(),
            })?;
        return Ok(SourceDate {
            seconds,
            origin: DateOrigin::Variable,
        });
    }
    let mut reasons = Vec::new();
    for dir in std::iter::once(folder).chain(fallback) {
        match last_commit(dir) {
            Ok(seconds) => {
                return Ok(SourceDate {
                    seconds,
                    origin: DateOrigin::Commit {
                        dir: dir.to_path_buf(),
                        tracked: tracked_files(dir),
                    },
                });
            }
            Err(reason) => reasons.push(format!("`{}`: {reason}", dir.display())),
        }
    }
    Err(Error::NoSourceDate {
        folder: folder.to_path_buf(),
        reason: reasons.join("; "),
    })
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .map_err(|error| format!("cannot run git: {error}"))?;
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr);
        return Err(message.lines().next().unwrap_or("git failed").to_owned());
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The committer time of the last commit that touched `dir` (`git log -1 -- .`).
fn last_commit(dir: &Path) -> Result<u64, String> {
    let text = git(dir, &["log", "-1", "--format=%ct", "--", "."])?;
    if text.is_empty() {
        return Err("no commit touches it".to_owned());
    }
    text.parse()
        .map_err(|_| format!("git printed `{text}` for a commit time"))
}

/// `HEAD`, the ref it points to when that is a loose file, and `packed-refs`: what changes
/// when a commit is made or checked out.
fn tracked_files(dir: &Path) -> Vec<PathBuf> {
    let mut names = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Ok(reference) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        names.push(reference);
    }
    names
        .iter()
        .filter_map(|name| {
            git(
                dir,
                &["rev-parse", "--path-format=absolute", "--git-path", name],
            )
            .ok()
        })
        .map(PathBuf::from)
        .filter(|path| path.is_file())
        .collect()
}
