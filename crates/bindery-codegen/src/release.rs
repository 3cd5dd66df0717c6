//! Releases kept beside the current one (`releases`): the hashed files of earlier builds, each
//! release a folder `<number>/` holding them at their catalog paths and a record
//! ([`RECORD`]) of their lengths and SHA-256. [`save`] writes one from a build; a build reads
//! the newest `keep_releases` back ([`read`]) and refuses one whose files are not what its
//! record says. A clean CI checkout gets the folder from wherever the last deploy left it (a
//! cache or an artifact); docs/deploying.md shows the flow.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::cache::TempFile;
use crate::{Error, Manifest};

/// The record's file name in each release folder.
pub const RECORD: &str = "bindery-release.json";
/// The file beside the release folders that [`save`] rewrites whenever it changes them, and
/// that a build names to cargo: a release saved under an unchanged crate rebuilds it.
pub const INDEX: &str = "bindery-releases.json";
/// The format of the record this crate writes and reads.
const FORMAT: u32 = 1;
/// How many releases a build keeps unless told otherwise.
pub const DEFAULT_KEEP: u64 = 3;
/// The most releases a build may keep.
pub const MAX_KEEP: u64 = 32;

/// The record of one release: what it holds, for the next builds to verify.
#[derive(Debug)]
#[cfg_attr(feature = "releases", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "releases", serde(deny_unknown_fields))]
#[cfg_attr(not(feature = "releases"), allow(dead_code))]
struct Record {
    bindery_release: u32,
    release: u64,
    files: Vec<RecordFile>,
}

#[derive(Debug)]
#[cfg_attr(feature = "releases", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "releases", serde(deny_unknown_fields))]
#[cfg_attr(not(feature = "releases"), allow(dead_code))]
struct RecordFile {
    path: String,
    len: u64,
    sha256: String,
}

/// A release kept beside the current build: its number and folder, and the files its record
/// lists (not yet hashed: a build hashes them as it reads them and compares).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// Its number: the newest is the highest.
    pub number: u64,
    /// Its folder.
    pub folder: PathBuf,
    /// Its files, in the record's order.
    pub files: Vec<KeptFile>,
}

/// One file of a kept release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFile {
    /// Its catalog path (what its URL serves).
    pub path: String,
    /// Where it is on disk.
    pub source: PathBuf,
    /// Its length, as recorded and found.
    pub len: u64,
    /// Its SHA-256, as recorded.
    pub sha256: [u8; 32],
}

fn refuse(path: &Path, reason: impl Into<String>) -> Error {
    Error::Release {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

/// The newest `keep` releases in `dir`, newest first, each record read and checked against the
/// folder (names, lengths, no links); their contents are checked when the build hashes them.
/// A missing `dir` holds none; a folder in it without a record, or one whose name is not its
/// record's number, is refused.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// assert!(bindery_codegen::release::read(dir.path(), 3).unwrap().is_empty());
/// std::fs::create_dir(dir.path().join("1")).unwrap();
/// let error = bindery_codegen::release::read(dir.path(), 3).unwrap_err();
/// assert!(error.to_string().contains("bindery-release.json"), "{error}");
/// ```
pub fn read(dir: &Path, keep: u64) -> Result<Vec<Release>, Error> {
    let mut numbers = Vec::new();
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(refuse(
                dir,
                format!("cannot read the releases folder: {error}"),
            ));
        }
    };
    for item in listing {
        let item = item.map_err(|error| Error::read(dir, error))?;
        let name = item.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !item.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let number = name
            .parse::<u64>()
            .ok()
            .filter(|number| number.to_string() == name)
            .ok_or_else(|| refuse(&item.path(), "a release folder is named by its number"))?;
        numbers.push(number);
    }
    numbers.sort_unstable_by(|left, right| right.cmp(left));
    numbers.truncate(usize::try_from(keep).unwrap_or(usize::MAX));
    numbers
        .into_iter()
        .map(|number| one(&dir.join(number.to_string()), number))
        .collect()
}

/// The index of `dir` ([`INDEX`]: the numbers of the releases there, newest first), for a
/// build to name to cargo so that the next release saved there rebuilds the crate. Written
/// when it is missing (the folder too, when there is none yet, so that the first release is
/// noticed as well); `None` when it cannot be (a read-only source tree), and the build then
/// depends on the records it read only.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let releases = dir.path().join("releases");
/// let index = bindery_codegen::release::index(&releases).unwrap();
/// assert_eq!(index, releases.join("bindery-releases.json"));
/// assert!(bindery_codegen::release::read(&releases, 3).unwrap().is_empty());
/// ```
pub fn index(dir: &Path) -> Option<PathBuf> {
    let index = dir.join(INDEX);
    if std::fs::symlink_metadata(&index).is_ok_and(|metadata| metadata.is_file()) {
        return Some(index);
    }
    std::fs::create_dir_all(dir).ok()?;
    let numbers: Vec<u64> = read(dir, u64::MAX)
        .ok()?
        .iter()
        .map(|release| release.number)
        .collect();
    // Written during the compile that names it, it would look newer than that compile to cargo
    // and rebuild the crate once more; dated long ago, the first `save` after it is newer.
    write_index(dir, &numbers, Some(std::time::UNIX_EPOCH)).ok()?;
    Some(index)
}

