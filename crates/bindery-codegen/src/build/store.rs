//! How one file is stored: its gzip blob or its own bytes, its precompressed variants, and, for
//! the macro, the private copy the compiler reads. Each output is taken from the cache when it
//! holds it sealed, else made from the bytes of the file's one read.

use std::path::PathBuf;

use super::facts::Facts;
use super::read::{Contents, SNAPSHOTS};
use crate::cache::{Cache, Kept};
use crate::compress::{self, Encoder};
use crate::{Encoding, Error, Mode, Stored, Variant};

/// What every file of a build is stored as.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) mode: Mode,
    pub(crate) level: u32,
    /// Variant encodings, in [`Encoding::ALL`] order (gzip left out in gzip mode).
    pub(crate) encodings: Vec<Encoding>,
    /// Whether modification times are recorded.
    pub(crate) modified: bool,
    /// Whether small plain files go into the pack.
    pub(crate) pack: bool,
    /// Whether the other raw files get a private copy (see `Options::snapshots`).
    pub(crate) snapshots: bool,
    /// Files at least this long are large: never packed, read by streaming.
    pub(crate) large: u64,
    /// The algorithm of the integrity strings (recorded with SHA-256), if any.
    pub(crate) integrity: Option<crate::Integrity>,
    /// The precompressed siblings of each file, by relative path.
    pub(crate) siblings: super::siblings::Siblings,
}

impl Plan {
    /// The precompressed siblings of the file at `relative`.
    pub(crate) fn siblings_of(&self, relative: &str) -> &[(Encoding, PathBuf)] {
        self.siblings.get(relative).map_or(&[], Vec::as_slice)
    }

    /// Whether the bytes of a large file must be kept for something of this build.
    pub(crate) fn keeps_large(&self) -> bool {
        self.snapshots || self.mode == Mode::Gzip || !self.encodings.is_empty()
    }
}

/// Where a file's bytes are kept.
#[derive(Debug, Clone)]
pub(crate) struct Storage {
    pub(crate) stored: Stored,
    pub(crate) variants: Vec<Variant>,
    /// Whether its bytes belong in the pack.
    pub(crate) is_packed: bool,
    /// Its private copy, for a raw file outside the pack (when asked for).
    pub(crate) snapshot: Option<PathBuf>,
}

/// The file's storage, from the cache alone when `contents` is `None` (then `None` if anything
/// is missing there), else made from `contents` where the cache lacks it.
pub(crate) fn storage(
    cache: &Cache,
    plan: &Plan,
    facts: Facts<'_>,
    mut contents: Option<&mut Contents>,
) -> Result<Option<Storage>, Error> {
    let stored = match plan.mode {
        Mode::Gzip => match encoded(
            cache,
            Encoding::Gzip,
            plan.level,
            facts,
            contents.as_deref_mut(),
        )? {
            Some(Outcome::Blob(kept)) => Stored::Gzip {
                blob: kept.path,
                len: kept.len,
                etag: bindery_core::etag(facts.hash, bindery_core::Tagged::Encoded(Encoding::Gzip)),
            },
            Some(Outcome::NotWorthIt) => Stored::Raw,
            None => return Ok(None),
        },
        Mode::Static | Mode::Copy => Stored::Raw,
    };
    let mut variants = Vec::new();
    // Those asked for, and those a sibling gives (gzip in gzip mode is the stored form).
    let encodings = Encoding::ALL.into_iter().filter(|&encoding| {
        plan.encodings.contains(&encoding)
            || (facts.sibling(encoding).is_some()
                && !(plan.mode == Mode::Gzip && encoding == Encoding::Gzip))
    });
    for encoding in encodings {
        let level = compress::level_for(encoding, plan.level);
        match encoded(cache, encoding, level, facts, contents.as_deref_mut())? {
            Some(Outcome::Blob(kept)) => variants.push(Variant {
                encoding,
                blob: kept.path,
                len: kept.len,
                etag: bindery_core::etag(facts.hash, bindery_core::Tagged::Encoded(encoding)),
            }),
            Some(Outcome::NotWorthIt) => {}
            None => return Ok(None),
        }
    }
    let is_raw = stored == Stored::Raw;
    let is_packed =
        plan.pack && is_raw && variants.is_empty() && !plan.modified && facts.len < plan.large;
    let snapshot = if plan.snapshots && is_raw && !is_packed {
        match snapshot(cache, facts, contents)? {
            Some(path) => Some(path),
            None => return Ok(None),
        }
    } else {
        None
    };
    Ok(Some(Storage {
        stored,
        variants,
        is_packed,
        snapshot,
    }))
}

