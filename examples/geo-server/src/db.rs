//! The GeoIP database in one of three modes, behind an atomic pointer so the mmap mode can swap
//! in a new file while lookups in flight finish on the old one.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwap;
use maxminddb::{MaxMindDbError, Mmap, Reader};

use crate::alloc::heap_in_use;
use crate::answer::{self, Tails};
use crate::answer_cache::{self, AnswerCache, AnswerCacheStats};
use crate::language::Language;
use crate::private_copy::{self, CopyError, FileIdentity, PrivateCopy};
use crate::tree_jump::Tree;

/// Where the reader's bytes live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DbMode {
    /// The `&'static [u8]` embedded in the binary: no copy, pages shared and reclaimable.
    Embed,
    /// A heap copy (of the embedded bytes, or of `--geodb` read whole): Go's `ReadFile` mistake,
    /// kept to show its cost.
    Copy,
    /// A memory map of `--geodb`: no copy; can be reloaded without a restart.
    Mmap,
}

impl DbMode {
    /// The mode's name as the CLI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            DbMode::Embed => "embed",
            DbMode::Copy => "copy",
            DbMode::Mmap => "mmap",
        }
    }
}

/// What was loaded and what it cost.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DbInfo {
    /// The mode.
    pub mode: DbMode,
    /// Where the bytes came from: the embedded database's origin, or a file path.
    pub origin: String,
    /// `database_type` from the metadata.
    pub database_type: String,
    /// `build_epoch` from the metadata, in seconds since the Unix epoch.
    pub build_epoch: u64,
    /// Size of the database in bytes.
    pub size: usize,
    /// Time to create the reader (including the copy in `copy` mode).
    pub load_time: Duration,
    /// Heap bytes the reader retains (the whole database in `copy` mode; a few hundred otherwise).
    pub reader_heap_bytes: usize,
    /// Heap bytes of the search tree's jump tables
    /// ([`TreeJump`](crate::tree_jump::TreeJump)), made at load beside the reader; 0 when the
    /// tree is of a shape they do not cover.
    pub jump_table_bytes: usize,
    /// The database's identity for HTTP validators: its build epoch and the first 64 bits of
    /// the BLAKE3 hash of its bytes, e.g. `5b3b2c20-9f86d081884c7d65`. Any change of the
    /// database changes it, so every `/geo` ETag changes with it.
    pub identity: String,
    /// What the mmap mode maps: a private copy (`tmpfile`, `memfd`) or the file (`off`);
    /// `None` in the other modes.
    pub private_copy: Option<PrivateCopy>,
    /// The `stat` identity of the file loaded (of the descriptor that was read), for the
    /// watcher to tell whether the path now holds another file.
    #[serde(skip)]
    pub file: Option<FileIdentity>,
}

/// What `/geo/<ip>` answers are validated against: the database's identity and build date.
/// Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct Validators {
    /// [`DbInfo::identity`].
    pub identity: Arc<str>,
    /// The database's build time (`build_epoch`), the answers' `Last-Modified`.
    pub built: SystemTime,
    /// `built` as an HTTP date, formatted once per load.
    pub last_modified: http::HeaderValue,
}

/// Why a database could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The file could not be opened, read or mapped.
    #[error("cannot read database {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The path names a directory, a FIFO, a device: nothing a database is read from.
    #[error("database {} is not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file is empty.
    #[error("database {} is empty", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The bytes are not a MaxMind DB, or fail verification (truncated, corrupt).
    #[error("{origin} is not a valid MaxMind DB: {source}")]
    Invalid {
        /// Where the bytes came from.
        origin: String,
        /// What the reader found.
        source: MaxMindDbError,
    },
    /// A MaxMind DB of another kind (ASN, Country...).
    #[error("{origin} is a {database_type} database; a City database is needed")]
    WrongType {
        /// Where the bytes came from.
        origin: String,
        /// Its `database_type`.
        database_type: String,
    },
    /// The private copy of the file could not be made, or the file changed while it was made.
    #[error("cannot copy database {}: {source}", path.display())]
    Copy {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: CopyError,
    },
    /// Only a memory-mapped file can be reloaded.
    #[error("only the mmap mode reloads its database")]
    NotReloadable,
}

