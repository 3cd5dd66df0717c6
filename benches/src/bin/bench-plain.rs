//! What a user's crate serving embedded files looks like, and what `cargo xtask bench-nginx`
//! compares with nginx: `ServeCatalog` of the `static` bench catalogs under axum, nothing else
//! (no geo-server layers), on the runtime and listener the flags choose.
//!
//! `/web/small.txt` (1 KiB), `/web/vue.min.js` (105 KiB) and `/large/noise.bin` (17 MiB).
//!
//! `--handler` swaps `ServeCatalog` for the floors it is measured against: the same bytes from
//! a bare axum handler (`Bytes::from_static`, a media type, nothing else), or from a bare hyper
//! connection with no axum either. What a floor costs, nothing built on that stack can undercut.

use std::net::SocketAddr;

use axum::serve::ListenerExt;
use bindery::serve::ServeCatalog;
use bindery_benches::{bare_route, embedded};
use clap::Parser;

/// Serve the static bench catalogs the way a user's crate would.
#[derive(Debug, Parser)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// `axum::serve(ZeroCopyListener::new(listener), app)` instead of the plain listener.
    #[arg(long)]
    zero_copy: bool,
    /// With --zero-copy: embedded bodies of this many bytes or more go by `sendfile`.
    #[arg(long, default_value_t = bindery::zerocopy::DEFAULT_THRESHOLD)]
    threshold: usize,
    /// The tokio runtime: `multi-thread` is `#[tokio::main]`'s, `current-thread` one thread.
    #[arg(long, value_enum, default_value_t = Flavor::MultiThread)]
    runtime: Flavor,
    /// Worker threads of the multi-thread runtime (default: one per core, as `#[tokio::main]`).
    #[arg(long)]
    workers: Option<usize>,
    /// What answers: `ServeCatalog`, or one of the floors without it.
    #[arg(long, value_enum, default_value_t = Handler::ServeCatalog)]
    handler: Handler,
    /// The serve loop: `axum::serve`, or `bindery::serve::Server` with its defaults.
    #[arg(long, value_enum, default_value_t = Loop::Axum)]
    server: Loop,
}

/// Which loop accepts and serves the connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Loop {
    /// `axum::serve` (`TCP_NODELAY` by `tap_io`, or `ZeroCopyListener`).
    Axum,
    /// `bindery::serve::Server`: deadlines, HTTP/2 limits, the fair cap (`.zero_copy(true)`
    /// with --zero-copy).
    Bindery,
}

/// What answers the requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Handler {
    /// `ServeCatalog` of the catalogs, as a user's crate serves them: each under its prefix
    /// with axum's `nest_service`.
    ServeCatalog,
    /// `ServeCatalog` under its prefix by its own `mounted_at`, the router's fallback (the
    /// 17 MiB file's catalog by a wildcard route): no `nest_service`, whose URI rebuild and
    /// boxed clone cost every request.
    ServeCatalogMounted,
    /// An axum route per file that returns its bytes with a media type: no validators, no
    /// ranges, no negotiation.
    BareAxum,
    /// The same routes answering with the head `ServeCatalog` sends for the file (its ETag,
    /// `Cache-Control`, `Accept-Ranges`, `nosniff`), as constants: what the bytes of that head
    /// cost, without any decision.
    BareAxumSameHead,
    /// hyper's HTTP/1 connection with a `service_fn` that matches the path: no axum, no
    /// protocol detection.
    BareHyper,
}

/// A tokio runtime flavour.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Flavor {
    MultiThread,
    CurrentThread,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut builder = match args.runtime {
        Flavor::MultiThread => tokio::runtime::Builder::new_multi_thread(),
        Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
    };
    if let Some(workers) = args.workers {
        builder.worker_threads(workers);
    }
    let runtime = builder.enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening addr={}", listener.local_addr()?);
        let app = match args.handler {
            Handler::ServeCatalog => axum::Router::new()
                .nest_service("/web", ServeCatalog::new(&bindery_benches::WEB_STATIC))
                .nest_service("/large", ServeCatalog::new(&bindery_benches::LARGE_STATIC)),
            Handler::ServeCatalogMounted => {
                let mounted = |catalog, prefix| {
                    ServeCatalog::builder(catalog)
                        .mounted_at(prefix)
                        .build()
                        .expect("a catalog without fallbacks builds")
                };
                axum::Router::new()
                    .route_service(
                        "/large/{*path}",
                        mounted(&bindery_benches::LARGE_STATIC, "/large"),
                    )
                    .fallback_service(mounted(&bindery_benches::WEB_STATIC, "/web"))
            }
            Handler::BareAxum => FILES.iter().fold(axum::Router::new(), |app, file| {
                app.route(file.path, bare_route(file.content_type, (file.bytes)()))
            }),
            Handler::BareAxumSameHead => FILES.iter().fold(axum::Router::new(), |app, file| {
                app.route(file.path, same_head_route(file))
            }),
            Handler::BareHyper => return bare_hyper(listener, &args).await,
        };
        if args.server == Loop::Bindery {
            // The zero-copy threshold stays the default here: `Server` takes none.
            let server = bindery::serve::Server::new(listener).zero_copy(args.zero_copy);
            server.serve(app).await?;
        } else if args.zero_copy {
            let listener =
                bindery::zerocopy::ZeroCopyListener::new(listener).threshold(args.threshold);
            axum::serve(listener, app).await?;
        } else {
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, app).await?;
        }
        anyhow::Ok(())
    })
}

