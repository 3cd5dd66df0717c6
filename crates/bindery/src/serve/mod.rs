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
mod config;
mod decide;
mod encoding;
mod head;
mod inflate;
mod not_found;
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
pub use head::RequestHead;
pub use inflate::DecompressionStats;
pub use not_found::{NotFoundFuture, NotFoundService};
pub use prepared::{IMMUTABLE, NO_CACHE, default_cache_control, is_fingerprinted};

use crate::{Catalog, EmbeddedFile};
use cache::DecompressedCache;
use config::Config;
use prepared::Prepared;

/// The response body type: the whole body at once (embedded bodies are in memory already).
pub type Body = http_body_util::Full<Bytes>;

/// The bytes of a [`Body`], for a framework that takes a body as bytes. The body is whole from
/// the start, so this never waits and never copies.
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// let service = bindery::serve::ServeCatalog::new(&SITE);
/// let response = service.respond(&http::Request::get("/hello.txt").body(()).unwrap());
/// assert_eq!(&bindery::serve::body_bytes(response.into_body())[..], b"Hello, bindery!\n");
/// ```
pub fn body_bytes(body: Body) -> Bytes {
    use http_body::Body as _;
    let mut body = std::pin::pin!(body);
    let mut context = Context::from_waker(std::task::Waker::noop());
    match body.as_mut().poll_frame(&mut context) {
        Poll::Ready(Some(Ok(frame))) => frame.into_data().unwrap_or_default(),
        _ => Bytes::new(),
    }
}

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
    inflater: Arc<inflate::Inflater>,
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
                not_found: None,
                clean_urls: false,
                aliases: Vec::new(),
                index_file: "index.html".to_owned(),
                max_path_len: DEFAULT_MAX_PATH_LEN,
                off_thread_above: Some(DEFAULT_OFF_THREAD_ABOVE),
            }),
            cache: None,
            inflater: Arc::new(inflate::Inflater::new(
                default_max_decompressions(),
                DEFAULT_DECOMPRESSION_QUEUE,
            )),
        }
    }
}

/// How many decompressions may wait for a turn before further requests are answered 503 with
/// `Retry-After` ([`ServeCatalog::decompression_queue`]).
pub const DEFAULT_DECOMPRESSION_QUEUE: usize = 256;

/// The default bound on decompressions at once: the cores this process may use.
pub fn default_max_decompressions() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
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
        self.future_of(self.decide(request), request)
    }

    /// [`serve`](Self::serve) for a request of any framework ([`RequestHead`]): the response,
    /// a large decompression done on tokio's blocking pool when there is a runtime.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// let (parts, ()) = http::Request::get("/hello.txt").body(()).unwrap().into_parts();
    /// assert_eq!(service.serve_to(&parts).await.status(), http::StatusCode::OK);
    /// # });
    /// ```
    pub async fn serve_to(&self, request: &impl RequestHead) -> Response<Body> {
        match self.future_of(self.decide(request), request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    /// The future answering `outcome`: ready at once, or finishing a large decompression
    /// (bounded, merged, abandoned with its requests: inflate.rs) on the blocking pool inside a
    /// tokio runtime.
    fn future_of(
        &self,
        outcome: decide::Outcome<'_>,
        request: &impl RequestHead,
    ) -> ResponseFuture {
        let state = match self.build(outcome, request) {
            respond::Answer::Ready(response) => State::Ready(Some(response)),
            respond::Answer::Deferred(deferred) => match tokio::runtime::Handle::try_current() {
                Ok(_) => State::Inflating(Box::pin(deferred.finish_bounded())),
                Err(_) => State::Ready(Some(deferred.finish())),
            },
        };
        ResponseFuture { state }
    }
}

/// The future of [`ServeCatalog`]'s `Service::call`: ready at once, except for a large
/// decompression, which runs on tokio's blocking pool within the service's bounds (see
/// [`max_decompressions`](ServeCatalog::max_decompressions)). Dropping it gives up its share
/// of the decompression, which stops when no request wants it.
pub struct ResponseFuture {
    state: State,
}

impl std::fmt::Debug for ResponseFuture {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Ready(_) => "ready",
            State::Inflating(_) => "inflating",
        };
        formatter
            .debug_struct("ResponseFuture")
            .field("state", &state)
            .finish()
    }
}

enum State {
    Ready(Option<Response<Body>>),
    Inflating(Pin<Box<dyn Future<Output = Response<Body>> + Send>>),
}

impl Future for ResponseFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.state {
            State::Ready(response) => {
                Poll::Ready(Ok(response.take().unwrap_or_else(response::internal_error)))
            }
            State::Inflating(inflating) => inflating.as_mut().poll(context).map(Ok),
        }
    }
}
