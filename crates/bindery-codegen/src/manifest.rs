//! The model both front doors emit from: every file with its hash, ETag, mime type and storage.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::compress::{self, Compressed};
use crate::describe;
use crate::hashes::Hashes;
use crate::scan::{self, Filter};
use crate::{Encoding, Error, Mode, Options, Progress};

/// Everything known about a folder at build time, in catalog order.
///
/// ```
/// let manifest = bindery_codegen::Options::new("../../assets/fixtures").build().unwrap();
/// let hello = manifest.entries.iter().find(|entry| entry.path == "hello.txt").unwrap();
/// assert_eq!(hello.len, 16);
/// assert_eq!(hello.mime, "text/plain");
/// assert_eq!(hello.content_type, "text/plain; charset=utf-8");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The mode the catalog is built in.
    pub mode: Mode,
    /// The folder that was scanned, as given.
    pub root: PathBuf,
    /// The normalised prefix put before every path (`""` or ending in `/`).
    pub prefix: String,
    /// The files, sorted by path.
    pub entries: Vec<Entry>,
    /// Stored size from which a file goes through the assembler (`None`: never).
    pub large_threshold: Option<u64>,
    /// The rules the folder was scanned with, which dev mode applies again at run time.
    pub rules: Rules,
    /// The small raw files' bytes in one blob, when [`Options::pack`](crate::Options::pack) asked.
    pub pack: Option<crate::pack::Pack>,
}

/// The rules that chose a manifest's files and what they record, kept so that bindery's dev mode
/// reads the folder with exactly the build's rules.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rules {
    /// Include globs (empty: every file).
    pub include: Vec<String>,
    /// Exclude globs; exclude wins.
    pub exclude: Vec<String>,
    /// Whether names starting with `.` are embedded.
    pub include_hidden: bool,
    /// Whether modification times are recorded.
    pub modified: bool,
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The catalog path: prefix plus the path relative to the folder.
    pub path: String,
    /// The file on disk.
    pub source: PathBuf,
    /// Uncompressed length in bytes.
    pub len: u64,
    /// BLAKE3 hash of the contents, in hex.
    pub hash: String,
    /// Strong ETag of the uncompressed contents, quoted.
    pub etag: String,
    /// Media type guessed from the name.
    pub mime: String,
    /// `Content-Type` value: the media type, with `; charset=utf-8` for text.
    pub content_type: String,
    /// Modification time in seconds since the Unix epoch, when asked for.
    pub modified: Option<u64>,
    /// How the bytes are stored.
    pub stored: Stored,
    /// Precompressed wire variants, in [`Encoding::ALL`] order; only those that save at least
    /// [`MIN_SAVING_PERCENT`](crate::MIN_SAVING_PERCENT). In `gzip` mode the stored gzip bytes
    /// are the gzip representation and are not repeated here.
    pub variants: Vec<Variant>,
}

/// A precompressed representation of an entry, sent as-is to clients that accept its encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its content coding.
    pub encoding: Encoding,
    /// The cached blob's path.
    pub blob: PathBuf,
    /// Its length in bytes.
    pub len: u64,
    /// Strong ETag of this representation: the entry's hash with the encoding's suffix.
    pub etag: String,
}

/// Whether an entry's bytes are stored as they are or as a gzip blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// The source file's bytes.
    Raw,
    /// A gzip blob in the cache.
    Gzip {
        /// The cached blob's path.
        blob: PathBuf,
        /// Its length in bytes.
        len: u64,
        /// Strong ETag of the gzip representation, distinct from the entry's ETag.
        etag: String,
    },
}

impl Entry {
    /// How many bytes the binary stores for this file: its length, or its gzip blob's.
    pub fn stored_len(&self) -> u64 {
        match &self.stored {
            Stored::Raw => self.len,
            Stored::Gzip { len, .. } => *len,
        }
    }

    /// Whether the file is stored as it is, with no variants and no modification time: the
    /// common file, which shares its description with the others of its media type.
    pub fn is_plain(&self) -> bool {
        self.stored == Stored::Raw && self.variants.is_empty() && self.modified.is_none()
    }

    /// The file holding the bytes the binary stores: the source, or the gzip blob.
    pub fn stored_path(&self) -> &Path {
        match &self.stored {
            Stored::Raw => &self.source,
            Stored::Gzip { blob, .. } => blob,
        }
    }
}

