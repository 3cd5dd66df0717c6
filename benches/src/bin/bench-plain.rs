//! What a user's crate serving embedded files looks like, and what `cargo xtask bench-nginx`
//! compares with nginx: `ServeCatalog` of the `static` bench catalogs under axum, nothing else
//! (no geo-server layers), on the runtime and listener the flags choose.
//!
//! `/web/vue.min.js` (105 KiB) and `/large/noise.bin` (17 MiB).

use std::net::SocketAddr;

use axum::serve::ListenerExt;
use bindery::serve::ServeCatalog;
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
        let app = axum::Router::new()
            .nest_service("/web", ServeCatalog::new(&bindery_benches::WEB_STATIC))
            .nest_service("/large", ServeCatalog::new(&bindery_benches::LARGE_STATIC));
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening addr={}", listener.local_addr()?);
        if args.zero_copy {
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
