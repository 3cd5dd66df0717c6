//! The releases kept beside this build (`releases`): their files read and stored like the
//! folder's, each checked against its record, merged into the catalog; then, with
//! `dictionaries`, each hashed file's dictionary pattern and its deltas against its earlier
//! versions.

use std::collections::HashMap;
use std::path::PathBuf;

use super::pack::Described;
use super::siblings::Siblings;
use crate::cache::Cache;
use crate::release::{self, Release};
use crate::scan::Found;
use crate::{Delta, Dictionary, Error, Manifest, Options};

/// Adds the kept releases' files to `files` (sorted again) and records their records in
/// `manifest`; a file that is not what its record says, or a kept path that this build holds
/// with other bytes, fails the build.
pub(super) fn merge(
    options: &Options,
    cache: &Cache,
    files: &mut Vec<Described>,
    manifest: &mut Manifest,
) -> Result<(), Error> {
    let Some(folder) = &options.releases else {
        return Ok(());
    };
    let dir = match &options.crate_dir {
        Some(crate_dir) => crate_dir.join(folder),
        None => folder.clone(),
    };
    // Named to cargo whatever else the crate depends on: the next release saved rebuilds.
    if let Some(index) = release::index(&dir) {
        manifest.release_records.push(index);
    }
    let releases = release::read(&dir, options.keep_releases)?;
    guard_size(options, files, &releases)?;
    // SHA-256 is recorded: a build with `releases` is refused under `integrity = false`.
    let mut taken: HashMap<String, Option<[u8; 32]>> = HashMap::new();
    for file in files.iter() {
        taken.insert(file.entry.path.clone(), file.entry.sha256);
        if let Some(name) = &file.entry.fingerprinted {
            taken.insert(name.clone(), file.entry.sha256);
        }
    }
    let mut added = Vec::new();
    for kept in &releases {
        for file in described(options, cache, kept)? {
            match taken.get(&file.entry.path) {
                Some(sha256) if *sha256 == file.entry.sha256 => {}
                Some(_) => {
                    return Err(Error::Release {
                        path: kept.folder.clone(),
                        reason: format!(
                            "`{}` is also a file of this build, with other bytes: a kept file's \
                             name must carry its hash",
                            file.entry.path
                        ),
                    });
                }
                None => {
                    taken.insert(file.entry.path.clone(), file.entry.sha256);
                    added.push(file);
                }
            }
        }
        manifest
            .release_records
            .push(kept.folder.join(release::RECORD));
    }
    files.extend(added);
    files.sort_by(|left, right| left.entry.path.cmp(&right.entry.path));
    Ok(())
}

/// One release's files, read, hashed and stored as this build stores its own, each checked
/// against the record.
fn described(options: &Options, cache: &Cache, kept: &Release) -> Result<Vec<Described>, Error> {
    let found: Vec<Found> = kept
        .files
        .iter()
        .map(|file| Found {
            relative: file.path.clone(),
            source: file.source.clone(),
        })
        .collect();
    let scan_key = format!("release\0{}", kept.folder.display());
    let mut files = super::describe_all(
        options,
        cache,
        &scan_key,
        "",
        (found, Siblings::new()),
        &mut |_| {},
    )?;
    for (file, recorded) in files.iter_mut().zip(&kept.files) {
        if file.entry.sha256 != Some(recorded.sha256) || file.entry.len != recorded.len {
            return Err(Error::Release {
                path: kept.folder.clone(),
                reason: format!(
                    "`{}` is not the file its record names (its SHA-256 or length differs)",
                    recorded.path
                ),
            });
        }
        file.entry.kept = Some(kept.number);
    }
    Ok(files)
}

/// `max_total_size` holds for the kept files too.
fn guard_size(options: &Options, files: &[Described], releases: &[Release]) -> Result<(), Error> {
    let Some(limit) = options.max_total_size else {
        return Ok(());
    };
    let sizes: Vec<(PathBuf, u64)> = files
        .iter()
        .map(|file| (PathBuf::from(&file.entry.path), file.entry.len))
        .chain(releases.iter().flat_map(|kept| {
            kept.files
                .iter()
                .map(|file| (file.source.clone(), file.len))
        }))
        .collect();
    super::guard::total(limit, sizes)
}

