//! The server `cargo xtask bench-http` loads: geo-server's app (its API and SPA, the database
//! embedded) plus the bench files in every mode under `/bench/<mode>/{web,large}/`, the
//! go-bindata way of serving the 17 MiB file (its gzip decompressed per request) under
//! `/bench/gobindata/large/`, and a 4 MiB gzip-stored JSON file decompressed on the blocking
//! pool (`/bench/gzip/text/`) or in place (`/bench/gzip-inline/text/`) for `bench-stall`.

use std::net::SocketAddr;
use std::time::Duration;

use bindery::serve::{Decompression, ServeCatalog};
use clap::Parser;
use geo_server::answer_cache::budget_from_mib;
use geo_server::db::{DbMode, GeoDb};
use geo_server::{AppState, app};

/// Serve geo-server plus the bench catalogs.
#[derive(Debug, Parser)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Where the GeoIP database lives: embed, copy or mmap (with --geodb).
    #[arg(long, value_enum, default_value_t = DbMode::Embed)]
    geodb_mode: DbMode,
    /// Seconds shutdown waits for responses in flight.
    #[arg(long, default_value_t = 1)]
    shutdown_grace: u64,
    /// MiB of rendered answers kept by database record, as geo-server's flag (0: off).
    #[arg(long, default_value_t = geo_server::answer_cache::DEFAULT_MIB)]
    answer_cache_mib: usize,
    /// Database file for mmap.
    #[arg(long, required_if_eq("geodb_mode", "mmap"))]
    geodb: Option<std::path::PathBuf>,
    /// Send embedded bodies with `sendfile` (`bindery::zerocopy`), as geo-server's flag.
    #[arg(long)]
    zero_copy: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let db = match (args.geodb_mode, &args.geodb) {
        // SAFETY: the bench database file is never modified while the server runs.
        (DbMode::Mmap, Some(path)) => unsafe { GeoDb::mapped(path) }?,
        (DbMode::Copy, _) => {
            GeoDb::copied_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?
        }
        _ => GeoDb::embedded_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?,
    };
    let state = AppState::new(db.with_answer_cache(budget_from_mib(args.answer_cache_mib)));
    let mut app = app(state).route(
        "/bench/gobindata/large/noise.bin",
        axum::routing::get(gobindata_large),
    );
    for (catalog, prefix, decompression) in mounts() {
        let service = ServeCatalog::builder(catalog)
            .mounted_at(prefix)
            .decompression(decompression)
            .build()
            .expect("nothing named");
        app = app.mount(service);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = bindery::serve::Server::bind(args.addr)
            .await?
            .shutdown_grace(Duration::from_secs(args.shutdown_grace))
            .zero_copy(args.zero_copy);
        println!("listening addr={}", server.local_addr()?);
        let app = app.request_timeout(Duration::from_secs(30));
        server
            .serve_per_connection(move |peer| app.for_peer(peer))
            .await?;
        anyhow::Ok(())
    })
}

/// Each catalog the benches read, where it is mounted and how it decompresses.
fn mounts() -> [(&'static bindery::Catalog, &'static str, Decompression); 9] {
    // The copy and go-bindata rows measure what copies cost: no byte budget stops them.
    let unbounded = Decompression {
        heap_budget: usize::MAX,
        ..Decompression::default()
    };
    let in_place = Decompression {
        off_thread_above: None,
        ..unbounded
    };
    [
        (&bindery_benches::WEB_STATIC, "/bench/static/web", unbounded),
        (&bindery_benches::WEB_GZIP, "/bench/gzip/web", unbounded),
        (&bindery_benches::WEB_COPY, "/bench/copy/web", unbounded),
        (
            &bindery_benches::WEB_PRECOMPRESSED,
            "/bench/precompressed/web",
            unbounded,
        ),
        (&bindery_benches::TEXT_GZIP, "/bench/gzip/text", unbounded),
        (
            &bindery_benches::TEXT_GZIP,
            "/bench/gzip-inline/text",
            in_place,
        ),
        (
            &bindery_benches::LARGE_STATIC,
            "/bench/static/large",
            unbounded,
        ),
        (&bindery_benches::LARGE_GZIP, "/bench/gzip/large", unbounded),
        (&bindery_benches::LARGE_COPY, "/bench/copy/large", unbounded),
    ]
}

/// What go-bindata does for every request: decompress the stored gzip into a fresh buffer.
async fn gobindata_large() -> Result<Vec<u8>, http::StatusCode> {
    use std::io::Read;
    let mut body = Vec::with_capacity(17 << 20);
    flate2::read::GzDecoder::new(bindery_benches::NOISE_GZIP)
        .read_to_end(&mut body)
        .map_err(|_| http::StatusCode::INTERNAL_SERVER_ERROR)?;
    Ok(body)
}
