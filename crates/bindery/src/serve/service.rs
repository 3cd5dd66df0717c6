//! [`ServeCatalog`], the service: a request head in, the stages run in order (decide, build the
//! response, attach its body), a response (or a future of one) out.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use tower_service::Service;

use crate::Catalog;
use crate::Error;
use crate::serve::body::Body;
use crate::serve::cache_control::NO_CACHE;
use crate::serve::future::ResponseFuture;
use crate::serve::head::RequestHead;
use crate::serve::page::Page;
use crate::serve::setup::config::Chosen;
use crate::serve::setup::prepared::Prepared;
use crate::serve::setup::site::Site;
use crate::serve::stages::bodies::{Answer, Bodies};
use crate::serve::stages::decide;
use crate::serve::stages::outcome::Outcome;
use crate::serve::stages::response;
use crate::serve::stats::Stats;

/// A service serving a `&'static Catalog`: a tower `Service` for axum, hyper and tower-based
/// servers, and the core of the actix-web and rocket adapters. Cheap to clone (shared state
/// behind `Arc`). [`ServeCatalog::new`] serves with the defaults; [`ServeCatalog::builder`]
/// sets it up (mount point, SPA fallback, 404 page, caching, limits).
///
/// ```
/// use bindery::serve::ServeCatalog;
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
///
/// let service = ServeCatalog::builder(&SITE)
///     .spa_fallback("index.html")
///     .no_fallback_prefix("/geo/")
///     .build()
///     .unwrap();
/// let page = service.respond(&http::Request::get("/some/route").header("accept", "text/html").body(()).unwrap());
/// assert_eq!(page.status(), http::StatusCode::OK);
/// ```
#[derive(Debug, Clone)]
pub struct ServeCatalog {
    site: Arc<Site>,
    bodies: Arc<Bodies>,
}

/// A request the catalog has no file for (after its SPA fallback and aliases) and no 404 page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Miss {
    /// Whether the miss depended on `Accept` (the SPA fallback was considered).
    pub(crate) varies: bool,
}

impl ServeCatalog {
    /// The service of `site`, its bodies made by `bodies`.
    pub(crate) fn from_parts(site: Site, bodies: Bodies) -> Self {
        ServeCatalog {
            site: Arc::new(site),
            bodies: Arc::new(bodies),
        }
    }

    /// Answers one request now, from any framework's request ([`RequestHead`]; `http::Request`
    /// and `http::request::Parts` have it): a large decompression is done in place.
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    ///
    /// let ok = service.respond(&Request::get("/hello.txt").body(()).unwrap());
    /// assert_eq!(ok.status(), StatusCode::OK);
    /// let missing = service.respond(&Request::get("/nope.txt").body(()).unwrap());
    /// assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    /// let escape = service.respond(&Request::get("/%2e%2e/Cargo.toml").body(()).unwrap());
    /// assert_eq!(escape.status(), StatusCode::BAD_REQUEST);
    /// ```
    pub fn respond(&self, request: &impl RequestHead) -> Response<Body> {
        match self.answer(decide::decide(&self.site, request), request) {
            Answer::Ready(response) => response,
            Answer::Deferred(deferred) => deferred.finish(),
        }
    }

    /// Answers one request, a large decompression done on tokio's blocking pool when there is
    /// a runtime (within the bounds of [`Decompression`](super::Decompression)); what the tower
    /// `Service` returns, from a shared reference. Ready at once otherwise.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// let (parts, ()) = http::Request::get("/hello.txt").body(()).unwrap().into_parts();
    /// let response = service.serve(&parts).await.unwrap();
    /// assert_eq!(response.status(), http::StatusCode::OK);
    /// # });
    /// ```
    pub fn serve(&self, request: &impl RequestHead) -> ResponseFuture {
        self.future_of(decide::decide(&self.site, request), request)
    }

    /// The answer for a request this catalog has a file (or a 404 page) for, or the miss:
    /// what the rocket adapter and `NotFoundService` ask, so that a miss is decided once,
    /// by the decision stage, not guessed from a response.
    pub(crate) fn serve_or_miss(&self, request: &impl RequestHead) -> Result<ResponseFuture, Miss> {
        match decide::decide(&self.site, request) {
            Outcome::NotFound { page: None, varies } => Err(Miss { varies }),
            outcome => Ok(self.future_of(outcome, request)),
        }
    }

