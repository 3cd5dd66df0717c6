//! The ceiling `cargo xtask bench-http` compares with: a bare axum router that answers one
//! route with a static 1 KiB body (`Bytes::from_static`), on the same runtime setup as
//! `bench-server` (one worker thread, `TCP_NODELAY`), with none of geo-server's layers.

use std::net::SocketAddr;

use axum::serve::ListenerExt;
use clap::Parser;

/// Serve one static 1 KiB body at `/small.txt`.
#[derive(Debug, Parser)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
}

static SMALL: &[u8] = include_bytes!("../../assets/web/small.txt");

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let router = axum::Router::new().route(
            "/small.txt",
            axum::routing::get(|| async {
                (
                    [(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    bytes::Bytes::from_static(SMALL),
                )
            }),
        );
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening addr={}", listener.local_addr()?);
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
        anyhow::Ok(())
    })
}