pub(crate) fn build(
    options: &Options,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Manifest, Error> {
    let prefix = options.normalised_prefix()?;
    if options.level > 9 {
        return Err(Error::Level {
            level: options.level,
        });
    }
    let encodings = variant_encodings(options)?;
    let filter = Filter::new(&options.include, &options.exclude, options.include_hidden)?;
    let mut manifest = Manifest {
        mode: options.mode,
        root: options.root.clone(),
        prefix,
        entries: Vec::new(),
        large_threshold: options.large_threshold,
        rules: Rules {
            include: options.include.clone(),
            exclude: options.exclude.clone(),
            include_hidden: options.include_hidden,
            modified: options.modified,
        },
        pack: None,
    };
    match std::fs::metadata(&options.root) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return if options.allow_missing {
                Ok(manifest)
            } else {
                Err(Error::MissingFolder {
                    path: options.root.clone(),
                })
            };
        }
        Err(error) => return Err(Error::read(&options.root, error)),
        Ok(metadata) if !metadata.is_dir() => {
            return Err(Error::NotAFolder {
                path: options.root.clone(),
            });
        }
        Ok(_) => {}
    }
    let cache_dir = match &options.cache_dir {
        Some(dir) => dir.clone(),
        None => crate::default_cache_dir(&options.root),
    };
    let found_files = scan::scan(&options.root, &filter)?;
    let total = found_files.len();
    let scan_key = format!(
        "{}\0{:?}\0{:?}\0{}",
        options.root.display(),
        options.include,
        options.exclude,
        options.include_hidden
    );
    let mut hashes = Hashes::load(&cache_dir, &scan_key);
    let mut media_types: std::collections::HashMap<String, (&'static str, String)> =
        std::collections::HashMap::new();
    for found in found_files {
        let metadata = std::fs::metadata(&found.source).ok();
        let (len, hash) = hashes.get_or_compute(&found.relative, metadata.as_ref(), || {
            hash_file(&found.source)
        })?;
        let stored = match options.mode {
            Mode::Gzip => match compress::compressed_cached(
                &found.source,
                &hash,
                len,
                Encoding::Gzip,
                options.level,
                &cache_dir,
            )? {
                Compressed::Blob { path, len } => Stored::Gzip {
                    blob: path,
                    len,
                    etag: variant_etag(&hash, Encoding::Gzip),
                },
                Compressed::NotWorthIt => Stored::Raw,
            },
            Mode::Static | Mode::Copy => Stored::Raw,
        };
        let mut variants = Vec::new();
        for &encoding in &encodings {
            let level = compress::level_for(encoding, options.level);
            let compressed = compress::compressed_cached(
                &found.source,
                &hash,
                len,
                encoding,
                level,
                &cache_dir,
            )?;
            if let Compressed::Blob { path, len } = compressed {
                variants.push(Variant {
                    encoding,
                    blob: path,
                    len,
                    etag: variant_etag(&hash, encoding),
                });
            }
        }
        let modified = if options.modified {
            modified_seconds(&found.source)?
        } else {
            None
        };
        let path = format!("{}{}", manifest.prefix, found.relative);
        // The media type depends on the extension only: described once per extension (a guess
        // is a table search, slow in the unoptimised builds proc macros get).
        let extension = Path::new(&found.relative)
            .extension()
            .map(|extension| extension.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (mime, content_type) = media_types
            .entry(extension)
            .or_insert_with(|| {
                let mime = describe::mime(&found.relative);
                (mime, describe::content_type(mime))
            })
            .clone();
        manifest.entries.push(Entry {
            content_type,
            mime: mime.to_owned(),
            etag: describe::etag(&hash),
            path,
            source: found.source,
            len,
            hash,
            modified,
            stored,
            variants,
        });
        if let Some(entry) = manifest.entries.last() {
            progress(Progress {
                done: manifest.entries.len(),
                total,
                path: &entry.path,
                len: entry.len,
            });
        }
    }
    hashes.save();
    if options.pack {
        let large = manifest.large_threshold;
        // The catalogs that would make this same pack from other files: the same folder,
        // filters and storage options. Their older packs are removed when a new one is written.
        let group = format!(
            "{scan_key}\0{:?}\0{large:?}\0{:?}",
            options.mode, options.precompress
        );
        manifest.pack = crate::pack::pack(
            &manifest.entries,
            |entry| entry.is_plain() && large.is_none_or(|threshold| entry.len < threshold),
            &cache_dir,
            &group,
        )?;
    }
    Ok(manifest)
}

/// The encodings to add as variants, in [`Encoding::ALL`] order: those asked for, less gzip in
/// gzip mode (the stored bytes are the gzip representation). Duplicates and encodings whose
/// feature is off are refused.
fn variant_encodings(options: &Options) -> Result<Vec<Encoding>, Error> {
    crate::check_precompress(&options.precompress)?;
    Ok(Encoding::ALL
        .into_iter()
        .filter(|encoding| options.precompress.contains(encoding))
        .filter(|&encoding| !(options.mode == Mode::Gzip && encoding == Encoding::Gzip))
        .collect())
}

/// The strong ETag of an encoded representation: distinct from the identity tag and from every
/// other encoding's, as RFC 9110 requires of two representations.
fn variant_etag(hash: &str, encoding: Encoding) -> String {
    format!("\"{}-{}\"", &hash[..32], encoding.extension())
}

/// Streams the file through BLAKE3: large assets are never held in memory whole.
fn hash_file(path: &Path) -> Result<(u64, String), Error> {
    let mut file = File::open(path).map_err(|error| Error::read(path, error))?;
    let mut hasher = blake3::Hasher::new();
    let mut buffer = vec![0; 256 * 1024];
    let mut len = 0u64;
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(Error::read(path, error)),
        };
        hasher.update(&buffer[..read]);
        len += read as u64;
    }
    Ok((len, hasher.finalize().to_hex().to_string()))
}

fn modified_seconds(path: &Path) -> Result<Option<u64>, Error> {
    let modified = std::fs::metadata(path)
        .and_then(|metadata| metadata.modified())
        .map_err(|error| Error::read(path, error))?;
    Ok(modified
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|since| since.as_secs()))
}