    fn answer(&self, outcome: Outcome<'_>, request: &impl RequestHead) -> Answer {
        let is_head = request.method_name() == "HEAD";
        #[allow(unused_mut, reason = "marked for live reload in dev mode only")]
        let (mut response, pending) = response::build(&self.site, outcome, is_head);
        #[cfg(all(feature = "livereload", debug_assertions))]
        if self.site.catalog.is_dev() {
            response
                .extensions_mut()
                .insert(crate::serve::reload::DevAnswer);
        }
        self.bodies.attach(response, pending)
    }

    fn future_of(&self, outcome: Outcome<'_>, request: &impl RequestHead) -> ResponseFuture {
        match self.answer(outcome, request) {
            Answer::Ready(response) => ResponseFuture::ready(response),
            Answer::Deferred(deferred) => match tokio::runtime::Handle::try_current() {
                Ok(_) => ResponseFuture::later(deferred.finish_bounded()),
                Err(_) => ResponseFuture::ready(deferred.finish()),
            },
        }
    }

    /// The absolute URL path a page should link to for the catalog's file `path`: the mount
    /// point, then [`Catalog::url`] (the fingerprinted name with `fingerprint = true`),
    /// percent-encoded where a URL needs it; `None` when there is no such file, so a template
    /// can refuse a typo.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
    /// let service = bindery::serve::ServeCatalog::builder(&SITE).mounted_at("/static").build().unwrap();
    /// let url = service.url("style.css").unwrap();
    /// assert!(url.starts_with("/static/style.") && url.ends_with(".css"));
    /// let response = service.respond(&http::Request::get(&url).body(()).unwrap());
    /// assert_eq!(response.headers()["cache-control"], bindery::serve::cache_control::IMMUTABLE);
    /// assert!(service.url("with space.txt").unwrap().starts_with("/static/with%20space."));
    /// // A `?` in a name is escaped, else the rest of the name would be a query.
    /// let odd = service.url("question?.txt").unwrap();
    /// assert!(odd.starts_with("/static/question%3F."));
    /// assert_eq!(service.respond(&http::Request::get(&odd).body(()).unwrap()).status(), 200);
    /// assert_eq!(service.url("nope.css"), None);
    /// ```
    pub fn url(&self, path: &str) -> Option<String> {
        self.site.url(path)
    }

    /// The HTML that loads the bundler's entry points `names` (`manifest = "vite"`; names as
    /// the manifest keys them, such as `index.html` or `src/main.js`): an import map giving the
    /// integrity of every bundled script (so a lazily imported chunk is checked too), then the
    /// stylesheets, the `modulepreload`s and the module scripts they need, each once, with its
    /// `integrity` and `crossorigin`, at the URLs this service serves them. Put it in the
    /// page's `<head>`, before any other module script. An entry the manifest does not list is
    /// [`Error::NoEntry`], naming the ones it does. Beside Vite's dev server (a debug build,
    /// [`Builder::vite_dev_server`](super::Builder::vite_dev_server)), the tags load the dev
    /// server's client and the entries' sources instead.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// let service = bindery::serve::ServeCatalog::builder(&DIST).mounted_at("/static").build().unwrap();
    /// let html = service.entry_tags(&["index.html"]).unwrap();
    /// let lines: Vec<&str> = html.lines().collect();
    /// assert!(lines[0].starts_with(r#"<script type="importmap">{"integrity":{"/static/assets/index-Bq3xK9aZ.js":"sha384-"#));
    /// assert!(lines[1].starts_with(r#"<link rel="stylesheet" href="/static/assets/shared-Gh5sV3wY.css" integrity="sha384-"#));
    /// assert!(lines[3].starts_with(r#"<link rel="modulepreload" href="/static/assets/shared-DkTw81xQ.js""#));
    /// assert!(lines[4].starts_with(r#"<script type="module" src="/static/assets/index-Bq3xK9aZ.js""#));
    /// assert!(lines[4].ends_with(r#" crossorigin="anonymous"></script>"#));
    /// let error = service.entry_tags(&["src/main.js"]).unwrap_err();
    /// assert_eq!(error.to_string(), "no entry `src/main.js` in the catalog's bundler manifest (its entries: index.html)");
    /// ```
    pub fn entry_tags(&self, names: &[&str]) -> Result<String, Error> {
        #[cfg(all(feature = "dev", debug_assertions))]
        if let Some(dev) = self.dev_server() {
            return dev.tags(self.site.catalog, names);
        }
        let url = |path: &str| self.site.url(path);
        let map = self.import_map()?;
        crate::serve::setup::tags::entry_tags(self.site.catalog, &map, &url, names)
    }

