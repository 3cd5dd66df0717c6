//! Content hashes remembered across builds, so a rebuild does not read and hash every embedded
//! file again: one small file per scanned folder in the cache, mapping each file's path and
//! identity (length, modification and change times, inode) to its BLAKE3 hash.
//!
//! A file whose times are less than two seconds old when it is hashed is not remembered: a
//! second write within the file system's time granularity could leave its identity unchanged
//! (git's "racily clean" entries). Any read or write failure of the cache only costs a rehash.

use std::collections::HashMap;
use std::path::PathBuf;

use super::Cache;
use crate::identity::Identity;

/// The remembered hashes of one folder, and what this build learned.
#[derive(Debug)]
pub(crate) struct Hashes {
    file: PathBuf,
    known: HashMap<String, (Identity, String)>,
    seen: HashMap<String, (Identity, String)>,
    is_changed: bool,
}

const VERSION: &str = "bindery-hashes-v1";

impl Hashes {
    /// Loads the hashes remembered for one scan (`scan` names the folder and its filters, so
    /// two catalogs of one folder with different filters do not overwrite each other's) from
    /// the cache (none when there are none yet).
    pub(crate) fn load(cache: &Cache, scan: &str) -> Hashes {
        let key = blake3::hash(scan.as_bytes()).to_hex();
        let file = cache
            .root()
            .join("hashes")
            .join(format!("{}.tsv", &key[..32]));
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

    /// The remembered hash of the file at `relative`, when its identity is unchanged.
    pub(crate) fn known(&mut self, relative: &str, identity: Option<Identity>) -> Option<String> {
        let identity = identity?;
        let (known, hash) = self.known.get(relative)?;
        if *known != identity {
            return None;
        }
        let hash = hash.clone();
        self.seen
            .insert(relative.to_owned(), (identity, hash.clone()));
        Some(hash)
    }

    /// Remembers `hash` for the file at `relative`, read with this `identity` (unless the
    /// identity is racy, or differs from the length read).
    pub(crate) fn learn(
        &mut self,
        relative: &str,
        identity: Option<Identity>,
        len: u64,
        hash: &str,
    ) {
        self.is_changed = true;
        if let Some(identity) =
            identity.filter(|identity| identity.len == len && !identity.is_racy())
        {
            self.seen
                .insert(relative.to_owned(), (identity, hash.to_owned()));
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
            .map(|(relative, (identity, hash))| {
                format!("{relative}\t{}\t{hash}", identity.to_fields())
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

fn parse_line(line: &str) -> Option<(String, (Identity, String))> {
    let mut fields = line.split('\t');
    let relative = fields.next()?.to_owned();
    let identity = Identity::from_fields(&mut fields)?;
    let hash = fields.next()?;
    let is_hash = hash.len() == 64 && hash.bytes().all(|byte| byte.is_ascii_hexdigit());
    (is_hash && fields.next().is_none()).then(|| (relative, (identity, hash.to_owned())))
}