/// The result of compressing one file with one encoding.
enum Outcome {
    Blob(Kept),
    /// It saved less than [`compress::MIN_SAVING_PERCENT`]: no blob.
    NotWorthIt,
}

/// The `encoding` form of a file: its checked sibling when it has one, else compressed here.
fn encoded(
    cache: &Cache,
    encoding: Encoding,
    level: u32,
    facts: Facts<'_>,
    contents: Option<&mut Contents>,
) -> Result<Option<Outcome>, Error> {
    match facts.sibling(encoding) {
        Some(sibling) => Ok(Some(
            match super::siblings::blob(cache, encoding, facts, facts.source, sibling)? {
                Some(kept) => Outcome::Blob(kept),
                None => Outcome::NotWorthIt,
            },
        )),
        None => blob(cache, encoding, level, facts, contents),
    }
}

/// The `encoding` blob of a file: `<hash>-<level>.<extension>` in the encoding's folder, or an
/// empty `<hash>-<level>.raw` marker when compression is not worth it.
fn blob(
    cache: &Cache,
    encoding: Encoding,
    level: u32,
    facts: Facts<'_>,
    contents: Option<&mut Contents>,
) -> Result<Option<Outcome>, Error> {
    let folder = compress::cache_folder(encoding);
    let name = format!("{}-{level}.{}", facts.hash, encoding.extension());
    let marker = format!("{}-{level}.raw", facts.hash);
    if let Some(kept) = cache.reuse(&folder, &name) {
        return Ok(Some(Outcome::Blob(kept)));
    }
    if cache.is_marked(&folder, &marker) {
        return Ok(Some(Outcome::NotWorthIt));
    }
    let Some(contents) = contents else {
        return Ok(None);
    };
    let mut staged = cache.stage(&folder)?;
    let written = Encoder::new(encoding, level, facts.len, &mut staged).and_then(|mut encoder| {
        let is_kept = contents.copy_to(&mut encoder)?;
        encoder.finish()?;
        Ok(is_kept)
    });
    match written {
        Ok(true) => {}
        Ok(false) => return Ok(None),
        Err(error) => return Err(Error::write(cache.root().join(&folder), error)),
    }
    if !compress::is_worth_it(staged.len(), facts.len) {
        drop(staged);
        cache.mark(&folder, &marker)?;
        return Ok(Some(Outcome::NotWorthIt));
    }
    Ok(Some(Outcome::Blob(staged.commit(
        cache,
        &name,
        facts.source_time,
    )?)))
}

/// The private copy of a raw file, `raw/<hash>`: what the compiler reads instead of the source,
/// so that it reads the bytes that were hashed.
pub(crate) fn snapshot(
    cache: &Cache,
    facts: Facts<'_>,
    contents: Option<&mut Contents>,
) -> Result<Option<PathBuf>, Error> {
    if let Some(kept) = cache.reuse(SNAPSHOTS, facts.hash) {
        return Ok(Some(kept.path));
    }
    let Some(contents) = contents else {
        return Ok(None);
    };
    let kept = match std::mem::replace(contents, Contents::Hashed) {
        Contents::Staged(staged) => (*staged).commit(cache, facts.hash, facts.source_time)?,
        mut other => {
            let mut staged = cache.stage(SNAPSHOTS)?;
            let is_kept = other
                .copy_to(&mut staged)
                .map_err(|error| Error::write(cache.root().join(SNAPSHOTS), error))?;
            *contents = other;
            if !is_kept {
                return Ok(None);
            }
            staged.commit(cache, facts.hash, facts.source_time)?
        }
    };
    *contents = Contents::Kept(kept.path.clone());
    Ok(Some(kept.path))
}
