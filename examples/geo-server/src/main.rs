//! `geo-server`: parse flags, load the database, serve until SIGINT or SIGTERM.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bindery::serve::Server;
use clap::Parser;
use geo_server::cli::Args;
use geo_server::db::{DbMode, GeoDb};
use geo_server::private_copy::PrivateCopy;
use geo_server::{AppState, admin_router, app, reload};

/// The server counts its heap (`/metrics`, the start-up log): the copy mode's cost made visible.
/// Declared by the binary, not the library, so benches and fuzz targets that link the library
/// keep the plain system allocator unless they opt in.
#[global_allocator]
static ALLOCATOR: geo_server::alloc::CountingAllocator = geo_server::alloc::CountingAllocator;

fn main() -> ExitCode {
    let workers = worker_threads();
    geo_server::alloc::configure_allocator(workers);
    let args = match Args::try_parse().and_then(check_usage) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(error.exit_code() as u8);
        }
    };
    let filter =
        tracing_subscriber::EnvFilter::try_new(&args.log).unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt().with_env_filter(filter).init();
    match run(args, workers) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("geo-server: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The runtime's worker threads, as tokio counts them by default: `TOKIO_WORKER_THREADS`, else
/// one per available core. Counted once, so that the allocator is set up for the same number.
fn worker_threads() -> usize {
    std::env::var("TOKIO_WORKER_THREADS")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .filter(|&count| count > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
}

/// Flag combinations clap cannot express: a usage error (exit status 2) like any other.
fn check_usage(args: Args) -> Result<Args, clap::Error> {
    if args.geodb_mode == DbMode::Embed && args.geodb.is_some() {
        return Err(<Args as clap::CommandFactory>::command().error(
            clap::error::ErrorKind::ArgumentConflict,
            "--geodb is for --geodb-mode copy or mmap; embed uses the built-in database",
        ));
    }
    Ok(args)
}

fn load(args: &Args) -> anyhow::Result<GeoDb> {
    let db = match (args.geodb_mode, &args.geodb) {
        (DbMode::Embed, _) => {
            GeoDb::embedded_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?
        }
        (DbMode::Copy, None) => {
            GeoDb::copied_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?
        }
        (DbMode::Copy, Some(path)) => GeoDb::copied_from_file(path)?,
        // SAFETY: `--geodb-copy off` is documented (README, --help) as promising that the file
        // is replaced only by an atomic rename, never written in place, while the server runs.
        (DbMode::Mmap, Some(path)) if args.geodb_copy == PrivateCopy::Off => {
            unsafe { GeoDb::mapped(path) }?
        }
        (DbMode::Mmap, Some(path)) => GeoDb::mapped_copy(path, args.geodb_copy)?,
        (DbMode::Mmap, None) => anyhow::bail!("--geodb-mode mmap needs --geodb PATH"),
    };
    Ok(db)
}

/// The database's build time as an HTTP date, e.g. `Tue, 03 Jul 2018 21:26:56 GMT`.
fn build_date(epoch: u64) -> String {
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + Duration::from_secs(epoch))
}

fn run(args: Args, workers: usize) -> anyhow::Result<()> {
    let answer_cache_bytes = geo_server::answer_cache::budget_from_mib(args.answer_cache_mib);
    let db = load(&args)?.with_answer_cache(answer_cache_bytes);
    let info = db.info();
    tracing::info!(
        mode = info.mode.as_str(),
        origin = %info.origin,
        database_type = %info.database_type,
        build_epoch = info.build_epoch,
        build_date = %build_date(info.build_epoch),
        size = info.size,
        load_ms = info.load_time.as_secs_f64() * 1000.0,
        reader_heap_bytes = info.reader_heap_bytes,
        jump_table_bytes = info.jump_table_bytes,
        private_copy = info.private_copy.map_or("none", PrivateCopy::as_str),
        answer_cache_bytes,
        "database loaded"
    );
    let trusted = args
        .trust_proxy
        .clone()
        .unwrap_or_default()
        .reading(args.trust_proxy_header);
    let mut state = AppState::new(db);
    state.trusted_proxies = trusted.clone();
    state.geo_caching = geo_server::caching::GeoCaching::new(args.geo_max_age);
    state.metrics_public = args.public_metrics;
    if let Some(folder) = &args.spa_overlay {
        state.spa_overlay = Some(bindery::overlay::Overlay::new(&geo_server::SPA, folder)?);
        tracing::info!(folder = %folder.display(), "the app's files are overlaid");
    }
    // `Server` logs the connection limits in force when it starts.
    tracing::info!(
        public_metrics = args.public_metrics,
        trusted_proxies = ?state.trusted_proxies.ranges(),
        "limits"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let mut server = with_deadlines(bound(args.addr).await?, &args)
            .trusted_proxies(trusted)
            .zero_copy(args.zero_copy);
        if let Some(cap) = args.max_connections {
            server = server.max_connections(usize::try_from(cap).unwrap_or(usize::MAX));
        }
        if let Some(cap) = args.max_connections_per_client {
            server = server.max_connections_per_client(cap);
        }
        tracing::info!(addr = %server.local_addr()?, "listening");
        state.connections = server.counters();
        tokio::spawn(reload::watch(
            Arc::clone(&state.db),
            Duration::from_secs(args.reload_poll),
        ));
        if let Some(admin_addr) = args.admin_addr {
            serve_admin(admin_addr, &state, &args).await?;
        }
        let app = app(state).request_timeout(Duration::from_secs(args.request_timeout));
        server
            .serve_per_connection(move |peer| app.for_peer(peer))
            .await?;
        Ok(())
    })
}

/// A server on `addr`, or an error that names it.
async fn bound(addr: std::net::SocketAddr) -> anyhow::Result<Server> {
    Server::bind(addr)
        .await
        .map_err(|error| anyhow::anyhow!("cannot listen on {addr}: {error}"))
}

/// `server` with the deadlines of the flags.
fn with_deadlines(server: Server, args: &Args) -> Server {
    server
        .header_read_timeout(Duration::from_secs(args.header_read_timeout))
        .idle_timeout(Duration::from_secs(args.idle_timeout))
        .shutdown_grace(Duration::from_secs(args.shutdown_grace))
}

/// Starts the admin listener (`/metrics`, `/healthz`) on `addr`, with its own small cap: a
/// flood of the public port never locks out the scraper.
async fn serve_admin(
    addr: std::net::SocketAddr,
    state: &AppState,
    args: &Args,
) -> anyhow::Result<()> {
    let admin = with_deadlines(bound(addr).await?, args)
        .max_connections(64)
        .with_graceful_shutdown(std::future::pending());
    tracing::info!(addr = %admin.local_addr()?, "admin listening");
    let router = admin_router(state.clone());
    tokio::spawn(async move {
        if let Err(error) = admin.serve(router).await {
            tracing::error!(%error, "admin listener failed");
        }
    });
    Ok(())
}