/// Bytes shared by a reader and the jump table into its tree.
#[derive(Debug)]
struct Shared<T>(Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Shared<T> {
    fn as_ref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

enum AnyReader {
    Embedded(Tree<&'static [u8]>),
    Copied(Tree<Shared<Vec<u8>>>),
    Mapped(Tree<Shared<Mmap>>),
}

struct Loaded {
    reader: AnyReader,
    info: DbInfo,
    validators: Validators,
    /// Tells this load apart from every other in the process, for the answer cache's keys.
    generation: u64,
}

/// The next load's generation.
static GENERATIONS: AtomicU64 = AtomicU64::new(0);

impl Loaded {
    fn new(reader: AnyReader, info: DbInfo) -> Self {
        let built = UNIX_EPOCH + Duration::from_secs(info.build_epoch);
        let validators = Validators {
            identity: Arc::from(info.identity.as_str()),
            built,
            last_modified: http::HeaderValue::from_str(&httpdate::fmt_http_date(built)).unwrap_or(
                http::HeaderValue::from_static("Thu, 01 Jan 1970 00:00:00 GMT"),
            ),
        };
        Loaded {
            reader,
            info,
            validators,
            generation: GENERATIONS.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// One loaded database, held for the length of a request: its answers and its validators always
/// belong together, even when the mmap mode swaps in a new file meanwhile.
pub struct Snapshot<'a> {
    loaded: arc_swap::Guard<Arc<Loaded>>,
    answers: &'a AnswerCache,
}

impl Snapshot<'_> {
    /// The validators of this database.
    pub fn validators(&self) -> &Validators {
        &self.loaded.validators
    }

    /// Looks `ip` up and renders the answer as JSON, or `None` when the database has no data
    /// for it.
    pub fn lookup(
        &self,
        ip: IpAddr,
        language: Language,
    ) -> Result<Option<Vec<u8>>, MaxMindDbError> {
        let tails = Tails {
            cache: self.answers,
            generation: self.loaded.generation,
            looked_up: false,
        };
        match &self.loaded.reader {
            AnyReader::Embedded(tree) => answer::render(tree, ip, language, tails),
            AnyReader::Copied(tree) => answer::render(tree, ip, language, tails),
            AnyReader::Mapped(tree) => answer::render(tree, ip, language, tails),
        }
    }
}

/// The database the server answers from.
///
/// ```
/// use geo_server::language::Language;
/// let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").unwrap();
/// let json = db.lookup("81.2.69.160".parse().unwrap(), Language::English).unwrap().unwrap();
/// assert!(String::from_utf8(json).unwrap().contains("\"London\""));
/// ```
pub struct GeoDb {
    current: ArcSwap<Loaded>,
    path: Option<PathBuf>,
    copy: PrivateCopy,
    answers: AnswerCache,
}

impl std::fmt::Debug for GeoDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeoDb").field("info", &self.info()).finish()
    }
}

impl GeoDb {
    /// Reads the embedded bytes in place. They were verified when the binary was built. Their
    /// identity is hashed here, which reads every page: a binary that embeds its database
    /// passes the hash made at build time to [`embedded_with_hash`](Self::embedded_with_hash).
    pub fn embedded(bytes: &'static [u8], origin: &str) -> Result<Self, DbError> {
        Self::embedded_with_hash(bytes, origin, blake3::hash(bytes).to_hex().as_str())
    }

    /// Like [`embedded`](Self::embedded), with the bytes' BLAKE3 hash (hex) known already
    /// (`geodb::DATABASE_BLAKE3`), so start-up touches no page the lookups do not need.
    ///
    /// ```
    /// let db = geo_server::db::GeoDb::embedded_with_hash(geodb::SAMPLE, "sample", geodb::SAMPLE_BLAKE3).unwrap();
    /// assert!(db.info().identity.ends_with(&geodb::SAMPLE_BLAKE3[..16]));
    /// ```
    pub fn embedded_with_hash(
        bytes: &'static [u8],
        origin: &str,
        blake3_hex: &str,
    ) -> Result<Self, DbError> {
        let (tree, mut info) = measure(DbMode::Embed, origin, bytes.len(), || Ok(bytes))?;
        info.identity = identity(info.build_epoch, blake3_hex);
        Ok(Self::new(AnyReader::Embedded(tree), info, None))
    }

    /// Copies the embedded bytes to the heap first, as Go's `embed.FS.ReadFile` would.
    pub fn copied(bytes: &[u8], origin: &str) -> Result<Self, DbError> {
        Self::copied_with_hash(bytes, origin, blake3::hash(bytes).to_hex().as_str())
    }

    /// Like [`copied`](Self::copied), with the bytes' BLAKE3 hash (hex) known already.
    pub fn copied_with_hash(bytes: &[u8], origin: &str, blake3_hex: &str) -> Result<Self, DbError> {
        let (tree, mut info) = measure(DbMode::Copy, origin, bytes.len(), || {
            Ok(Shared(Arc::new(bytes.to_vec())))
        })?;
        info.identity = identity(info.build_epoch, blake3_hex);
        Ok(Self::new(AnyReader::Copied(tree), info, None))
    }

    /// Reads a whole file to the heap and verifies it; the identity is the hash of the bytes read.
    pub fn copied_from_file(path: &Path) -> Result<Self, DbError> {
        let origin = path.display().to_string();
        let size = std::fs::metadata(path).map_or(0, |metadata| metadata.len() as usize);
        let mut hash = None;
        let mut empty = false;
        let (tree, mut info) = measure(DbMode::Copy, &origin, size, || {
            let mut bytes = Vec::new();
            let mut file = open_regular(path).map_err(|error| match error {
                DbError::Open { source, .. } => MaxMindDbError::Io(source),
                other => MaxMindDbError::Io(std::io::Error::other(other)),
            })?;
            std::io::Read::read_to_end(&mut file, &mut bytes)?;
            empty = bytes.is_empty();
            hash = Some(blake3::hash(&bytes));
            Ok(Shared(Arc::new(bytes)))
        })
        .map_err(|error| match empty {
            true => DbError::Empty {
                path: path.to_path_buf(),
            },
            false => error,
        })?;
        verify(&tree.reader, &origin)?;
        let hash = hash.map(|hash| hash.to_hex()).unwrap_or_default();
        info.identity = identity(info.build_epoch, hash.as_str());
        Ok(Self::new(AnyReader::Copied(tree), info, None))
    }

    /// Maps the file itself and verifies it; [`reload`](Self::reload) maps it again later.
    /// [`mapped_copy`](Self::mapped_copy) is the safe form, and what geo-server uses unless
    /// told `--geodb-copy off`.
    ///
    /// # Safety
    ///
    /// For as long as this `GeoDb` lives, the file at `path` must never be truncated or written
    /// in place, by this process or any other: a replacement is written elsewhere and renamed
    /// over `path` (an atomic swap of the directory entry; the old map keeps the old inode).
    /// Otherwise lookups read bytes changing under them, or fault with SIGBUS when the file
    /// shrinks.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("city.mmdb");
    /// std::fs::write(&path, geodb::SAMPLE).unwrap();
    /// // SAFETY: the file is private to this example and never modified while mapped.
    /// let db = unsafe { geo_server::db::GeoDb::mapped(&path) }.unwrap();
    /// assert_eq!(db.info().mode, geo_server::db::DbMode::Mmap);
    /// ```
    pub unsafe fn mapped(path: &Path) -> Result<Self, DbError> {
        let (tree, info) = map(path, PrivateCopy::Off)?;
        Ok(
            Self::new(AnyReader::Mapped(tree), info, Some(path.to_path_buf()))
                .copying(PrivateCopy::Off),
        )
    }

    /// Maps a private copy of the file ([`PrivateCopy`]: an unnamed file beside it, or a sealed
    /// memfd), made from one descriptor at load time, and verifies it: the file at `path` may
    /// then be truncated, rewritten in place or replaced by a rename without harm to lookups.
    /// [`reload`](Self::reload) copies and maps it again.
    ///
    /// ```
    /// use geo_server::private_copy::PrivateCopy;
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("city.mmdb");
    /// std::fs::write(&path, geodb::SAMPLE).unwrap();
    /// let db = geo_server::db::GeoDb::mapped_copy(&path, PrivateCopy::Tmpfile).unwrap();
    /// std::fs::write(&path, b"").unwrap(); // truncated: the copy is untouched
    /// let london = db.lookup("81.2.69.160".parse().unwrap(), Default::default()).unwrap();
    /// assert!(london.is_some());
    /// ```
    pub fn mapped_copy(path: &Path, copy: PrivateCopy) -> Result<Self, DbError> {
        let copy = match copy {
            // Never the file itself from the safe constructor.
            PrivateCopy::Off => PrivateCopy::Memfd,
            copy => copy,
        };
        let (tree, info) = map(path, copy)?;
        Ok(Self::new(AnyReader::Mapped(tree), info, Some(path.to_path_buf())).copying(copy))
    }

    fn copying(mut self, copy: PrivateCopy) -> Self {
        self.copy = copy;
        self
    }

    fn new(reader: AnyReader, info: DbInfo, path: Option<PathBuf>) -> Self {
        GeoDb {
            current: ArcSwap::from_pointee(Loaded::new(reader, info)),
            path,
            copy: PrivateCopy::Off,
            answers: AnswerCache::new(answer_cache::DEFAULT_BUDGET),
        }
    }

    /// Keeps the record parts of answers in a cache of at most `budget` bytes (0: none);
    /// [`answer_cache::DEFAULT_BUDGET`] unless set.
    ///
    /// ```
    /// use geo_server::language::Language;
    /// let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").unwrap().with_answer_cache(0);
    /// let _ = db.lookup("81.2.69.160".parse().unwrap(), Language::English).unwrap();
    /// assert_eq!(db.answer_cache_stats().misses, 0, "off: nothing looked up in it");
    /// ```
    pub fn with_answer_cache(mut self, budget: usize) -> Self {
        self.answers = AnswerCache::new(budget);
        self
    }

    /// Hits, misses and size of the answer cache.
    pub fn answer_cache_stats(&self) -> AnswerCacheStats {
        self.answers.stats()
    }

    /// Maps the file again (a private copy of it, when made so), verifies it and swaps it in
    /// atomically. Lookups in flight finish on the old map, which is unmapped when the last of
    /// them drops it. On any error the current database stays in place.
    pub fn reload(&self) -> Result<DbInfo, DbError> {
        let path = self.path.as_deref().ok_or(DbError::NotReloadable)?;
        let (tree, info) = map(path, self.copy)?;
        self.current
            .store(Arc::new(Loaded::new(AnyReader::Mapped(tree), info.clone())));
        // The old generation's answers are never read again; free them now, and give their
        // memory back to the system rather than keep it as allocator slack.
        self.answers.clear();
        crate::alloc::release_free_memory();
        Ok(info)
    }

    /// The file a mapped database reloads from.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What is loaded now.
    pub fn info(&self) -> DbInfo {
        self.current.load().info.clone()
    }

    /// The database loaded now, for one request: its validators and lookups stay consistent
    /// across a reload.
    pub fn snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            loaded: self.current.load(),
            answers: &self.answers,
        }
    }

    /// Looks `ip` up and renders the answer as JSON, or `None` when the database has no data for
    /// it (private, reserved, unknown).
    pub fn lookup(
        &self,
        ip: IpAddr,
        language: Language,
    ) -> Result<Option<Vec<u8>>, MaxMindDbError> {
        self.snapshot().lookup(ip, language)
    }
}

