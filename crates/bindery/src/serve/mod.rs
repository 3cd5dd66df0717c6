//! Serving a [`Catalog`] over HTTP: a tower [`Service`] with what users expect of a static server.
//!
//! GET and HEAD; `Content-Type`, `Content-Length`, strong `ETag` per representation,
//! `Last-Modified` when the catalog carries times, `Cache-Control`, `Vary: Accept-Encoding`,
//! `Accept-Ranges`; `If-None-Match` / `If-Modified-Since` -> 304; one `Range` -> 206 (416 when
//! unsatisfiable, `If-Range` honoured); content negotiation over the file's precompressed
//! representations (brotli, zstd, gzip: the highest q-value, ties to the smallest), each sent as
//! stored with its own ETag; `index.html` for folders; an optional SPA fallback for browser
//! navigations; paths that could step outside the catalog refused with 400.
//!
//! Bodies of `static` files are `Bytes::from_static`: no copy, no allocation.
//!
//! ```
//! use bindery::serve::ServeCatalog;
//! use http::{Request, StatusCode};
//!
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! let service = ServeCatalog::new(&SITE).spa_fallback("index.html").no_fallback_prefix("/api/");
//! let request = Request::get("/style.css").header("accept-encoding", "gzip").body(()).unwrap();
//! let response = service.respond(&request);
//! assert_eq!(response.status(), StatusCode::OK);
//! assert_eq!(response.headers()["content-encoding"], "gzip");
//! assert_eq!(response.headers()["vary"], "accept-encoding");
//! ```
//!
//! With axum: `Router::new().route("/api/...", ...).fallback_service(service)`. Servers should set
//! `TCP_NODELAY` on accepted sockets (axum 0.8: `listener.tap_io(|tcp| tcp.set_nodelay(true))`):
//! without it, delayed ACKs can cut small-file throughput by orders of magnitude.

mod cache;
mod conditional;
mod decide;
mod encoding;
mod path;
mod prepared;
mod range;
mod respond;
mod response;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use tower_service::Service;

pub use cache::CacheStats;
pub use conditional::is_not_modified;
pub use prepared::{IMMUTABLE, NO_CACHE, default_cache_control, is_fingerprinted};

use crate::{Catalog, EmbeddedFile};
use cache::DecompressedCache;
use prepared::Prepared;

/// The response body type: the whole body at once (embedded bodies are in memory already).
pub type Body = http_body_util::Full<Bytes>;

/// The default limit on the raw request path, in bytes; longer paths get 400.
pub const DEFAULT_MAX_PATH_LEN: usize = 2048;

/// Gzip-stored files larger than this (64 KiB) are decompressed on tokio's blocking pool for
/// clients that do not accept gzip, so one large file cannot stall the other requests of an
/// async worker. Smaller ones take microseconds and are decompressed in place.
pub const DEFAULT_OFF_THREAD_ABOVE: usize = 64 * 1024;

/// A tower `Service` serving a `&'static Catalog`. Cheap to clone (shared state behind `Arc`).
///
/// ```
/// use bindery::serve::ServeCatalog;
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
///
/// let service = ServeCatalog::new(&SITE)
///     .spa_fallback("index.html")
///     .no_fallback_prefix("/geo/")
///     .decompressed_cache(8 * 1024 * 1024);
/// assert_eq!(service.fallback().unwrap().path(), "index.html");
/// assert_eq!(service.cache_stats().unwrap().budget, 8 * 1024 * 1024);
/// ```
#[derive(Debug, Clone)]
pub struct ServeCatalog {
    catalog: &'static Catalog,
    prepared: Arc<[Prepared]>,
    config: Arc<Config>,
    cache: Option<Arc<DecompressedCache>>,
}

/// The SPA fallback: its place in the table, found once when it is set; for a dev catalog, whose
/// files change on disk, its key, looked up per request.
#[derive(Debug, Clone)]
enum Fallback {
    Index(usize),
    Key(String),
}

#[derive(Debug, Clone)]
struct Config {
    /// The path the catalog is served under (`/static`), without a trailing slash; empty at `/`.
    mount: String,
    fallback: Option<Fallback>,
    no_fallback: Vec<String>,
    index_file: String,
    max_path_len: usize,
    off_thread_above: Option<usize>,
}

impl ServeCatalog {
    /// A service for `catalog` with the defaults: no SPA fallback, `index.html` for folders,
    /// [`default_cache_control`], no decompressed-body cache, [`DEFAULT_MAX_PATH_LEN`].
    pub fn new(catalog: &'static Catalog) -> Self {
        ServeCatalog {
            catalog,
            prepared: prepare(catalog, &|file| {
                http::HeaderValue::from_static(default_cache_control(file))
            }),
            config: Arc::new(Config {
                mount: String::new(),
                fallback: None,
                no_fallback: Vec::new(),
                index_file: "index.html".to_owned(),
                max_path_len: DEFAULT_MAX_PATH_LEN,
                off_thread_above: Some(DEFAULT_OFF_THREAD_ABOVE),
            }),
            cache: None,
        }
    }

