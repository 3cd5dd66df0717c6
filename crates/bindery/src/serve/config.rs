//! Setting up a [`ServeCatalog`]: where it is mounted, what a miss gets (the SPA's page, a
//! 404 page of the catalog's, clean URLs, aliases), caching and limits. Everything a request
//! needs is resolved here, once, not per request.

use std::sync::Arc;

use super::cache::{CacheStats, DecompressedCache};
use super::prepared::NO_CACHE;
use super::{ServeCatalog, prepare};
use crate::EmbeddedFile;

/// A file of the catalog chosen when the service is set up: its place in the table; for a dev
/// catalog, whose files change on disk, its key, looked up per request.
#[derive(Debug, Clone)]
pub(super) enum Chosen {
    Index(usize),
    Key(String),
}

/// What the service was set up with.
#[derive(Debug, Clone)]
pub(super) struct Config {
    /// The path the catalog is served under (`/static`), without a trailing slash; empty at `/`.
    pub(super) mount: String,
    pub(super) fallback: Option<Chosen>,
    pub(super) no_fallback: Vec<String>,
    /// The page a miss gets, with status 404.
    pub(super) not_found: Option<Chosen>,
    /// Whether `/about` serves `about.html` (and `/about.html` redirects to `/about`).
    pub(super) clean_urls: bool,
    /// Catalog keys answered with another file: (alias, file), sorted by alias.
    pub(super) aliases: Vec<(String, Chosen)>,
    pub(super) index_file: String,
    pub(super) max_path_len: usize,
    pub(super) off_thread_above: Option<usize>,
}

impl ServeCatalog {
    /// The file at `path` as the service keeps it: by index, or by key for a dev catalog.
    fn choose(&self, path: &str) -> Option<Chosen> {
        if self.catalog.is_dev() {
            crate::lookup::normalise(path).map(|key| Chosen::Key(key.to_owned()))
        } else {
            self.catalog.position(path).map(Chosen::Index)
        }
    }