    /// The `Link` header value that preloads what the entry points `names` need
    /// (`rel=preload; as=style` for stylesheets, `rel=modulepreload` for scripts, with
    /// `crossorigin` and `integrity` as [`entry_tags`](Self::entry_tags) writes them): sent
    /// with the page, it lets the browser, or a CDN that turns it into 103 Early Hints, fetch
    /// them before the HTML is parsed. Errors as `entry_tags`.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// let service = bindery::serve::ServeCatalog::new(&DIST);
    /// let link = service.entry_link_header(&["index.html"]).unwrap();
    /// assert!(link.starts_with("</assets/shared-Gh5sV3wY.css>; rel=preload; as=style; crossorigin; integrity=\"sha384-"));
    /// assert!(link.contains(", </assets/index-Bq3xK9aZ.js>; rel=modulepreload; crossorigin; integrity=\"sha384-"));
    /// ```
    pub fn entry_link_header(&self, names: &[&str]) -> Result<String, Error> {
        #[cfg(all(feature = "dev", debug_assertions))]
        if let Some(dev) = self.dev_server() {
            return dev.link(self.site.catalog, names);
        }
        let url = |path: &str| self.site.url(path);
        crate::serve::setup::tags::link_header(self.site.catalog, &url, names, true)
    }

    /// The CSP source (`'sha256-…'`) that allows the import map [`entry_tags`](Self::entry_tags)
    /// writes, for a `script-src` without `'unsafe-inline'`; `None` when the catalog has no
    /// bundled script (and so no import map).
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// let service = bindery::serve::ServeCatalog::new(&DIST);
    /// assert!(service.import_map_hash().unwrap().starts_with("'sha256-"));
    /// ```
    pub fn import_map_hash(&self) -> Option<String> {
        #[cfg(all(feature = "dev", debug_assertions))]
        if self.dev_server().is_some() {
            return None; // the dev server's tags have no import map
        }
        let map = self.import_map().ok()?;
        (!map.hash.is_empty()).then(|| map.hash.clone())
    }

    /// Vite's dev server the entry tags load from, in a debug build told of one.
    #[cfg(all(feature = "dev", debug_assertions))]
    pub(crate) fn dev_server(&self) -> Option<&crate::serve::setup::dev_server::DevServer> {
        self.site.dev_server.as_deref()
    }

