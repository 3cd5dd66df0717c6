//! Serving a [`Catalog`](crate::Catalog) over HTTP: [`ServeCatalog`], a tower `Service` (and the
//! core of the actix-web and rocket adapters) with what users expect of a static server.
//!
//! GET and HEAD; `Content-Type`, `Content-Length`, strong `ETag` per representation,
//! `Last-Modified` when the catalog carries times, `Cache-Control`, `Vary: Accept-Encoding`,
//! `Accept-Ranges`; the preconditions of RFC 9110 (304, 412); ranges (206, `multipart/byteranges`
//! of slices, 416; `If-Range`); content negotiation over the file's precompressed
//! representations (brotli, zstd, gzip: the highest q-value, ties to the smallest), each sent as
//! stored with its own ETag; `index.html` for folders; an optional SPA fallback for browser
//! navigations, a 404 page, clean URLs and aliases; paths that could step outside the catalog
//! refused with 400. Headers by path, a `Content-Security-Policy` per HTML file with its inline
//! scripts' hashes ([`Csp`]), and for a catalog of Vite's output the tags and `Link` preloads
//! of its entry points ([`ServeCatalog::entry_tags`]).
//!
//! Bodies of `static` files are slices of the binary: no copy, no allocation.
//!
//! ```
//! use bindery::serve::ServeCatalog;
//! use http::{Request, StatusCode};
//!
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! let service = ServeCatalog::builder(&SITE)
//!     .spa_fallback("index.html")
//!     .no_fallback_prefix("/api/")
//!     .build()
//!     .unwrap();
//! let request = Request::get("/style.css").header("accept-encoding", "gzip").body(()).unwrap();
//! let response = service.respond(&request);
//! assert_eq!(response.status(), StatusCode::OK);
//! assert_eq!(response.headers()["content-encoding"], "gzip");
//! assert_eq!(response.headers()["vary"], "accept-encoding");
//! ```
//!
//! With axum: `Router::new().route("/api/...", ...).fallback_service(service)`, served by
//! [`Server`] (feature `server`: deadlines for every phase of a connection, HTTP/2 limits, a fair
//! connection cap, `TCP_NODELAY`, graceful shutdown) or by `axum::serve`, which bounds none of
//! those and leaves `TCP_NODELAY` off (small-file throughput then waits on delayed ACKs).
//!
//! Two levels: the public types here (one file each), and three folders behind them.
//! `setup/` is what [`Builder`] resolves once; `stages/` is a line of stages over plain data,
//! run per request ([`RequestHead`] in; `decide` makes an `Outcome` from the site and the
//! request; `response` its status and headers; `bodies` its body: lent, cached, inflated
//! within bounds, or copied; out through [`ServeCatalog`]); `http/` holds the rules the stages
//! apply (ranges, negotiation, paths). `server/` is [`Server`]'s own.

mod body;
pub mod cache_control;
pub mod conditional;
pub mod future;
mod head;
mod http;
mod not_found;
mod page;
#[cfg(feature = "livereload")]
mod reload;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
mod service;
mod setup;
mod stages;
mod stats;

pub use body::Body;
pub use head::RequestHead;
pub use not_found::NotFoundService;
pub use page::Page;
#[cfg(all(feature = "livereload", debug_assertions))]
#[cfg_attr(docsrs, doc(cfg(feature = "livereload")))]
pub use reload::DevHtml;
#[cfg(feature = "livereload")]
#[cfg_attr(docsrs, doc(cfg(feature = "livereload")))]
pub use reload::LiveReload;
#[cfg(feature = "server")]
pub use server::Server;
pub use service::ServeCatalog;
pub use setup::build_error::BuildError;
pub use setup::builder::Builder;
pub use setup::config::Decompression;
pub use setup::csp::Csp;
pub use stats::Stats;

#[cfg(feature = "minijinja")]
pub(crate) use setup::build_error::suggestion;
