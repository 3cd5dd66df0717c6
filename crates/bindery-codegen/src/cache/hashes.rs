//! Content hashes remembered across builds, so a rebuild does not read and hash every embedded
//! file again: one small file per scanned folder in the cache, mapping each file's path and
//! identity (length, modification and change times, inode) to its digests (the content hash,
//! and SHA-256 and the integrity string when integrity is recorded: `-` when not).
//!
//! A file whose times are less than two seconds old when it is hashed is not remembered: a
//! second write within the file system's time granularity could leave its identity unchanged
//! (git's "racily clean" entries). Any read or write failure of the cache only costs a rehash.

use std::collections::HashMap;
use std::path::PathBuf;

use super::Cache;
use crate::describe::Digests;
use crate::identity::Identity;

/// The remembered hashes of one folder, and what this build learned.
#[derive(Debug)]
pub(crate) struct Hashes {
    file: PathBuf,
    known: HashMap<String, (Identity, Digests)>,
    seen: HashMap<String, (Identity, Digests)>,
    is_changed: bool,
}

const VERSION: &str = "bindery-hashes-v3";

impl Hashes {
    /// Loads the hashes remembered for one scan (`scan` names the folder and its filters, so
    /// two catalogs of one folder with different filters do not overwrite each other's) from
    /// the cache (none when there are none yet).
    pub(crate) fn load(cache: &Cache, scan: &str) -> Hashes {
        let key = crate::describe::hash(scan.as_bytes());
        let file = cache.root().join("hashes").join(format!("{key}.tsv"));
        let known = std::fs::read_to_string(&file)
            .ok()
            .filter(|text| text.lines().next() == Some(VERSION))
            .map(|text| text.lines().skip(1).filter_map(parse_line).collect())
            .unwrap_or_default();
        Hashes {
            file,
            known,
            seen: HashMap::new(),
            is_changed: false,
        }
    }

    /// The remembered digests of the file at `relative`, when its identity is unchanged and
    /// its integrity string is of the algorithm `integrity` (or absent, as asked).
    pub(crate) fn known(
        &mut self,
        relative: &str,
        identity: Option<Identity>,
        integrity: Option<crate::Integrity>,
    ) -> Option<Digests> {
        let identity = identity?;
        let (known, digests) = self.known.get(relative)?;
        let is_algorithm = match (integrity, &digests.integrity) {
            (Some(integrity), Some(text)) => text
                .strip_prefix(integrity.as_str())
                .is_some_and(|rest| rest.starts_with('-')),
            (None, None) => true,
            _ => false,
        };
        if *known != identity || !is_algorithm {
            return None;
        }
        let digests = digests.clone();
        self.seen
            .insert(relative.to_owned(), (identity, digests.clone()));
        Some(digests)
    }

    /// Remembers `hash` for the file at `relative`, read with this `identity` (unless the
    /// identity is racy, or differs from the length read).
    pub(crate) fn learn(
        &mut self,
        relative: &str,
        identity: Option<Identity>,
        len: u64,
        digests: &Digests,
    ) {
        self.is_changed = true;
        if let Some(identity) =
            identity.filter(|identity| identity.len == len && !identity.is_racy())
        {
            self.seen
                .insert(relative.to_owned(), (identity, digests.clone()));
        }
    }

    /// Writes what this build saw (temporary file and rename), when it differs from what was
    /// loaded; files no longer in the folder are forgotten.
    pub(crate) fn save(self) {
        if !self.is_changed && self.seen.len() == self.known.len() {
            return;
        }
        let mut lines: Vec<String> = self
            .seen
            .iter()
            .map(|(relative, (identity, digests))| {
                format!(
                    "{relative}\t{}\t{}\t{}\t{}",
                    identity.to_fields(),
                    digests.hash,
                    digests.sha256.as_ref().map_or_else(|| "-".to_owned(), hex),
                    digests.integrity.as_deref().unwrap_or("-")
                )
            })
            .collect();
        lines.sort_unstable();
        let Some(dir) = self.file.parent() else {
            return;
        };
        if super::location::create_private(dir).is_err() {
            return;
        }
        let text = format!("{VERSION}\n{}\n", lines.join("\n"));
        if let Some(name) = self.file.file_name().and_then(|name| name.to_str()) {
            let _ = super::staged::write_small(dir, name, text.as_bytes());
        }
    }
}

fn parse_line(line: &str) -> Option<(String, (Identity, Digests))> {
    let mut fields = line.split('\t');
    let relative = fields.next()?.to_owned();
    let identity = Identity::from_fields(&mut fields)?;
    let hash = fields.next()?;
    let is_hash =
        hash.len() == crate::HASH_LEN && hash.bytes().all(|byte| byte.is_ascii_hexdigit());
    let (sha256, integrity) = match (fields.next()?, fields.next()?) {
        ("-", "-") => (None, None),
        (sha256, integrity) => {
            let is_integrity = crate::Integrity::ALL.iter().any(|algorithm| {
                integrity.len() == algorithm.text_len() && integrity.starts_with(algorithm.as_str())
            });
            (
                Some(unhex(sha256)?),
                is_integrity.then(|| integrity.to_owned()),
            )
        }
    };
    let is_integrity = sha256.is_none() || integrity.is_some();
    (is_hash && is_integrity && fields.next().is_none()).then(|| {
        let digests = Digests {
            hash: hash.to_owned(),
            sha256,
            integrity,
        };
        (relative, (identity, digests))
    })
}

fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let mut bytes = [0; 32];
    if text.len() != 64 {
        return None;
    }
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(index * 2..index * 2 + 2)?, 16).ok()?;
    }
    Some(bytes)
}
