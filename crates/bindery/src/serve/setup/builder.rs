//! Setting a service up: [`Builder`], whose [`build`](Builder::build) resolves every file it
//! was told of (the SPA's page, the 404 page, aliases) once, and refuses a name the catalog does
//! not have, with the names it has that come close.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, StatusCode};

use crate::serve::cache_control::NO_CACHE;
use crate::serve::service::ServeCatalog;
use crate::serve::setup::config::{Config, Decompression};
use crate::serve::setup::path_headers::{self};
use crate::{Catalog, EmbeddedFile};

mod resolve;

/// A policy of `Cache-Control` values by file.
type Policy = Box<dyn Fn(&EmbeddedFile) -> HeaderValue + Send + Sync>;

/// How a [`ServeCatalog`] is set up; made by [`ServeCatalog::builder`]. Each setter takes and
/// returns the builder; [`build`](Self::build) checks what they named.
///
/// ```
/// use bindery::serve::ServeCatalog;
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
///
/// let service = ServeCatalog::builder(&SITE)
///     .mounted_at("/static")
///     .not_found_file("index.html")
///     .build()
///     .unwrap();
/// let missing = service.respond(&http::Request::get("/static/no/such/page").body(()).unwrap());
/// assert_eq!(missing.status(), http::StatusCode::NOT_FOUND);
/// assert_eq!(missing.headers()["content-type"], "text/html; charset=utf-8");
///
/// // A typo is an error at start-up, naming what the catalog has.
/// let typo = ServeCatalog::builder(&SITE).spa_fallback("idnex.html").build().unwrap_err();
/// assert_eq!(typo.to_string(), r#"spa_fallback: the catalog has no file "idnex.html" (did you mean "index.html"?)"#);
/// ```
pub struct Builder {
    catalog: &'static Catalog,
    config: Config,
    fallback: Option<String>,
    not_found: Option<String>,
    aliases: Vec<(String, String)>,
    policy: Option<Policy>,
    decompression: Decompression,
    headers: path_headers::Given,
    /// `Content-Type` values by glob ([`content_type`](Self::content_type)).
    types: Vec<(String, String)>,
    /// The base `Content-Security-Policy` of HTML files, their inline scripts' hashes added.
    csp: Option<String>,
    /// Vite's dev server's origin as given ([`vite_dev_server`](Self::vite_dev_server)).
    #[cfg(feature = "dev")]
    dev_origin: Option<String>,
    /// The dev server [`build`](Self::build) resolved.
    #[cfg(all(feature = "dev", debug_assertions))]
    dev_server: Option<crate::serve::setup::dev_server::DevServer>,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = formatter.debug_struct("Builder");
        debug
            .field("config", &self.config)
            .field("fallback", &self.fallback)
            .field("not_found", &self.not_found)
            .field("aliases", &self.aliases)
            .field("decompression", &self.decompression);
        #[cfg(feature = "dev")]
        debug.field("vite_dev_server", &self.dev_origin);
        debug.finish_non_exhaustive()
    }
}

impl ServeCatalog {
    /// A service for `catalog` with the defaults: at the root, `index.html` for folders, no SPA
    /// fallback and no 404 page (misses get an empty 404), [`cache_control::default`]
    /// caching, no decompressed-body cache.
    ///
    /// [`cache_control::default`]: crate::serve::cache_control::default
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::new(&SITE);
    /// let response = service.respond(&http::Request::get("/hello.txt").body(()).unwrap());
    /// assert_eq!(response.into_body().into_bytes(), "Hello, bindery!\n");
    /// ```
    pub fn new(catalog: &'static Catalog) -> Self {
        Builder::defaults(catalog)
    }

    /// Sets up a service for `catalog`; [`Builder::build`] checks every file it names.
    pub fn builder(catalog: &'static Catalog) -> Builder {
        Builder::new(catalog)
    }
}

impl Builder {
    /// The longest raw request path accepted unless told otherwise ([`max_path_len`](Self::max_path_len)).
    pub const DEFAULT_MAX_PATH_LEN: usize = crate::serve::setup::config::DEFAULT_MAX_PATH_LEN;

