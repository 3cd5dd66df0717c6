//! The ceiling `cargo xtask bench-http` compares with: a bare axum router that answers a route
//! with a static body (`Bytes::from_static`: the 1 KiB text, vue.min.js, the 17 MiB file), on
//! the same runtime setup as `bench-server` (one worker thread, `TCP_NODELAY`), with none of
//! geo-server's layers.

use std::net::SocketAddr;

use axum::serve::ListenerExt;
use clap::Parser;

/// Serve static bodies at `/small.txt`, `/vue.min.js` and `/noise.bin`.
#[derive(Debug, Parser)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
}

static SMALL: &[u8] = include_bytes!("../../assets/web/small.txt");
static VUE: &[u8] = include_bytes!("../../assets/web/vue.min.js");

/// A static body with its media type.
fn body(content_type: &'static str, bytes: &'static [u8]) -> axum::routing::MethodRouter {
    axum::routing::get(move || async move {
        (
            [(http::header::CONTENT_TYPE, content_type)],
            bytes::Bytes::from_static(bytes),
        )
    })
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let large = bindery_benches::LARGE_STATIC
            .file("noise.bin")
            .and_then(bindery::EmbeddedFile::raw)
            .unwrap_or_default();
        let router = axum::Router::new()
            .route("/small.txt", body("text/plain; charset=utf-8", SMALL))
            .route("/vue.min.js", body("text/javascript; charset=utf-8", VUE))
            .route("/noise.bin", body("application/octet-stream", large));
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening addr={}", listener.local_addr()?);
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
        anyhow::Ok(())
    })
}