    /// The file a [`Chosen`] names, as the catalog has it now.
    pub(super) fn chosen(&self, chosen: &Chosen) -> Option<&'static EmbeddedFile> {
        match chosen {
            Chosen::Index(index) => self.catalog.files().get(*index),
            Chosen::Key(key) => self.catalog.file(key),
        }
    }

    /// Answers a GET that matches no file with `path` when it is a browser navigation (its
    /// `Accept` names `text/html`), so client-side routes such as `/lookup/8.8.8.8` load the app.
    /// Scripts and images that are missing still get 404. When the catalog has no such file
    /// there is no fallback: check with [`fallback`](Self::fallback).
    ///
    /// Every response that depends on that choice (the page, and the 404 of a request that is
    /// not a navigation) says `Vary: Accept`, so a shared cache keeps them apart.
    pub fn spa_fallback(mut self, path: &str) -> Self {
        let fallback = self.choose(path);
        Arc::make_mut(&mut self.config).fallback = fallback;
        self
    }

    /// Answers a request that finds nothing (and gets no SPA fallback) with the catalog's file
    /// `path`, e.g. `404.html`, with status 404 and that file's own headers: its `Content-Type`,
    /// `ETag`, caching policy and encodings. No effect when the catalog has no such file.
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).not_found_file("index.html");
    ///
    /// let missing = service.respond(&Request::get("/no/such/page").body(()).unwrap());
    /// assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    /// assert_eq!(missing.headers()["content-type"], "text/html; charset=utf-8");
    /// ```
    pub fn not_found_file(mut self, path: &str) -> Self {
        let page = self.choose(path);
        Arc::make_mut(&mut self.config).not_found = page;
        self
    }

    /// Clean URLs: a path without an extension that names no file serves the file with `.html`
    /// added (`/about` serves `about.html`), and a request for such a file by its `.html` name
    /// is redirected (308) to the clean one, so each page has one address a cache and a search
    /// engine see (`/docs/index.html` goes to `/docs/`). Off by default.
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).clean_urls();
    ///
    /// assert_eq!(service.respond(&Request::get("/index").body(()).unwrap()).status(), StatusCode::OK);
    /// let old = service.respond(&Request::get("/index.html").body(()).unwrap());
    /// assert_eq!(old.status(), StatusCode::PERMANENT_REDIRECT);
    /// assert_eq!(old.headers()["location"], "/");
    /// ```
    pub fn clean_urls(mut self) -> Self {
        Arc::make_mut(&mut self.config).clean_urls = true;
        self
    }

    /// Serves the catalog's file `to` at the path `from` too (both relative to the catalog,
    /// like its keys), with the same headers and ETag. Ignored when `to` is not in the catalog
    /// or `from` is not a valid key; a file at `from` itself is served first.
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).alias("greeting", "hello.txt");
    ///
    /// let response = service.respond(&Request::get("/greeting").body(()).unwrap());
    /// assert_eq!(response.status(), StatusCode::OK);
    /// assert_eq!(response.headers()["content-type"], "text/plain; charset=utf-8");
    /// ```
    pub fn alias(mut self, from: &str, to: &str) -> Self {
        let (Some(key), Some(target)) = (crate::lookup::normalise(from), self.choose(to)) else {
            return self;
        };
        let key = key.to_owned();
        let aliases = &mut Arc::make_mut(&mut self.config).aliases;
        aliases.retain(|(alias, _)| *alias != key);
        aliases.push((key, target));
        aliases.sort_by(|left, right| left.0.cmp(&right.0));
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

    /// The catalog this service serves.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// assert_eq!(service.catalog().len(), SITE.len());
    /// ```
    pub fn catalog(&self) -> &'static crate::Catalog {
        self.catalog
    }

    /// The absolute URL path a page should link to for the catalog's file `path`: the mount
    /// point, then [`Catalog::url`](crate::Catalog::url) (the fingerprinted name with
    /// `fingerprint = true`), percent-encoded where a URL needs it; `None` when there is no
    /// such file, so a template can refuse a typo.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
    /// let service = bindery::serve::ServeCatalog::new(&SITE).mounted_at("/static");
    /// let url = service.url("style.css").unwrap();
    /// assert!(url.starts_with("/static/style.") && url.ends_with(".css"));
    /// let response = service.respond(&http::Request::get(&url).body(()).unwrap());
    /// assert_eq!(response.headers()["cache-control"], bindery::serve::IMMUTABLE);
    /// assert!(service.url("with space.txt").unwrap().starts_with("/static/with%20space."));
    /// assert_eq!(service.url("nope.css"), None);
    /// ```
    pub fn url(&self, path: &str) -> Option<String> {
        let url = self.catalog.url(path)?;
        let encoded = percent_encoding::utf8_percent_encode(url, super::path::URL_PATH);
        Some(format!("{}/{encoded}", self.config.mount))
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

    /// At most `limit` decompressions run at once for clients without gzip, across this service
    /// and its clones (at least 1); requests for the same file and length share one. Default:
    /// [`default_max_decompressions`](super::default_max_decompressions), the cores available.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).max_decompressions(2);
    /// assert_eq!(service.decompression_stats().limit, 2);
    /// ```
    pub fn max_decompressions(mut self, limit: usize) -> Self {
        let queue = self.inflater.stats().queue;
        self.inflater = Arc::new(super::inflate::Inflater::new(limit, queue));
        self
    }

    /// At most `queue` decompressions wait for a turn; a request that would be one more is
    /// answered at once with 503, `Retry-After: 1` and `no-store`. Waiting costs no CPU and
    /// requests for the same bytes wait as one, so the queue can be long; a bound on it keeps
    /// a flood of distinct ranges from queueing work for minutes, and a prompt retry suits a
    /// client, or a CDN in front, better than a queue that only grows. Default:
    /// [`DEFAULT_DECOMPRESSION_QUEUE`](super::DEFAULT_DECOMPRESSION_QUEUE).
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let service = bindery::serve::ServeCatalog::new(&SITE).decompression_queue(0);
    /// assert_eq!(service.decompression_stats().queue, 0);
    /// ```
    pub fn decompression_queue(mut self, queue: usize) -> Self {
        let limit = self.inflater.stats().limit;
        self.inflater = Arc::new(super::inflate::Inflater::new(limit, queue));
        self
    }

    /// The bounded decompression's counters: begun, merged, abandoned, refused, at once.
    pub fn decompression_stats(&self) -> super::DecompressionStats {
        self.inflater.stats()
    }

    /// Hits, misses and size of the decompressed-body cache, when it is on.
    pub fn cache_stats(&self) -> Option<CacheStats> {
        self.cache.as_ref().map(|cache| cache.stats())
    }

    /// The SPA fallback file, if one is set and exists.
    pub fn fallback(&self) -> Option<&'static EmbeddedFile> {
        self.chosen(self.config.fallback.as_ref()?)
    }
}