    pub(crate) fn new(catalog: &'static Catalog) -> Builder {
        Builder {
            catalog,
            config: Config::default(),
            fallback: None,
            not_found: None,
            aliases: Vec::new(),
            policy: None,
            decompression: Decompression::default(),
            headers: Vec::new(),
            types: Vec::new(),
            csp: None,
            #[cfg(feature = "dev")]
            dev_origin: None,
            #[cfg(all(feature = "dev", debug_assertions))]
            dev_server: None,
        }
    }

    /// Serves the catalog under a path prefix, as axum's `Router::nest_service` would, but
    /// without rebuilding each request's URI: with `mounted_at("/static")`, `/static/app.js` is
    /// the catalog's `app.js`, `/static` redirects to `/static/`, and paths outside the prefix
    /// get 404. Redirects and the SPA fallback's [`no_fallback_prefix`](Self::no_fallback_prefix)
    /// see the whole path. `""` or `"/"` serves at the root (the default).
    pub fn mounted_at(mut self, prefix: &str) -> Self {
        let trimmed = prefix.trim_end_matches('/');
        self.config.mount = if trimmed.is_empty() || trimmed.starts_with('/') {
            trimmed.to_owned()
        } else {
            format!("/{trimmed}")
        };
        self
    }

    /// Answers a GET that matches no file with the catalog's file `path` when it is a browser
    /// navigation (its `Accept` names `text/html`), so client-side routes such as
    /// `/lookup/8.8.8.8` load the app. Scripts and images that are missing still get 404.
    /// Every response that depends on that choice (the page, and the 404 of a request that is
    /// not a navigation) says `Vary: Accept`, so a shared cache keeps them apart.
    pub fn spa_fallback(mut self, path: &str) -> Self {
        self.fallback = Some(path.to_owned());
        self
    }