/// A file the floors serve: the same bytes `ServeCatalog` serves at the same path.
struct File {
    path: &'static str,
    content_type: &'static str,
    bytes: fn() -> &'static [u8],
    /// Its ETag, as the catalog has it.
    etag: fn() -> &'static str,
}

/// `file`'s bytes with the head `ServeCatalog` sends for it (ETag, `Cache-Control: no-cache`,
/// `Accept-Ranges`, `X-Content-Type-Options`), every value a constant.
fn same_head_route(file: &File) -> axum::routing::MethodRouter {
    use http::HeaderValue;
    use http::header::{ACCEPT_RANGES, CACHE_CONTROL, CONTENT_TYPE, ETAG, X_CONTENT_TYPE_OPTIONS};
    let bytes = (file.bytes)();
    let head = [
        (ETAG, HeaderValue::from_static((file.etag)())),
        (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (CONTENT_TYPE, HeaderValue::from_static(file.content_type)),
        (ACCEPT_RANGES, HeaderValue::from_static("bytes")),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
    ];
    axum::routing::get(move || {
        let head = head.clone();
        async move { (head, bytes::Bytes::from_static(bytes)) }
    })
}

const FILES: [File; 3] = [
    File {
        path: "/web/small.txt",
        content_type: "text/plain; charset=utf-8",
        bytes: || embedded(&bindery_benches::WEB_STATIC, "small.txt"),
        etag: || etag(&bindery_benches::WEB_STATIC, "small.txt"),
    },
    File {
        path: "/web/vue.min.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: || embedded(&bindery_benches::WEB_STATIC, "vue.min.js"),
        etag: || etag(&bindery_benches::WEB_STATIC, "vue.min.js"),
    },
    File {
        path: "/large/noise.bin",
        content_type: "application/octet-stream",
        bytes: || embedded(&bindery_benches::LARGE_STATIC, "noise.bin"),
        etag: || etag(&bindery_benches::LARGE_STATIC, "noise.bin"),
    },
];

/// The ETag of `name` in `catalog`, empty if it has none.
fn etag(catalog: &'static bindery::Catalog, name: &str) -> &'static str {
    catalog.file(name).map_or("", bindery::EmbeddedFile::etag)
}

/// hyper alone: one HTTP/1 connection task per accepted stream (`TCP_NODELAY`, zero-copy if
/// asked), a `service_fn` that finds the file by path.
async fn bare_hyper(mut listener: tokio::net::TcpListener, args: &Args) -> anyhow::Result<()> {
    use hyper_util::rt::TokioIo;
    let service = hyper::service::service_fn(|request: hyper::Request<hyper::body::Incoming>| {
        let found = FILES.iter().find(|file| file.path == request.uri().path());
        let response = match found {
            Some(file) => {
                let body = bytes::Bytes::from_static((file.bytes)());
                http::Response::builder()
                    .header(http::header::CONTENT_TYPE, file.content_type)
                    .body(http_body_util::Full::new(body))
            }
            None => http::Response::builder()
                .status(http::StatusCode::NOT_FOUND)
                .body(http_body_util::Full::default()),
        };
        std::future::ready(response)
    });
    loop {
        // axum's accept, as `ZeroCopyListener` takes it: a failed accept is tried again.
        let (tcp, _) = axum::serve::Listener::accept(&mut listener).await;
        let _ = tcp.set_nodelay(true);
        let (zero_copy, threshold) = (args.zero_copy, args.threshold);
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new();
            let _ = if zero_copy {
                let io = bindery::zerocopy::ZeroCopyStream::with_threshold(tcp, threshold);
                connection.serve_connection(TokioIo::new(io), service).await
            } else {
                connection
                    .serve_connection(TokioIo::new(tcp), service)
                    .await
            };
        });
    }
}
