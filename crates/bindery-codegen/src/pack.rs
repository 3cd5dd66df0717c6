//! One blob for a catalog's many small files: their bytes end to end, written once into the
//! cache and named by their hashes, so a rebuild that changed no file reads nothing.
//!
//! rustc pays for every `include_bytes!` in a catalog and for every reference an entry holds
//! (BENCHMARKS.md, "Build cost"); with a pack, the macro includes one file and each entry is a
//! name, two offsets and a reference to a `static` shared by the catalog.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::compress::temporary_path;
use crate::{Entry, Error};

/// Where a catalog's packed files are: the blob, and each packed entry's offset in it (by the
/// entry's index; `None` for files stored on their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    /// The blob in the cache.
    pub blob: PathBuf,
    /// Each entry's offset in the blob, if it is packed.
    pub offsets: Vec<Option<u64>>,
    /// Whether the generated code must name each packed file for cargo to notice its changes
    /// (with `include_bytes!` in a function never called). Not needed when a build script
    /// tracks the folder ([`track`](crate::track)), which also notices added files.
    pub name_each_file: bool,
}

/// Packs the entries `packable` selects, in order, when there are at least two; reuses the blob
/// when the cache has it already (same files, same contents). A new pack replaces the older
/// ones of its `group` (the same catalog, other contents), so edits do not pile packs up in the
/// cache; a crate whose pack was removed this way is rebuilt by cargo, which sees an included
/// file gone, and writes it again.
pub(crate) fn pack(
    entries: &[Entry],
    packable: impl Fn(&Entry) -> bool,
    cache_dir: &Path,
    group: &str,
) -> Result<Option<Pack>, Error> {
    let chosen: Vec<usize> = (0..entries.len())
        .filter(|&index| packable(&entries[index]))
        .collect();
    if chosen.len() < 2 {
        return Ok(None);
    }
    let mut hasher = blake3::Hasher::new();
    let mut offsets = vec![None; entries.len()];
    let mut total = 0u64;
    for &index in &chosen {
        let entry = &entries[index];
        hasher.update(entry.hash.as_bytes());
        hasher.update(&entry.len.to_le_bytes());
        offsets[index] = Some(total);
        total += entry.len;
    }
    let dir = cache_dir.join("packs");
    let group = blake3::hash(group.as_bytes()).to_hex();
    let group = &group[..16];
    let blob = dir.join(format!(
        "{group}-{}.pack",
        &hasher.finalize().to_hex()[..32]
    ));
    let is_cached = std::fs::metadata(&blob).is_ok_and(|metadata| metadata.len() == total);
    if !is_cached {
        std::fs::create_dir_all(&dir).map_err(|error| Error::write(&dir, error))?;
        let temporary = temporary_path(&dir, "pack");
        let written = write(&temporary, chosen.iter().map(|&index| &entries[index]));
        if let Err(error) = written {
            let _ = std::fs::remove_file(&temporary);
            return Err(error);
        }
        std::fs::rename(&temporary, &blob).map_err(|error| Error::write(&blob, error))?;
        remove_older(&dir, group, &blob);
    }
    Ok(Some(Pack {
        blob,
        offsets,
        name_each_file: true,
    }))
}

/// Removes the other packs of `group`; a pack that cannot be removed is only left behind.
fn remove_older(dir: &Path, group: &str, current: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{group}-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".pack") && entry.path() != current {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes the entries' bytes end to end, checking each length against the manifest's: a file
/// that changed since it was described would put every later file at the wrong offset.
fn write<'a>(path: &Path, entries: impl Iterator<Item = &'a Entry>) -> Result<(), Error> {
    let file = std::fs::File::create(path).map_err(|error| Error::write(path, error))?;
    let mut out = std::io::BufWriter::new(file);
    let mut newest = std::time::SystemTime::UNIX_EPOCH;
    for entry in entries {
        let bytes =
            std::fs::read(&entry.source).map_err(|error| Error::read(&entry.source, error))?;
        if bytes.len() as u64 != entry.len {
            return Err(Error::read(
                &entry.source,
                std::io::Error::other("the file changed while the catalog was built"),
            ));
        }
        if let Ok(modified) = std::fs::metadata(&entry.source).and_then(|meta| meta.modified()) {
            newest = newest.max(modified);
        }
        out.write_all(&bytes)
            .map_err(|error| Error::write(path, error))?;
    }
    let file = out
        .into_inner()
        .map_err(|error| Error::write(path, error.into_error()))?;
    // Written while rustc runs and included, the pack would look newer than the build to cargo,
    // which would compile the crate once more on the next, no-op build. It holds exactly its
    // files' contents, so it takes the newest of their times (as gzip blobs take their source's).
    file.set_modified(newest)
        .map_err(|error| Error::write(path, error))
}
