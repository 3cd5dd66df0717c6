//! Content hashes remembered across builds, so a rebuild does not read and hash every embedded
//! file again: one small file per scanned folder in the blob cache, mapping each file's path and
//! identity (length, modification and change times, inode) to its BLAKE3 hash.
//!
//! A file whose times are less than two seconds old when it is hashed is not remembered: a
//! second write within the file system's time granularity could leave its identity unchanged
//! (git's "racily clean" entries). Any read or write failure of the cache only costs a rehash.

use std::collections::HashMap;
use std::fs::Metadata;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    len: u64,
    modified_ns: u128,
    changed_ns: i128,
    inode: u64,
}

impl Identity {
    fn of(metadata: &Metadata) -> Option<Identity> {
        let modified_ns = metadata
            .modified()
            .ok()?
            .duration_since(UNIX_EPOCH)
            .ok()?
            .as_nanos();
        #[cfg(unix)]
        let (changed_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
                metadata.ino(),
            )
        };
        #[cfg(not(unix))]
        let (changed_ns, inode) = (0, 0);
        Some(Identity {
            len: metadata.len(),
            modified_ns,
            changed_ns,
            inode,
        })
    }

    /// Whether the file changed recently enough that a same-size write could hide in the
    /// timestamps' granularity.
    fn is_racy(&self) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_nanos();
        let newest = self
            .modified_ns
            .max(u128::try_from(self.changed_ns).unwrap_or(0));
        now.saturating_sub(newest) < Duration::from_secs(2).as_nanos()
    }
}

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
    /// `cache_dir` (none when there are none yet).
    pub(crate) fn load(cache_dir: &Path, scan: &str) -> Hashes {
        let key = blake3::hash(scan.as_bytes()).to_hex();
        let file = cache_dir.join("hashes").join(format!("{}.tsv", &key[..32]));
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

    /// The file's length and hash: remembered when its identity is unchanged, else `compute`d.
    pub(crate) fn get_or_compute<E>(
        &mut self,
        relative: &str,
        metadata: Option<&Metadata>,
        compute: impl FnOnce() -> Result<(u64, String), E>,
    ) -> Result<(u64, String), E> {
        let identity = metadata.and_then(Identity::of);
        if let Some(identity) = identity
            && let Some((known, hash)) = self.known.get(relative)
            && *known == identity
        {
            self.seen
                .insert(relative.to_owned(), (identity, hash.clone()));
            return Ok((identity.len, hash.clone()));
        }
        let (len, hash) = compute()?;
        self.is_changed = true;
        if let Some(identity) =
            identity.filter(|identity| identity.len == len && !identity.is_racy())
        {
            self.seen
                .insert(relative.to_owned(), (identity, hash.clone()));
        }
        Ok((len, hash))
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
                format!(
                    "{relative}\t{}\t{}\t{}\t{}\t{hash}",
                    identity.len, identity.modified_ns, identity.changed_ns, identity.inode
                )
            })
            .collect();
        lines.sort_unstable();
        let Some(dir) = self.file.parent() else {
            return;
        };
        let _ = std::fs::create_dir_all(dir);
        let staged = crate::compress::temporary_path(dir, "hashes");
        let text = format!("{VERSION}\n{}\n", lines.join("\n"));
        let written = std::fs::File::create(&staged)
            .and_then(|mut file| file.write_all(text.as_bytes()))
            .and_then(|()| std::fs::rename(&staged, &self.file));
        if written.is_err() {
            let _ = std::fs::remove_file(&staged);
        }
    }
}

fn parse_line(line: &str) -> Option<(String, (Identity, String))> {
    let mut fields = line.split('\t');
    let relative = fields.next()?.to_owned();
    let identity = Identity {
        len: fields.next()?.parse().ok()?,
        modified_ns: fields.next()?.parse().ok()?,
        changed_ns: fields.next()?.parse().ok()?,
        inode: fields.next()?.parse().ok()?,
    };
    let hash = fields.next()?;
    let is_hash = hash.len() == 64 && hash.bytes().all(|byte| byte.is_ascii_hexdigit());
    (is_hash && fields.next().is_none()).then(|| (relative, (identity, hash.to_owned())))
}