/// Writes [`INDEX`] (dated `modified`, else now) as the cache writes its files: a fresh
/// exclusive temporary renamed into place, so that a build never reads half of it and no
/// planted name is followed.
fn write_index(
    dir: &Path,
    numbers: &[u64],
    modified: Option<std::time::SystemTime>,
) -> Result<(), Error> {
    let index = dir.join(INDEX);
    let text =
        json::index(numbers).map_err(|error| Error::write(&index, std::io::Error::other(error)))?;
    let mut staged = TempFile::new_in(dir).map_err(|error| Error::write(&index, error))?;
    // Readable as the records beside it are, not private as the cache's files.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(staged.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(|error| Error::write(&index, error))?;
    }
    writeln!(staged, "{text}")
        .and_then(|()| staged.seal_bytes(modified))
        .and_then(|()| staged.persist(&index))
        .map_err(|error| Error::write(&index, error))
}

/// One release folder, its record checked against it.
fn one(folder: &Path, number: u64) -> Result<Release, Error> {
    let record_path = folder.join(RECORD);
    let text =
        std::fs::read(&record_path).map_err(|error| refuse(&record_path, error.to_string()))?;
    let record = json::record(&text)
        .map_err(|error| refuse(&record_path, format!("not a release record: {error}")))?;
    if record.bindery_release != FORMAT {
        return Err(refuse(
            &record_path,
            format!(
                "record format {} (this bindery reads {FORMAT})",
                record.bindery_release
            ),
        ));
    }
    if record.release != number {
        return Err(refuse(
            &record_path,
            format!(
                "the record is of release {}, in folder {number}",
                record.release
            ),
        ));
    }
    let mut files = Vec::with_capacity(record.files.len());
    for file in record.files {
        files.push(kept_file(folder, &record_path, file)?);
    }
    let mut paths: Vec<&str> = files.iter().map(|file| file.path.as_str()).collect();
    paths.sort_unstable();
    if let Some(pair) = paths.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(refuse(
            &record_path,
            format!("`{}` is listed twice", pair[0]),
        ));
    }
    Ok(Release {
        number,
        folder: folder.to_owned(),
        files,
    })
}

/// One file of a record, checked: a clean catalog path, a regular file (no link) of the length
/// recorded, a SHA-256 of 64 hex digits.
fn kept_file(folder: &Path, record_path: &Path, file: RecordFile) -> Result<KeptFile, Error> {
    if bindery_core::key::normalise(&file.path) != Some(file.path.as_str())
        || file.path.starts_with('/')
        || file.path == RECORD
    {
        return Err(refuse(
            record_path,
            format!("`{}` is not a catalog path", file.path),
        ));
    }
    let sha256 = parse_sha256(&file.sha256)
        .ok_or_else(|| refuse(record_path, format!("`{}`: bad sha256", file.path)))?;
    let source = folder.join(&file.path);
    let mut walked = folder.to_owned();
    for segment in file.path.split('/') {
        walked.push(segment);
        let metadata = std::fs::symlink_metadata(&walked)
            .map_err(|error| refuse(&walked, format!("`{}`: {error}", file.path)))?;
        if metadata.file_type().is_symlink() {
            return Err(refuse(
                &walked,
                "a kept file is never reached through a link",
            ));
        }
        if walked == source && (!metadata.is_file() || metadata.len() != file.len) {
            return Err(refuse(
                &source,
                format!("{} bytes recorded, {} found", file.len, metadata.len()),
            ));
        }
    }
    Ok(KeptFile {
        path: file.path,
        source,
        len: file.len,
        sha256,
    })
}

fn parse_sha256(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (index, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(index * 2..index * 2 + 2)?, 16).ok()?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What [`save`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The release's number (the newest's when nothing changed).
    pub number: u64,
    /// Its folder.
    pub folder: PathBuf,
    /// How many files it holds.
    pub files: usize,
    /// Whether a new release was written (`false`: the newest already held the same files).
    pub wrote: bool,
    /// The releases removed because more than `keep` were there.
    pub removed: Vec<u64>,
}