    /// A path prefix that never falls back to the SPA (e.g. `/api/`): a miss there is a 404.
    pub fn no_fallback_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.config.no_fallback.push(prefix.into());
        self
    }

    /// Answers a request that finds nothing (and gets no SPA fallback) with the catalog's file
    /// `path`, e.g. `404.html`, with status 404 and that file's own headers: its
    /// `Content-Type`, `ETag`, caching policy and encodings.
    pub fn not_found_file(mut self, path: &str) -> Self {
        self.not_found = Some(path.to_owned());
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
    /// let service = bindery::serve::ServeCatalog::builder(&SITE).clean_urls(true).build().unwrap();
    ///
    /// assert_eq!(service.respond(&Request::get("/index").body(()).unwrap()).status(), StatusCode::OK);
    /// let old = service.respond(&Request::get("/index.html").body(()).unwrap());
    /// assert_eq!(old.status(), StatusCode::PERMANENT_REDIRECT);
    /// assert_eq!(old.headers()["location"], "/");
    /// ```
    pub fn clean_urls(mut self, enabled: bool) -> Self {
        self.config.clean_urls = enabled;
        self
    }

    /// Serves the catalog's file `to` at the path `from` too (both relative to the catalog,
    /// like its keys), with the same headers and ETag; a file at `from` itself is served
    /// first. [`build`](Self::build) refuses a `to` the catalog does not have.
    ///
    /// ```
    /// use http::{Request, StatusCode};
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::builder(&SITE).alias("greeting", "hello.txt").build().unwrap();
    ///
    /// let response = service.respond(&Request::get("/greeting").body(()).unwrap());
    /// assert_eq!(response.headers()["content-type"], "text/plain; charset=utf-8");
    /// ```
    pub fn alias(mut self, from: &str, to: &str) -> Self {
        self.aliases.push((from.to_owned(), to.to_owned()));
        self
    }

    /// The file served for a folder path such as `/` or `/docs/` (default `index.html`).
    pub fn index_file(mut self, name: impl Into<String>) -> Self {
        self.config.index_file = name.into();
        self
    }

    /// The longest raw request path accepted, in bytes ([`DEFAULT_MAX_PATH_LEN`](Self::DEFAULT_MAX_PATH_LEN)); longer paths get 400.
    pub fn max_path_len(mut self, max_path_len: usize) -> Self {
        self.config.max_path_len = max_path_len;
        self
    }

    /// Sets the `Cache-Control` policy: any function or closure of the file, called once per
    /// file when the service is built, not per request. A value that is not a valid header
    /// value falls back to [`NO_CACHE`].
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let max_age = 600;
    /// let service = bindery::serve::ServeCatalog::builder(&SITE)
    ///     .cache_control(move |file| match file.mime() {
    ///         "text/html" => "no-cache".to_owned(),
    ///         _ => format!("public, max-age={max_age}"),
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let response = service.respond(&http::Request::get("/style.css").body(()).unwrap());
    /// assert_eq!(response.headers()["cache-control"], "public, max-age=600");
    /// ```
    pub fn cache_control<F, V>(mut self, policy: F) -> Self
    where
        F: Fn(&EmbeddedFile) -> V + Send + Sync + 'static,
        V: AsRef<str>,
    {
        self.policy = Some(Box::new(move |file| {
            HeaderValue::try_from(policy(file).as_ref())
                .unwrap_or_else(|_| HeaderValue::from_static(NO_CACHE))
        }));
        self
    }

    /// Sends every HTML file with `Content-Security-Policy`: `policy`, with the hashes of that
    /// file's own inline scripts added to its `script-src` ([`Csp`](crate::serve::Csp); the catalog
    /// built with `script_hashes = true`, feature `csp`), so that a page keeps working under a
    /// policy without `'unsafe-inline'` and a script injected into it is refused. Made per file
    /// when the service is built. A policy [`headers`](Self::headers) sets for a file wins. A
    /// dev catalog's pages are sent without it: their files change on disk, and the build's
    /// hashes would refuse an edited inline script.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", script_hashes = true);
    /// let service = bindery::serve::ServeCatalog::builder(&DIST)
    ///     .content_security_policy("default-src 'self'; object-src 'none'")
    ///     .build()
    ///     .unwrap();
    /// let page = service.respond(&http::Request::get("/index.html").body(()).unwrap());
    /// assert_eq!(
    ///     page.headers()["content-security-policy"],
    ///     format!("default-src 'self'; object-src 'none'; script-src 'self' {}", DIST.script_hashes("index.html")[0])
    /// );
    /// let icon = service.respond(&http::Request::get("/favicon.svg").body(()).unwrap());
    /// assert!(icon.headers().get("content-security-policy").is_none());
    /// ```
    pub fn content_security_policy(mut self, policy: impl Into<String>) -> Self {
        self.csp = Some(policy.into());
        self
    }

    /// Adds `headers` to the answers for every file whose catalog path matches `glob` (the
    /// build's glob syntax: `*` crosses `/`, `**` any depth): security headers, CORS, a
    /// `Link` preload. Resolved per file when the service is built, not per request; sent with
    /// 200, 206, 304 and the 404 page, not with errors. Several matching globs add up in the
    /// order given, and a header that a later one names replaces the earlier one's values. A
    /// bad glob, name or value, or a header the service writes itself (`Content-Type`, `ETag`,
    /// `Cache-Control`: see [`cache_control`](Self::cache_control), …), is a [`BuildError`](crate::serve::BuildError).
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::builder(&SITE)
    ///     .headers("**", [("strict-transport-security", "max-age=63072000")])
    ///     .headers("*.html", [("content-security-policy", "default-src 'self'")])
    ///     .headers("fonts/**", [("access-control-allow-origin", "*")])
    ///     .build()
    ///     .unwrap();
    /// let page = service.respond(&http::Request::get("/index.html").body(()).unwrap());
    /// assert_eq!(page.headers()["content-security-policy"], "default-src 'self'");
    /// assert_eq!(page.headers()["strict-transport-security"], "max-age=63072000");
    ///
    /// let owned = bindery::serve::ServeCatalog::builder(&SITE).headers("**", [("etag", "\"x\"")]);
    /// assert!(owned.build().unwrap_err().to_string().contains("writes it itself"));
    /// ```
    pub fn headers<I, N, V>(mut self, glob: &str, headers: I) -> Self
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<str>,
        V: AsRef<str>,
    {
        let headers = headers
            .into_iter()
            .map(|(name, value)| (name.as_ref().to_owned(), value.as_ref().to_owned()))
            .collect();
        self.headers.push((glob.to_owned(), headers));
        self
    }

    /// Sends `media_type` as the `Content-Type` of every file whose catalog path matches `glob`
    /// (the build's glob syntax), over the type the catalog recorded: for a catalog you do not
    /// build yourself, or a type that differs by deployment. The last matching rule wins. The
    /// build's `types` option records a type in the catalog itself, for every door, dev mode
    /// and overlays alike; prefer it when you build the catalog. A value that is not a media
    /// type is a [`BuildError`](crate::serve::BuildError).
    ///
    /// ```
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::builder(&SITE)
    ///     .content_type("notes.unknownext", "text/markdown; charset=utf-8")
    ///     .build()
    ///     .unwrap();
    /// let notes = service.respond(&http::Request::get("/notes.unknownext").body(()).unwrap());
    /// assert_eq!(notes.headers()["content-type"], "text/markdown; charset=utf-8");
    ///
    /// let bad = bindery::serve::ServeCatalog::builder(&SITE).content_type("**", "json");
    /// assert!(bad.build().unwrap_err().to_string().contains("not a media type"));
    /// ```
    pub fn content_type(mut self, glob: &str, media_type: &str) -> Self {
        self.types.push((glob.to_owned(), media_type.to_owned()));
        self
    }

    /// How gzip-stored files are decompressed for clients without gzip, and the byte budget
    /// of heap bodies: see [`Decompression`].
    pub fn decompression(mut self, settings: Decompression) -> Self {
        self.decompression = settings;
        self
    }

    /// The body of error answers (400, 404 without a 404 page, 405, 412, 416, 500, 503), from
    /// the status and the reason bindery gives: its `Content-Type` and bytes. Without it they
    /// have none (`Content-Length: 0`).
    ///
    /// ```
    /// use http::HeaderValue;
    /// # static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let service = bindery::serve::ServeCatalog::builder(&SITE)
    ///     .error_body(|status, reason| {
    ///         let json = format!(r#"{{"error":"{reason}","status":{}}}"#, status.as_u16());
    ///         (HeaderValue::from_static("application/json"), json.into())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let missing = service.respond(&http::Request::get("/nope").body(()).unwrap());
    /// assert_eq!(missing.into_body().into_bytes(), r#"{"error":"not found","status":404}"#);
    /// ```
    pub fn error_body<F>(mut self, hook: F) -> Self
    where
        F: Fn(StatusCode, &'static str) -> (HeaderValue, Bytes) + Send + Sync + 'static,
    {
        self.config.error_body = Some(Arc::new(hook));
        self
    }

    /// Lays a folder over the catalog (feature `overlay`): each request looks there first
    /// or last, as the overlay's [`Order`](crate::overlay::Order) says. Files found there are
    /// served as identity, `no-cache`, with ETags from their bytes.
    ///
    /// ```
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    /// let custom = tempfile::tempdir().unwrap();
    /// let overlay = bindery::overlay::Overlay::new(&SITE, custom.path()).unwrap();
    /// let service = bindery::serve::ServeCatalog::builder(&SITE).overlay(overlay).build().unwrap();
    /// # drop(service);
    /// ```
    #[cfg(feature = "overlay")]
    pub fn overlay(mut self, overlay: crate::overlay::Overlay) -> Self {
        self.config.overlay = Some(overlay);
        self
    }

    /// Vite's dev server at `origin`, in debug builds (`VITE_DEV_SERVER` does the same; this
    /// wins): [`entry_tags`](ServeCatalog::entry_tags) load Vite's client and the entries'
    /// sources from it, hot-updated, and [`Csp::entry_tags`](crate::serve::Csp::entry_tags)
    /// allows it. Vite's `base` is the mount point. Ignored in release builds, which hold no
    /// dev code. Not an origin: a [`BuildError`](crate::serve::BuildError).
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// let service = bindery::serve::ServeCatalog::builder(&DIST)
    ///     .vite_dev_server("http://127.0.0.1:5173")
    ///     .build()
    ///     .unwrap();
    /// let tags = service.entry_tags(&["index.html"]).unwrap();
    /// let dev = DIST.is_dev(); // the `dev` feature, in a debug build
    /// assert_eq!(tags.contains(r#"src="http://127.0.0.1:5173/src/main.js""#), dev);
    /// let bad = bindery::serve::ServeCatalog::builder(&DIST).vite_dev_server("localhost:5173");
    /// assert_eq!(bad.build().is_err(), dev);
    /// ```
    #[cfg(feature = "dev")]
    pub fn vite_dev_server(mut self, origin: &str) -> Self {
        self.dev_origin = Some(origin.to_owned());
        self
    }
}
