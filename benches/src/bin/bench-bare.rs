//! The ceiling `cargo xtask bench-http` compares with: a bare axum router that answers a route
//! with a static body (`Bytes::from_static`: the 1 KiB text, vue.min.js, the 17 MiB file), on
//! the same runtime setup as `bench-server` (one worker thread, `TCP_NODELAY`), with none of
//! geo-server's layers.
//!
//! With `--geo` it also answers `/geo/<ip>` with geo-server's JSON for the address (the embedded
//! database and its answer cache, `GeoDb::lookup`) and nothing else: no validators, no caching
//! headers, no connection guards, no metrics. That is the floor of `/geo` on this stack: what
//! the answer costs before geo-server's layers add theirs.

use std::net::SocketAddr;

use axum::response::IntoResponse;
use axum::serve::ListenerExt;
use bindery_benches::{bare_route, embedded};
use clap::Parser;

/// Serve static bodies at `/small.txt`, `/vue.min.js` and `/noise.bin`.
#[derive(Debug, Parser)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Also answer `/geo/<ip>` from the embedded database, bare.
    #[arg(long)]
    geo: bool,
}

static SMALL: &[u8] = include_bytes!("../../assets/web/small.txt");
static VUE: &[u8] = include_bytes!("../../assets/web/vue.min.js");

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let large = embedded(&bindery_benches::LARGE_STATIC, "noise.bin");
        let mut router = axum::Router::new()
            .route("/small.txt", bare_route("text/plain; charset=utf-8", SMALL))
            .route(
                "/vue.min.js",
                bare_route("text/javascript; charset=utf-8", VUE),
            )
            .route("/noise.bin", bare_route("application/octet-stream", large));
        if args.geo {
            router = router.route("/geo/{ip}", geo()?);
        }
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening addr={}", listener.local_addr()?);
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
        anyhow::Ok(())
    })
}

/// `/geo/<ip>`: geo-server's JSON answer (English names) from the embedded database with its
/// default answer cache, 404 where the database has none, 400 for what is not an address.
fn geo() -> anyhow::Result<axum::routing::MethodRouter> {
    use geo_server::answer_cache::{DEFAULT_MIB, budget_from_mib};
    use http::StatusCode;
    let db = geo_server::db::GeoDb::embedded_with_hash(
        geodb::DATABASE,
        geodb::ORIGIN,
        geodb::DATABASE_BLAKE3,
    )?
    .with_answer_cache(budget_from_mib(DEFAULT_MIB));
    let db: &'static geo_server::db::GeoDb = Box::leak(Box::new(db));
    Ok(axum::routing::get(
        move |axum::extract::Path(ip): axum::extract::Path<String>| async move {
            let Ok(ip) = ip.parse() else {
                return StatusCode::BAD_REQUEST.into_response();
            };
            match db.lookup(ip, geo_server::language::Language::English) {
                Ok(Some(json)) => {
                    ([(http::header::CONTENT_TYPE, "application/json")], json).into_response()
                }
                Ok(None) => StatusCode::NOT_FOUND.into_response(),
                Err(_) => StatusCode::BAD_REQUEST.into_response(),
            }
        },
    ))
}