/// The files of a build that a release keeps: those whose name carries their hash (a bundler's
/// hashed files, fingerprinted names), each with its catalog path and its source.
fn hashed_files(manifest: &Manifest) -> Vec<(String, &crate::Entry)> {
    let bundled = manifest
        .bundle
        .as_ref()
        .map_or(&[][..], |bundle| &bundle.hashed[..]);
    let mut files: Vec<(String, &crate::Entry)> = manifest
        .entries
        .iter()
        .filter(|entry| entry.kept.is_none())
        .filter_map(|entry| {
            if let Some(name) = &entry.fingerprinted {
                Some((name.clone(), entry))
            } else if bundled.binary_search(&entry.path).is_ok() && entry.mime != "text/html" {
                Some((entry.path.clone(), entry))
            } else {
                None
            }
        })
        .collect();
    files.sort_by(|left, right| left.0.cmp(&right.0));
    files
}

/// Saves the hashed files of the build `manifest` describes into `into` as its next release
/// (one more than the newest there), unless the newest holds the same files; then removes the
/// oldest releases beyond `keep`. Each file is copied from its source and hashed as it is
/// copied: one that no longer has the build's hash fails the save. The folder appears whole
/// or not at all (written beside, then renamed).
///
/// ```
/// use bindery_codegen::{Options, release};
/// let into = tempfile::tempdir().unwrap();
/// let manifest = Options::new("../../assets/fixtures").fingerprint(true).build().unwrap();
/// let saved = release::save(&manifest, into.path(), 3).unwrap();
/// assert_eq!((saved.number, saved.wrote), (1, true));
/// assert!(!release::save(&manifest, into.path(), 3).unwrap().wrote);
/// let kept = release::read(into.path(), 3).unwrap();
/// assert_eq!(kept[0].files.len(), manifest.entries.len());
/// ```
pub fn save(manifest: &Manifest, into: &Path, keep: u64) -> Result<Saved, Error> {
    compiled()?;
    let files = hashed_files(manifest);
    let sha256s = sha256s(&files)?;
    let existing = read(into, u64::MAX)?;
    let record = |number| Record {
        bindery_release: FORMAT,
        release: number,
        files: files
            .iter()
            .zip(&sha256s)
            .map(|((path, entry), sha256)| RecordFile {
                path: path.clone(),
                len: entry.len,
                sha256: hex(sha256),
            })
            .collect(),
    };
    if let Some(newest) = existing.first() {
        if is_same(newest, &files, &sha256s) {
            let removed = prune(&existing, keep)?;
            if !removed.is_empty() || !into.join(INDEX).is_file() {
                write_index(into, &kept_numbers(&existing, keep), None)?;
            }
            return Ok(Saved {
                number: newest.number,
                folder: newest.folder.clone(),
                files: files.len(),
                wrote: false,
                removed,
            });
        }
    }
    let number = existing.first().map_or(1, |newest| newest.number + 1);
    let folder = into.join(number.to_string());
    let staging = into.join(format!(".{number}.saving-{}", std::process::id()));
    let written = write_release(&staging, &files, &record(number));
    if let Err(error) = written.and_then(|()| {
        std::fs::rename(&staging, &folder).map_err(|error| Error::write(&folder, error))
    }) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(error);
    }
    let mut all = vec![Release {
        number,
        folder: folder.clone(),
        files: Vec::new(),
    }];
    all.extend(existing);
    let removed = prune(&all, keep)?;
    // Last: a build that runs now sees the new folder, and the next one is told of it.
    write_index(into, &kept_numbers(&all, keep), None)?;
    Ok(Saved {
        number,
        folder,
        files: files.len(),
        wrote: true,
        removed,
    })
}

/// The numbers of the newest `keep` of `all` (newest first): what is left after [`prune`].
fn kept_numbers(all: &[Release], keep: u64) -> Vec<u64> {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    all.iter()
        .take(keep)
        .map(|release| release.number)
        .collect()
}

/// An error unless the `releases` feature compiled the records' JSON.
fn compiled() -> Result<(), Error> {
    if cfg!(feature = "releases") {
        Ok(())
    } else {
        Err(Error::FeatureUnavailable {
            setting: "releases",
            feature: "releases",
        })
    }
}

/// Whether release `newest` holds these files, by path and SHA-256.
fn is_same(newest: &Release, files: &[(String, &crate::Entry)], sha256s: &[[u8; 32]]) -> bool {
    newest.files.len() == files.len()
        && newest
            .files
            .iter()
            .zip(files.iter().zip(sha256s))
            .all(|(kept, ((path, _), sha256))| kept.path == *path && kept.sha256 == *sha256)
}