/// Opens `path` for reading without waiting (a FIFO would wait for a writer forever) and
/// refuses anything but a regular file.
fn open_regular(path: &Path) -> Result<std::fs::File, DbError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(|source| DbError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    match file.metadata() {
        Ok(metadata) if metadata.is_file() => Ok(file),
        Ok(_) => Err(DbError::NotAFile {
            path: path.to_path_buf(),
        }),
        Err(source) => Err(DbError::Open {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Opens `path` once and, from that one descriptor, takes its identity, makes the private copy
/// (unless `copy` is `Off`), maps, verifies and hashes what was mapped: the identity, the bytes
/// served and the ETag all describe one file, whatever is renamed over the path meanwhile.
fn map(path: &Path, copy: PrivateCopy) -> Result<(Tree<Shared<Mmap>>, DbInfo), DbError> {
    let open_error = |source| DbError::Open {
        path: path.to_path_buf(),
        source,
    };
    let source = open_regular(path)?;
    let before = FileIdentity::of(&source.metadata().map_err(open_error)?);
    if before.len == 0 {
        return Err(DbError::Empty {
            path: path.to_path_buf(),
        });
    }
    let origin = path.display().to_string();
    let mut hash = None;
    let mut made = PrivateCopy::Off;
    let (tree, mut info) = measure(DbMode::Mmap, &origin, before.len as usize, || {
        let mapped = match copy {
            PrivateCopy::Off => source,
            copy => {
                let copied = private_copy::copy(&source, before, path, copy)
                    .map_err(|error| MaxMindDbError::Io(std::io::Error::other(error)))?;
                made = copied.kind;
                copied.file
            }
        };
        // SAFETY: the map is read-only and lives as long as the reader. A private copy is an
        // unnamed file no other process can open by name, or a memfd sealed against writes and
        // shrinking. For `Off`, the file being truncated or rewritten in place is excluded by
        // the contract the caller of `GeoDb::mapped` accepted.
        let map = unsafe { Mmap::map(&mapped) }?;
        hash = Some(blake3::hash(&map));
        Ok(Shared(Arc::new(map)))
    })
    .map_err(|error| match error {
        // The copy's own failure, told as such rather than as a failure to read the file.
        DbError::Open { source, .. }
            if source
                .get_ref()
                .is_some_and(|inner| inner.is::<CopyError>()) =>
        {
            let source = source
                .into_inner()
                .and_then(|inner| inner.downcast::<CopyError>().ok())
                .map_or(CopyError::Changed, |boxed| *boxed);
            DbError::Copy {
                path: path.to_path_buf(),
                source,
            }
        }
        other => other,
    })?;
    verify(&tree.reader, &origin)?;
    let hash = hash.map(|hash| hash.to_hex()).unwrap_or_default();
    info.identity = identity(info.build_epoch, hash.as_str());
    info.private_copy = Some(made);
    info.file = Some(before);
    Ok((tree, info))
}

/// `<build epoch in hex>-<first 64 bits of the BLAKE3 hash of the bytes>`.
fn identity(build_epoch: u64, blake3_hex: &str) -> String {
    format!(
        "{build_epoch:x}-{}",
        blake3_hex.get(..16).unwrap_or(blake3_hex)
    )
}

fn verify<S: AsRef<[u8]>>(reader: &Reader<S>, origin: &str) -> Result<(), DbError> {
    reader.verify().map_err(|source| DbError::Invalid {
        origin: origin.to_owned(),
        source,
    })
}

/// Creates a reader over the bytes `create` gives, timing it and counting the heap it retains
/// (the bytes' own, for a copy), checks its type, then makes the jump table into its tree.
fn measure<S: AsRef<[u8]> + Clone>(
    mode: DbMode,
    origin: &str,
    size: usize,
    create: impl FnOnce() -> Result<S, MaxMindDbError>,
) -> Result<(Tree<S>, DbInfo), DbError> {
    let heap_before = heap_in_use();
    let started = Instant::now();
    let reader = create()
        .and_then(|bytes| Ok((Reader::from_source(bytes.clone())?, bytes)))
        .map_err(|source| match source {
            MaxMindDbError::Io(source) => DbError::Open {
                path: PathBuf::from(origin),
                source,
            },
            source => DbError::Invalid {
                origin: origin.to_owned(),
                source,
            },
        });
    let (reader, bytes) = reader?;
    let load_time = started.elapsed();
    let reader_heap_bytes = heap_in_use().saturating_sub(heap_before);
    let metadata = reader.metadata();
    let database_type = metadata.database_type.clone();
    if !database_type.contains("City") && !database_type.contains("Enterprise") {
        return Err(DbError::WrongType {
            origin: origin.to_owned(),
            database_type,
        });
    }
    let mut info = DbInfo {
        mode,
        origin: origin.to_owned(),
        database_type,
        build_epoch: metadata.build_epoch,
        size,
        load_time,
        reader_heap_bytes,
        jump_table_bytes: 0,
        identity: String::new(),
        private_copy: None,
        file: None,
    };
    let tree = Tree::new(reader, bytes);
    info.jump_table_bytes = tree.jump_table_bytes();
    Ok((tree, info))
}