    /// The import map: the one made with the service, or, for a dev catalog, one made now.
    fn import_map(
        &self,
    ) -> Result<std::borrow::Cow<'_, crate::serve::setup::tags::ImportMap>, Error> {
        if !self.site.catalog.is_dev() {
            return Ok(std::borrow::Cow::Borrowed(&self.site.import_map));
        }
        let url = |path: &str| self.site.url(path);
        crate::serve::setup::tags::ImportMap::new(self.site.catalog, &url)
            .map(std::borrow::Cow::Owned)
    }

    /// The catalog this service serves.
    pub fn catalog(&self) -> &'static Catalog {
        self.site.catalog
    }

    /// The path the catalog is served under, as [`Builder::mounted_at`](super::Builder::mounted_at) normalised it: a
    /// leading slash and no trailing one; `""` at the root.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::builder(&SITE).mounted_at("static/").build().unwrap();
    /// assert_eq!(service.mount_point(), "/static");
    /// assert_eq!(bindery::serve::ServeCatalog::new(&SITE).mount_point(), "");
    /// ```
    pub fn mount_point(&self) -> &str {
        &self.site.config.mount
    }

    /// Whether a request path is this service's to answer: the mount point itself or a path
    /// below it (`/static`, `/static/a.js`; not `/staticx`). A server with several mounted
    /// catalogs picks the one that covers the path.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::builder(&SITE).mounted_at("/static").build().unwrap();
    /// assert!(service.covers("/static") && service.covers("/static/a.js"));
    /// assert!(!service.covers("/staticx/a.js") && !service.covers("/a.js"));
    /// ```
    pub fn covers(&self, path: &str) -> bool {
        self.site.within_mount(path).is_some()
    }

    /// This service, with `page` (the application's own, rendered: a template with the
    /// entry's tags, say) as its SPA fallback: a browser navigation to a path that names no
    /// file (a deep link) gets the page with its headers, and so does every request for the
    /// mount point itself when the catalog has no index there (`curl /`, a health check), as the application's route for it sends them (a CSP with its
    /// scripts' hashes, `Link`), plus `no-cache`, `nosniff`, a strong ETag (304, `HEAD`) and
    /// `Vary: accept` (not for the mount point: its answer never varies). Paths under the folders of a bundler's hashed files (`assets/`) never
    /// fall back: a missing asset is a 404. The page is made once; render it again and call
    /// this again after a change (dev mode reads the catalog's files anew, not this page).
    ///
    /// ```
    /// use bindery::serve::{Page, ServeCatalog};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", exclude = "index.html");
    /// let page = Page::new("<!doctype html><div id=app></div>")
    ///     .header(http::header::CONTENT_SECURITY_POLICY, http::HeaderValue::from_static("default-src 'self'"));
    /// let service = ServeCatalog::builder(&SITE).build().unwrap().with_spa_page(page);
    /// let deep = http::Request::get("/some/route").header("accept", "text/html").body(()).unwrap();
    /// let answer = service.respond(&deep);
    /// assert_eq!(answer.status(), http::StatusCode::OK);
    /// assert_eq!(answer.headers()["content-security-policy"], "default-src 'self'");
    /// assert_eq!(answer.headers()["cache-control"], "no-cache");
    /// ```
    pub fn with_spa_page(self, page: Page) -> ServeCatalog {
        let chosen = self.page_as_file(&page);
        self.with_config(|config| config.fallback = Some(chosen))
    }

    /// This service, with `page` as its 404 page (sent with status 404 for every miss that
    /// does not fall back), with its headers, as [`with_spa_page`](Self::with_spa_page) says.
    pub fn with_not_found_page(self, page: Page) -> ServeCatalog {
        let chosen = self.page_as_file(&page);
        self.with_config(|config| config.not_found = Some(chosen))
    }

    /// `page` as a file the service serves, its headers prepared once.
    fn page_as_file(&self, page: &Page) -> Chosen {
        let file = page.leak_as_file(&self.site.config.index_file);
        let reserved = |name: &http::HeaderName| {
            crate::serve::setup::path_headers::is_written_by_the_service(name)
        };
        let extra: Box<[(http::HeaderName, http::HeaderValue)]> = page
            .headers()
            .iter()
            .filter(|(name, _)| !reserved(name))
            .cloned()
            .collect();
        let no_cache = |_: &crate::EmbeddedFile| http::HeaderValue::from_static(NO_CACHE);
        Chosen::Page(Arc::new(Prepared::new(file, &no_cache, extra)))
    }

    /// This service with `change` made to its setup (its bodies and counters shared).
    fn with_config(
        self,
        change: impl FnOnce(&mut crate::serve::setup::config::Config),
    ) -> ServeCatalog {
        let mut site = Site::clone(&self.site);
        change(&mut site.config);
        ServeCatalog {
            site: Arc::new(site),
            bodies: self.bodies,
        }
    }

    /// The service's counters: the decompressed-body cache, the bounded decompression, the
    /// byte budget of heap bodies.
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// let _ = service.respond(&http::Request::get("/index.html").body(()).unwrap());
    /// assert_eq!(service.stats().decompressions, 1);
    /// ```
    pub fn stats(&self) -> Stats {
        let cache = self
            .bodies
            .cache
            .as_ref()
            .map(|cache| cache.stats())
            .unwrap_or_default();
        let inflate = self.bodies.inflater.stats();
        let (heap_bytes, heap_peak, heap_refused, heap_budget) = self.bodies.budget.figures();
        Stats {
            cache_hits: cache.hits,
            cache_misses: cache.misses,
            cache_entries: cache.entries,
            cache_bytes: cache.bytes,
            cache_budget: cache.budget,
            decompressions: inflate.started,
            decompressions_merged: inflate.merged,
            decompressions_abandoned: inflate.abandoned,
            decompressions_refused: inflate.refused,
            decompressions_waiting: inflate.waiting,
            decompressions_running: inflate.in_flight,
            decompressions_peak: inflate.peak_in_flight,
            decompressed_bytes: inflate.bytes,
            heap_bytes,
            heap_peak,
            heap_budget,
            heap_per_client: self.bodies.budget.share(),
            heap_refused,
        }
    }
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
