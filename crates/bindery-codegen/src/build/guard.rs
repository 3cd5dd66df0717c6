//! Checks on the folder as a whole: size limits before anything is read, fingerprinted names
//! that meet a file's name after every file is hashed.

use std::collections::HashSet;
use std::path::PathBuf;

use super::pack::Described;
use super::siblings::Siblings;
use crate::scan::Found;
use crate::{Error, Options};

/// How many offenders a size error names.
const OFFENDERS: usize = 5;

/// Refuses files larger than `max_file_size` and a catalog larger than `max_total_size` (all its
/// folders together; `scans` holds each folder's files), from `stat` alone: nothing is read or
/// hashed when a guard trips. Files are named as the catalog will (with their folder's prefix
/// when there are several folders).
pub(super) fn sizes(
    options: &Options,
    parts: &[&Options],
    scans: &[(Vec<Found>, Siblings)],
) -> Result<(), Error> {
    if options.max_file_size.is_none() && options.max_total_size.is_none() {
        return Ok(());
    }
    let mut sizes: Vec<(PathBuf, u64)> = Vec::new();
    for (part, (found, _)) in parts.iter().zip(scans) {
        let prefix = if parts.len() > 1 {
            part.normalised_prefix()?
        } else {
            String::new()
        };
        for file in found {
            let len = std::fs::metadata(&file.source)
                .map_err(|error| Error::read(&file.source, error))?
                .len();
            sizes.push((PathBuf::from(format!("{prefix}{}", file.relative)), len));
        }
    }
    largest_first(&mut sizes);
    if let Some(limit) = options.max_file_size {
        let count = sizes.iter().take_while(|(_, len)| *len > limit).count();
        if count > 0 {
            return Err(Error::FileTooLarge {
                limit,
                count,
                largest: sizes.into_iter().take(count.min(OFFENDERS)).collect(),
            });
        }
    }
    match options.max_total_size {
        Some(limit) => total(limit, sizes),
        None => Ok(()),
    }
}

/// Largest first; equal sizes by path, so a message naming them is the same on every machine.
fn largest_first(sizes: &mut [(PathBuf, u64)]) {
    sizes.sort_by(|left, right| right.1.cmp(&left.1).then_with(|| left.0.cmp(&right.0)));
}

/// Refuses files (each named with its length) that together are larger than `limit`
/// (`max_total_size`), naming the largest.
pub(super) fn total(limit: u64, mut sizes: Vec<(PathBuf, u64)>) -> Result<(), Error> {
    let total = sizes
        .iter()
        .map(|(_, len)| *len)
        .fold(0u64, u64::saturating_add);
    if total <= limit {
        return Ok(());
    }
    largest_first(&mut sizes);
    sizes.truncate(OFFENDERS);
    Err(Error::TotalTooLarge {
        limit,
        total,
        largest: sizes,
    })
}

/// Gives every file its fingerprinted name, except those the bundler already hashed (`hashed`,
/// sorted: they keep their own name), refusing one that is also the plain name of a file (two
/// URLs for one path would serve different bytes).
pub(super) fn fingerprints(files: &mut [Described], hashed: &[String]) -> Result<(), Error> {
    let plain: HashSet<&str> = files.iter().map(|file| file.entry.path.as_str()).collect();
    let mut names = Vec::with_capacity(files.len());
    for file in files.iter() {
        if hashed.binary_search(&file.entry.path).is_ok() {
            names.push(None);
            continue;
        }
        let name = bindery_core::key::fingerprinted(&file.entry.path, &file.entry.hash);
        if plain.contains(name.as_str()) {
            return Err(Error::FingerprintCollision {
                file: file.entry.path.clone(),
                fingerprinted: name,
            });
        }
        names.push(Some(name));
    }
    for (file, name) in files.iter_mut().zip(names) {
        file.entry.fingerprinted = name;
    }
    Ok(())
}
