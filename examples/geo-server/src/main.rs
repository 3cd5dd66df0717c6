//! `geo-server`: parse flags, load the database, serve until SIGINT or SIGTERM.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use geo_server::cli::Args;
use geo_server::db::{DbMode, GeoDb};
use geo_server::server::{self, Limits};
use geo_server::{AppState, app, reload};

/// The server counts its heap (`/metrics`, the start-up log): the copy mode's cost made visible.
/// Declared by the binary, not the library, so benches and fuzz targets that link the library
/// keep the plain system allocator unless they opt in.
#[global_allocator]
static ALLOCATOR: geo_server::alloc::CountingAllocator = geo_server::alloc::CountingAllocator;

fn main() -> ExitCode {
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
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("geo-server: {error:#}");
            ExitCode::FAILURE
        }
    }
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
        // SAFETY: `--geodb` is documented (README, --help) as replaced only by an atomic
        // rename, never written in place, while the server runs.
        (DbMode::Mmap, Some(path)) => unsafe { GeoDb::mapped(path) }?,
        (DbMode::Mmap, None) => anyhow::bail!("--geodb-mode mmap needs --geodb PATH"),
    };
    Ok(db)
}

/// The database's build time as an HTTP date, e.g. `Tue, 03 Jul 2018 21:26:56 GMT`.
fn build_date(epoch: u64) -> String {
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + Duration::from_secs(epoch))
}

fn run(args: Args) -> anyhow::Result<()> {
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
        answer_cache_bytes,
        "database loaded"
    );
    let mut state = AppState::new(db);
    state.trust_proxy = args.trust_proxy;
    state.geo_caching = geo_server::caching::GeoCaching::new(args.geo_max_age);
    let limits = Limits {
        header_read_timeout: Duration::from_secs(args.header_read_timeout),
        request_timeout: Duration::from_secs(args.request_timeout),
        shutdown_grace: Duration::from_secs(args.shutdown_grace),
    };
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let listener = server::bind(args.addr)
            .await
            .map_err(|error| anyhow::anyhow!("cannot listen on {}: {error}", args.addr))?;
        tracing::info!(addr = %listener.local_addr()?, "listening");
        tokio::spawn(reload::watch(
            Arc::clone(&state.db),
            Duration::from_secs(args.reload_poll.max(1)),
        ));
        server::serve(listener, app(state), limits, server::shutdown_signal()).await?;
        Ok(())
    })
}
