//! The pack stage: the small plain files' bytes end to end in one cached blob
//! (`packs/<catalog key>-<contents hash>.pack`), reused while no file changed.

use std::io::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::facts::Facts;
use super::read::Contents;
use super::store;
use crate::cache::Cache;
use crate::identity::Identity;
use crate::pack::Pack;
use crate::{Entry, Error};

const FOLDER: &str = "packs";

/// One file the build described: its entry, what `stat` said before it was read, and its bytes
/// when this build read them.
pub(crate) struct Described {
    pub(crate) entry: Entry,
    pub(crate) identity: Option<Identity>,
    pub(crate) contents: Option<Contents>,
    pub(crate) is_packed: bool,
}

/// Packs the files marked for it, in order, when there are at least two; reuses the pack when
/// the cache has it sealed. A lone packable file gets a snapshot instead when `snapshots`. A new
/// pack replaces the older ones of its `group` (the same catalog, other contents), so edits do
/// not pile packs up in the cache; a crate whose pack was removed this way is rebuilt by cargo,
/// which sees an included file gone, and writes it again.
pub(crate) fn pack(
    cache: &Cache,
    files: &mut [Described],
    group: &str,
    snapshots: bool,
) -> Result<Option<Pack>, Error> {
    let members: Vec<usize> = (0..files.len())
        .filter(|&index| files[index].is_packed)
        .collect();
    if members.len() < 2 {
        for &index in &members {
            files[index].is_packed = false;
            if snapshots {
                give_snapshot(cache, &mut files[index])?;
            }
        }
        return Ok(None);
    }
    let group = crate::describe::hash(group.as_bytes());
    let group = &group[..16];
    if let Some(pack) = cached(cache, files, &members, group) {
        return Ok(Some(pack));
    }
    let mut staged = cache.stage(FOLDER)?;
    let mut newest = UNIX_EPOCH;
    for &index in &members {
        let file = &mut files[index];
        let bytes = match file.contents.take() {
            Some(Contents::Memory(bytes)) => bytes,
            // Not read yet in this build (its hash was remembered): its first read.
            _ => first_read(file)?,
        };
        staged
            .write_all(&bytes)
            .map_err(|error| Error::write(cache.root().join(FOLDER), error))?;
        if let Some(time) = file.identity.and_then(modification_time) {
            newest = newest.max(time);
        }
    }
    let name = pack_name(files, &members, group);
    // The pack holds exactly its files' contents, so it takes the newest of their times: written
    // while rustc runs, it would look newer than the build to cargo, which would compile the
    // crate once more on the next, no-op build.
    let kept = staged.commit(cache, &name, Some(newest))?;
    remove_older(cache, group, &name);
    Ok(Some(Pack {
        blob: kept.path,
        len: kept.len,
        offsets: offsets(files, &members),
    }))
}

/// The pack for these files' current hashes, when the cache holds it sealed.
fn cached(cache: &Cache, files: &[Described], members: &[usize], group: &str) -> Option<Pack> {
    let name = pack_name(files, members, group);
    let kept = cache.reuse(FOLDER, &name)?;
    let total: u64 = members.iter().map(|&index| files[index].entry.len).sum();
    (kept.len == total).then(|| Pack {
        blob: kept.path,
        len: kept.len,
        offsets: offsets(files, members),
    })
}

fn pack_name(files: &[Described], members: &[usize], group: &str) -> String {
    let mut hasher = crate::describe::Digester::new(None);
    for &index in members {
        let entry = &files[index].entry;
        hasher.update(entry.hash.as_bytes());
        hasher.update(&entry.len.to_le_bytes());
    }
    format!("{group}-{}.pack", hasher.finish().hash)
}

fn offsets(files: &[Described], members: &[usize]) -> Vec<Option<u64>> {
    let mut offsets = vec![None; files.len()];
    let mut total = 0;
    for &index in members {
        offsets[index] = Some(total);
        total += files[index].entry.len;
    }
    offsets
}

/// Reads a file whose hash the build remembered and did not read: the bytes must be what the
/// remembered hash says, or, if the file is unchanged since it was described, the remembered
/// hash was wrong and the entry takes the real one.
fn first_read(file: &mut Described) -> Result<Vec<u8>, Error> {
    let source = &file.entry.source;
    let bytes = std::fs::read(source).map_err(|error| Error::read(source, error))?;
    let integrity = file
        .entry
        .integrity
        .as_deref()
        .and_then(|text| text.split('-').next())
        .and_then(|name| name.parse().ok());
    let digests = crate::describe::digests(&bytes, integrity);
    if bytes.len() as u64 != file.entry.len || Identity::at(source) != file.identity {
        return Err(Error::Changed {
            path: source.clone(),
        });
    }
    if digests.hash != file.entry.hash {
        file.entry.etag = bindery_core::etag(&digests.hash, bindery_core::Tagged::File);
        file.entry.hash = digests.hash;
        file.entry.sha256 = digests.sha256;
        file.entry.integrity = digests.integrity;
    }
    Ok(bytes)
}

/// A packable file left alone gets the private copy a raw file outside the pack has.
fn give_snapshot(cache: &Cache, file: &mut Described) -> Result<(), Error> {
    let source_time = file.identity.and_then(modification_time);
    let mut contents = match file.contents.take() {
        Some(contents) => contents,
        None => Contents::Memory(first_read(file)?),
    };
    let facts = Facts {
        hash: &file.entry.hash,
        len: file.entry.len,
        source_time,
        source: &file.entry.source,
        siblings: &[],
    };
    file.entry.snapshot = store::snapshot(cache, facts, Some(&mut contents))?;
    Ok(())
}

/// The modification time an identity records.
pub(crate) fn modification_time(identity: Identity) -> Option<SystemTime> {
    let nanos = u64::try_from(identity.modified_ns).ok()?;
    UNIX_EPOCH.checked_add(Duration::from_nanos(nanos))
}

/// Removes the other packs of `group`.
fn remove_older(cache: &Cache, group: &str, current: &str) {
    let Ok(entries) = std::fs::read_dir(cache.root().join(FOLDER)) else {
        return;
    };
    let prefix = format!("{group}-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".pack") && name != current {
            cache.remove(FOLDER, &name);
        }
    }
}
