//! What a service is set up with, as plain data: made once by the [`Builder`](crate::serve::Builder),
//! read by every request.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, StatusCode};

use crate::serve::setup::path_headers::PathHeaders;

/// The longest raw request path accepted unless the builder is told otherwise.
pub(crate) const DEFAULT_MAX_PATH_LEN: usize = 2048;

/// A file of the catalog chosen when the service is built: its place in the table; for a dev
/// catalog, whose files change on disk, its key, looked up per request; or a page the
/// application rendered ([`Page`](crate::serve::Page)), with its headers made once.
#[derive(Debug, Clone)]
pub(crate) enum Chosen {
    Index(usize),
    Key(String),
    Page(Arc<crate::serve::setup::prepared::Prepared>),
}

/// The body of an error answer, from the status and the reason bindery gives: its
/// `Content-Type` and bytes.
pub(crate) type ErrorBody =
    Arc<dyn Fn(StatusCode, &'static str) -> (HeaderValue, Bytes) + Send + Sync>;

/// Everything a request needs to know of the service's setup.
#[derive(Clone)]
pub(crate) struct Config {
    /// The path the catalog is served under (`/static`), without a trailing slash; empty at `/`.
    pub(crate) mount: String,
    pub(crate) fallback: Option<Chosen>,
    pub(crate) no_fallback: Vec<String>,
    /// The page a miss gets, with status 404.
    pub(crate) not_found: Option<Chosen>,
    /// Whether `/about` serves `about.html` (and `/about.html` redirects to `/about`).
    pub(crate) clean_urls: bool,
    /// Catalog keys answered with another file: (alias, file), sorted by alias.
    pub(crate) aliases: Vec<(String, Chosen)>,
    pub(crate) index_file: String,
    pub(crate) max_path_len: usize,
    /// What error answers carry; `None`: nothing.
    pub(crate) error_body: Option<ErrorBody>,
    /// Headers added by path ([`Builder::headers`](crate::serve::Builder::headers)).
    pub(crate) path_headers: Arc<PathHeaders>,
    /// A folder laid over the catalog.
    #[cfg(feature = "overlay")]
    pub(crate) overlay: Option<crate::overlay::Overlay>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Config")
            .field("mount", &self.mount)
            .field("fallback", &self.fallback)
            .field("not_found", &self.not_found)
            .field("clean_urls", &self.clean_urls)
            .field("index_file", &self.index_file)
            .field("error_body", &self.error_body.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mount: String::new(),
            fallback: None,
            no_fallback: Vec::new(),
            not_found: None,
            clean_urls: false,
            aliases: Vec::new(),
            index_file: "index.html".to_owned(),
            max_path_len: DEFAULT_MAX_PATH_LEN,
            error_body: None,
            path_headers: Arc::default(),
            #[cfg(feature = "overlay")]
            overlay: None,
        }
    }
}

/// How a service decompresses gzip-stored files for clients that do not accept gzip, and how
/// many heap bytes such bodies (and `copy` mode's copies) may hold at once: one value, set with
/// [`Builder::decompression`](crate::serve::Builder::decompression).
///
/// ```
/// use bindery::serve::{Decompression, ServeCatalog};
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
///
/// let service = ServeCatalog::builder(&SITE)
///     .decompression(Decompression { cache_bytes: 8 << 20, ..Decompression::default() })
///     .build()
///     .unwrap();
/// assert_eq!(service.stats().cache_budget, 8 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decompression {
    /// Files larger than this are decompressed on tokio's blocking pool (when the service
    /// runs inside a tokio runtime), so one large file never stalls an async worker; `None`
    /// decompresses every file in place. Default 64 KiB: smaller ones take microseconds.
    /// [`ServeCatalog::respond`](crate::serve::ServeCatalog::respond), which has no runtime to hand
    /// the work to, always decompresses in place.
    pub off_thread_above: Option<usize>,
    /// Keep decompressed bodies up to this many bytes (least recently used evicted first), so
    /// that requests for the same file decompress once; 0 (the default) keeps none.
    pub cache_bytes: usize,
    /// At most this many decompressions run at once, across the service and its clones (at
    /// least 1); requests for the same file and length share one. Default: the cores
    /// available.
    pub at_once: usize,
    /// At most this many decompressions wait for a turn; a request that would be one more is
    /// answered at once with 503, `Retry-After: 1` and `no-store`. Waiting costs no CPU and
    /// requests for the same bytes wait as one, so the queue can be long; a bound on it keeps
    /// a flood of distinct ranges from queueing work for minutes, and a prompt retry suits a
    /// client, or a CDN in front, better than a queue that only grows. One client (as `Server`
    /// tells it: an address, an IPv6 /64) may hold an eighth of it. Default 256.
    pub queue: usize,
    /// At most this many bytes held at once by answer bodies on the heap (decompressed ones
    /// not in the cache, `copy` mode's copies), however slowly their clients read; beyond it
    /// a request gets 503 with `Retry-After: 1`. Bodies of the binary's own bytes or of the
    /// cache cost nothing here. Default: an eighth of the memory limit (the cgroup's, v1 or
    /// v2, or the machine's), at most 256 MiB: the part the default connection cap of
    /// [`Server`](crate::serve::Server) leaves for bodies. Every service left at the default shares
    /// one budget in the process (its figures in [`Stats`](crate::serve::Stats) are the pool's).
    pub heap_budget: usize,
    /// At most this many of those bytes held by one client's requests (an IPv4 address, an
    /// IPv6 /64), so that one client's ranges cannot take the budget from the others; beyond
    /// it that client's requests get 503 and the others' go on. Applies where the server tells
    /// the client ([`Server`](crate::serve::Server) does, except for a trusted proxy's connections).
    /// Default an eighth of the default `heap_budget`.
    pub heap_per_client: usize,
}

impl Default for Decompression {
    fn default() -> Self {
        let heap_budget = crate::serve::stages::memory_plan::heap_budget_for(
            crate::serve::stages::memory_plan::memory_limit_once(),
        );
        let heap_budget = usize::try_from(heap_budget).unwrap_or(usize::MAX);
        Decompression {
            off_thread_above: Some(64 * 1024),
            cache_bytes: 0,
            at_once: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            queue: 256,
            heap_budget,
            heap_per_client: heap_budget / 8,
        }
    }
}

impl Decompression {
    /// Whether the byte budget is the default, shared by every service so set.
    pub(crate) fn has_default_budget(&self) -> bool {
        let default = Decompression::default();
        (self.heap_budget, self.heap_per_client) == (default.heap_budget, default.heap_per_client)
    }
}