    /// Answers a GET that matches no file with `path` when it is a browser navigation (its
    /// `Accept` names `text/html`), so client-side routes such as `/lookup/8.8.8.8` load the app.
    /// Scripts and images that are missing still get 404. When the catalog has no such file
    /// there is no fallback: check with [`fallback`](Self::fallback).
    pub fn spa_fallback(mut self, path: &str) -> Self {
        let fallback = if self.catalog.is_dev() {
            crate::lookup::normalise(path).map(|key| Fallback::Key(key.to_owned()))
        } else {
            self.catalog.position(path).map(Fallback::Index)
        };
        Arc::make_mut(&mut self.config).fallback = fallback;
        self
    }

    /// Serves the catalog under a path prefix, as axum's `Router::nest_service` would, but
    /// without rebuilding each request's URI: with `mounted_at("/static")`, `/static/app.js` is
    /// the catalog's `app.js`, `/static` redirects to `/static/`, and paths outside the prefix
    /// get 404. Redirects and the SPA fallback's [`no_fallback_prefix`](Self::no_fallback_prefix)
    /// see the whole path. `""` or `"/"` serves at the root (the default).
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).mounted_at("/static/");
    ///
    /// let hello = service.respond(&Request::get("/static/hello.txt").body(()).unwrap());
    /// assert_eq!(hello.status(), StatusCode::OK);
    /// let outside = service.respond(&Request::get("/hello.txt").body(()).unwrap());
    /// assert_eq!(outside.status(), StatusCode::NOT_FOUND);
    /// let bare = service.respond(&Request::get("/static").body(()).unwrap());
    /// assert_eq!(bare.headers()["location"], "/static/");
    /// ```
    pub fn mounted_at(mut self, prefix: &str) -> Self {
        let trimmed = prefix.trim_end_matches('/');
        let mount = if trimmed.is_empty() || trimmed.starts_with('/') {
            trimmed.to_owned()
        } else {
            format!("/{trimmed}")
        };
        Arc::make_mut(&mut self.config).mount = mount;
        self
    }

    /// The path the catalog is served under, as [`mounted_at`](Self::mounted_at) normalised it:
    /// a leading slash and no trailing one; `""` at the root.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// assert_eq!(service.clone().mounted_at("static/").mount_point(), "/static");
    /// assert_eq!(service.mounted_at("/").mount_point(), "");
    /// ```
    pub fn mount_point(&self) -> &str {
        &self.config.mount
    }

    /// Whether a request path is this service's to answer: the mount point itself or a path
    /// below it (`/static`, `/static/a.js`; not `/staticx`). A server with several mounted
    /// catalogs picks the one that covers the path.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).mounted_at("/static");
    /// assert!(service.covers("/static") && service.covers("/static/a.js"));
    /// assert!(!service.covers("/staticx/a.js") && !service.covers("/a.js"));
    /// ```
    pub fn covers(&self, path: &str) -> bool {
        self.within_mount(path).is_some()
    }

    /// A path prefix that never falls back to the SPA (e.g. `/api/`): a miss there is a 404.
    pub fn no_fallback_prefix(mut self, prefix: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config)
            .no_fallback
            .push(prefix.into());
        self
    }

    /// The file served for a folder path such as `/` or `/docs/` (default `index.html`).
    pub fn index_file(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.config).index_file = name.into();
        self
    }

    /// The longest raw request path accepted, in bytes.
    pub fn max_path_len(mut self, max_path_len: usize) -> Self {
        Arc::make_mut(&mut self.config).max_path_len = max_path_len;
        self
    }

    /// Sets the `Cache-Control` policy: any function or closure of the file, called once per file
    /// here, not per request. A value that is not a valid header value falls back to
    /// [`NO_CACHE`].
    ///
    /// ```
    /// use bindery::serve::{ServeCatalog, default_cache_control};
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = ServeCatalog::new(&SITE).cache_control(|_| "no-store");
    /// let response = service.respond(&http::Request::get("/hello.txt").body(()).unwrap());
    /// assert_eq!(response.headers()["cache-control"], "no-store");
    ///
    /// // A closure can capture configuration and build the value.
    /// let max_age = 600;
    /// let service = ServeCatalog::new(&SITE).cache_control(move |file| match file.mime() {
    ///     "text/html" => "no-cache".to_owned(),
    ///     _ => format!("public, max-age={max_age}"),
    /// });
    /// let response = service.respond(&http::Request::get("/style.css").body(()).unwrap());
    /// assert_eq!(response.headers()["cache-control"], "public, max-age=600");
    /// # let _ = default_cache_control;
    /// ```
    pub fn cache_control<F, V>(mut self, policy: F) -> Self
    where
        F: Fn(&EmbeddedFile) -> V,
        V: AsRef<str>,
    {
        self.prepared = prepare(self.catalog, &|file| {
            http::HeaderValue::try_from(policy(file).as_ref())
                .unwrap_or_else(|_| http::HeaderValue::from_static(NO_CACHE))
        });
        self
    }

    /// Gzip-stored files larger than `threshold` bytes are decompressed, for clients without
    /// gzip, on tokio's blocking pool (`spawn_blocking`) when the service runs inside a tokio
    /// runtime; `None` decompresses every file in place. Default:
    /// [`DEFAULT_OFF_THREAD_ABOVE`]. [`respond`](Self::respond), which has no runtime to hand
    /// the work to, always decompresses in place.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let in_place = bindery::serve::ServeCatalog::new(&SITE).decompress_off_thread(None);
    /// # let _ = in_place;
    /// ```
    pub fn decompress_off_thread(mut self, threshold: Option<usize>) -> Self {
        Arc::make_mut(&mut self.config).off_thread_above = threshold;
        self
    }

    /// Keeps decompressed bodies of gzip-stored files, for clients that do not accept gzip, up
    /// to `budget` bytes (least recently used evicted first). Off by default: decompression then
    /// happens on every such request.
    pub fn decompressed_cache(mut self, budget: usize) -> Self {
        self.cache = Some(Arc::new(DecompressedCache::new(budget)));
        self
    }

    /// Hits, misses and size of the decompressed-body cache, when it is on.
    pub fn cache_stats(&self) -> Option<CacheStats> {
        self.cache.as_ref().map(|cache| cache.stats())
    }

    /// The SPA fallback file, if one is set and exists.
    pub fn fallback(&self) -> Option<&'static EmbeddedFile> {
        match self.config.fallback.as_ref()? {
            Fallback::Index(index) => self.catalog.files().get(*index),
            Fallback::Key(key) => self.catalog.file(key),
        }
    }
}

