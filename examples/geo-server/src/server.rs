//! Accepting connections: `TCP_NODELAY`, a header-read timeout, a request timeout, and a graceful
//! shutdown in which requests in flight finish.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::front::App;

/// Limits of the connection handling.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How long a client may take to send the request head (slowloris guard).
    pub header_read_timeout: Duration,
    /// How long one request may take before it is answered with 408.
    pub request_timeout: Duration,
    /// How long shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then stops accepting and waits up to
/// the grace period for open connections to finish their requests.
pub async fn serve(
    listener: TcpListener,
    app: App,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let app = app.request_timeout(limits.request_timeout);
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    builder.http2().timer(TokioTimer::new());
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small responses must not wait for delayed ACKs (BENCHMARKS.md, "HTTP under load").
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let app = app.clone();
        let builder = builder.clone();
        let watcher = graceful.watcher();
        let first_byte_timeout = limits.header_read_timeout;
        tokio::spawn(async move {
            // hyper's header timer starts at the first byte: a client that connects and sends
            // nothing would hold the connection forever. Give it the same time as a slow head.
            // `peek` waits for data (or EOF); `readable` may report spurious readiness.
            let mut first = [0u8; 1];
            if tokio::time::timeout(first_byte_timeout, stream.peek(&mut first))
                .await
                .is_err()
            {
                tracing::debug!(%peer, "idle connection closed: no request within the header timeout");
                return;
            }
            // One `App` per connection, borrowed by each request: no clone per request.
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                app.call_from(request, Some(peer))
            });
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            if let Err(error) = watcher.watch(connection.into_owned()).await {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tracing::info!("shutting down: waiting for requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(limits.shutdown_grace) => tracing::warn!("grace period over; closing"),
    }
    Ok(())
}

/// Completes on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                let _ = interrupt.await;
                return;
            }
        };
    tokio::select! {
        _ = interrupt => tracing::info!("SIGINT received"),
        _ = terminate.recv() => tracing::info!("SIGTERM received"),
    }
}

/// Binds `address` (for tests: port 0 picks a free one).
pub async fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(address).await
}