/// The SHA-256 of each file, as the build recorded it or from its source.
fn sha256s(files: &[(String, &crate::Entry)]) -> Result<Vec<[u8; 32]>, Error> {
    files
        .iter()
        .map(|(_, entry)| entry.sha256.map_or_else(|| sha256_of(entry), Ok))
        .collect()
}

/// The SHA-256 of an entry's source, for a build that did not record it; a source that no
/// longer has the build's content hash fails (it changed since the build).
#[cfg(feature = "releases")]
fn sha256_of(entry: &crate::Entry) -> Result<[u8; 32], Error> {
    let bytes = std::fs::read(&entry.source).map_err(|error| Error::read(&entry.source, error))?;
    let digests = crate::describe::digests(&bytes, Some(crate::Integrity::Sha256));
    match digests.sha256 {
        Some(sha256) if digests.hash == entry.hash => Ok(sha256),
        _ => Err(Error::Changed {
            path: entry.source.clone(),
        }),
    }
}

#[cfg(not(feature = "releases"))]
fn sha256_of(_entry: &crate::Entry) -> Result<[u8; 32], Error> {
    Err(Error::FeatureUnavailable {
        setting: "releases",
        feature: "releases",
    })
}

/// Writes the files and the record into `staging`.
fn write_release(
    staging: &Path,
    files: &[(String, &crate::Entry)],
    record: &Record,
) -> Result<(), Error> {
    std::fs::create_dir_all(staging).map_err(|error| Error::write(staging, error))?;
    for (path, entry) in files {
        let target = staging.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| Error::write(parent, error))?;
        }
        copy_checked(entry, &target)?;
    }
    let text = json::record_text(record)
        .map_err(|error| Error::write(staging.join(RECORD), std::io::Error::other(error)))?;
    std::fs::write(staging.join(RECORD), text).map_err(|error| Error::write(staging, error))
}

/// Copies an entry's source to `target`, hashing as it goes; a source that no longer has the
/// build's hash fails (it changed since the build).
fn copy_checked(entry: &crate::Entry, target: &Path) -> Result<(), Error> {
    let mut source =
        std::fs::File::open(&entry.source).map_err(|error| Error::read(&entry.source, error))?;
    let mut out = std::fs::File::create_new(target).map_err(|error| Error::write(target, error))?;
    let mut hasher = crate::describe::Digester::new(None);
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let read = source
            .read(&mut buffer)
            .map_err(|error| Error::read(&entry.source, error))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        out.write_all(&buffer[..read])
            .map_err(|error| Error::write(target, error))?;
    }
    out.sync_all()
        .map_err(|error| Error::write(target, error))?;
    if hasher.finish().hash != entry.hash {
        return Err(Error::Changed {
            path: entry.source.clone(),
        });
    }
    Ok(())
}

/// Removes the releases of `all` (newest first) beyond the newest `keep`; their numbers.
fn prune(all: &[Release], keep: u64) -> Result<Vec<u64>, Error> {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    let mut removed = Vec::new();
    for release in all.iter().skip(keep) {
        std::fs::remove_dir_all(&release.folder)
            .map_err(|error| Error::write(&release.folder, error))?;
        removed.push(release.number);
    }
    Ok(removed)
}

/// The JSON of records and of the index (feature `releases`).
#[cfg(feature = "releases")]
mod json {
    use super::{FORMAT, Record};

    /// The index's text: the format and the releases kept.
    pub(super) fn index(numbers: &[u64]) -> Result<String, String> {
        Ok(serde_json::json!({ "bindery_releases": FORMAT, "releases": numbers }).to_string())
    }

    /// A record read back.
    pub(super) fn record(text: &[u8]) -> Result<Record, String> {
        serde_json::from_slice(text).map_err(|error| error.to_string())
    }

    /// A record as written.
    pub(super) fn record_text(record: &Record) -> Result<Vec<u8>, String> {
        serde_json::to_vec_pretty(record).map_err(|error| error.to_string())
    }
}

/// Without the `releases` feature nothing is read or written: [`super::save`] and the
/// build's validation refuse first.
#[cfg(not(feature = "releases"))]
mod json {
    use super::Record;

    const OFF: &str = "releases need the `releases` feature of bindery";

    pub(super) fn index(_: &[u64]) -> Result<String, String> {
        Err(OFF.to_owned())
    }

    pub(super) fn record(_: &[u8]) -> Result<Record, String> {
        Err(OFF.to_owned())
    }

    pub(super) fn record_text(_: &Record) -> Result<Vec<u8>, String> {
        Err(OFF.to_owned())
    }
}