/// The URL path of a file whose name carries its hash and whose kind compresses (text, scripts,
/// styles, JSON, SVG, WebAssembly), or `None`: its fingerprinted name, a bundler's hashed file,
/// a kept file. HTML is never a dictionary (it is not hashed); an image or a font gains nothing.
fn hashed_url<'a>(file: &'a Described, bundled: &[String]) -> Option<&'a str> {
    let entry = &file.entry;
    if entry.mime == "text/html" || !is_compressible(&entry.mime) {
        return None;
    }
    if let Some(name) = &entry.fingerprinted {
        return Some(name);
    }
    (entry.kept.is_some() || bundled.binary_search(&entry.path).is_ok()).then_some(&entry.path)
}

/// Whether a delta of this media type can be much smaller than its other encodings.
fn is_compressible(mime: &str) -> bool {
    mime.starts_with("text/")
        || matches!(
            mime,
            "application/javascript"
                | "application/json"
                | "application/manifest+json"
                | "application/wasm"
                | "application/xml"
                | "image/svg+xml"
        )
}

/// The request destination a dictionary of this media type is for.
fn destination(mime: &str) -> Option<&'static str> {
    match mime {
        "text/javascript" | "application/javascript" => Some("script"),
        "text/css" => Some("style"),
        _ => None,
    }
}

/// With `dictionaries`: each hashed file's pattern, and for each of this build's its deltas
/// against the kept files of the same pattern (smaller than its smallest other encoding).
pub(super) fn dictionaries(
    options: &Options,
    cache: &Cache,
    files: &mut [Described],
    manifest: &Manifest,
) -> Result<(), Error> {
    if !options.dictionaries {
        return Ok(());
    }
    let bundled = manifest
        .bundle
        .as_ref()
        .map_or(&[][..], |bundle| &bundle.hashed[..]);
    let patterns: Vec<Option<String>> = files
        .iter()
        .map(|file| hashed_url(file, bundled).and_then(bindery_core::key::hash_pattern))
        .collect();
    let mut deltas: Vec<Vec<Delta>> = vec![Vec::new(); files.len()];
    for (index, file) in files.iter().enumerate() {
        let Some(pattern) = &patterns[index] else {
            continue;
        };
        if file.entry.kept.is_some() {
            continue;
        }
        let smallest = file
            .entry
            .variants
            .iter()
            .map(|variant| variant.len)
            .chain([file.entry.stored_len()])
            .min()
            .unwrap_or(u64::MAX);
        for (other, old) in files.iter().enumerate() {
            // SHA-256 is recorded: `dictionaries` is refused under `integrity = false`.
            let Some(dictionary) = old.entry.sha256 else {
                continue;
            };
            let is_earlier = old.entry.kept.is_some()
                && patterns[other].as_ref() == Some(pattern)
                && old.entry.sha256 != file.entry.sha256
                && !deltas[index]
                    .iter()
                    .any(|delta| delta.dictionary == dictionary);
            if !is_earlier {
                continue;
            }
            let Some(blob) = crate::delta::dcz(cache, &file.entry, &old.entry)? else {
                continue;
            };
            if blob.len < smallest {
                deltas[index].push(Delta {
                    dictionary,
                    dictionary_path: old.entry.path.clone(),
                    etag: bindery_core::etag(
                        &file.entry.hash,
                        bindery_core::Tagged::Delta {
                            dictionary: &old.entry.hash,
                        },
                    ),
                    blob: blob.path,
                    len: blob.len,
                });
            }
        }
    }
    for ((file, pattern), mut deltas) in files.iter_mut().zip(patterns).zip(deltas) {
        if let Some(pattern) = pattern {
            deltas.sort_by_key(|delta| delta.len);
            file.entry.dictionary = Some(Dictionary {
                pattern,
                destination: destination(&file.entry.mime),
                deltas,
            });
        }
    }
    Ok(())
}