/// Header values for every file, computed once. A dev catalog has none: its files change on disk,
/// so each request prepares the file it serves.
fn prepare(
    catalog: &'static Catalog,
    policy: &dyn Fn(&EmbeddedFile) -> http::HeaderValue,
) -> Arc<[Prepared]> {
    if catalog.is_dev() {
        return Arc::new([]);
    }
    catalog
        .files()
        .iter()
        .map(|file| Prepared::new(file, policy))
        .collect()
}

impl<B> Service<Request<B>> for ServeCatalog {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        self.serve(&request)
    }
}

impl ServeCatalog {
    /// What the tower `Service`'s `call` returns, from a shared reference: for a server that
    /// holds the service behind an `Arc` or `&`, where `call`'s `&mut self` would need a clone.
    /// Ready at once except for a large decompression, which goes to the blocking pool inside
    /// a tokio runtime.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = std::sync::Arc::new(bindery::serve::ServeCatalog::new(&SITE));
    ///
    /// let response = service.serve(&Request::get("/hello.txt").body(()).unwrap()).await.unwrap();
    /// assert_eq!(response.status(), StatusCode::OK);
    /// # });
    /// ```
    pub fn serve<B>(&self, request: &Request<B>) -> ResponseFuture {
        let state = match self.build(self.decide(request), request) {
            respond::Answer::Ready(response) => State::Ready(Some(response)),
            respond::Answer::Deferred(deferred) => match tokio::runtime::Handle::try_current() {
                Ok(runtime) => State::Blocking(runtime.spawn_blocking(move || deferred.finish())),
                Err(_) => State::Ready(Some(deferred.finish())),
            },
        };
        ResponseFuture { state }
    }
}

/// The future of [`ServeCatalog`]'s `Service::call`: ready at once, except for a large
/// decompression, which runs on tokio's blocking pool (see
/// [`decompress_off_thread`](ServeCatalog::decompress_off_thread)).
#[derive(Debug)]
pub struct ResponseFuture {
    state: State,
}

#[derive(Debug)]
enum State {
    Ready(Option<Response<Body>>),
    Blocking(tokio::task::JoinHandle<Response<Body>>),
}

impl Future for ResponseFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.state {
            State::Ready(response) => {
                Poll::Ready(Ok(response.take().unwrap_or_else(response::internal_error)))
            }
            // The blocking task only panics on a bug; answer it like one.
            State::Blocking(task) => Pin::new(task)
                .poll(context)
                .map(|finished| Ok(finished.unwrap_or_else(|_| response::internal_error()))),
        }
    }
}
