//! The accept loop and one connection's life: a slot of the cap taken at accept (slots.rs),
//! hyper serving the connection with the protocol limits (protocol.rs) while its watchdog keeps
//! the deadlines (deadlines.rs, seen through delivery.rs), and a graceful shutdown in which
//! requests in flight finish.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::TcpStream;
use tower_service::Service;

use super::Server;
use super::deadlines::{self, Activity, Clock, Deadlines};
use super::delivery::{Tracking, Watched};
use super::limits;
use super::slots::{Refused, Slot, Slots};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What a connection refused at the cap is sent, in one non-blocking write, before it is
/// closed: HTTP/1 clients see why; nothing is read, parsed or kept for it.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
retry-after: 1\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: 55\r\n\r\n\
{\"error\":\"too many connections\",\"status\":503,\"retry\":1}";

impl Server {
    /// Serves `service` until the shutdown signal (SIGINT or SIGTERM unless
    /// [told otherwise](Server::with_graceful_shutdown)), then stops accepting and waits up to
    /// the grace period for requests in flight. Fails at start only: a cap the open-file limit
    /// cannot hold ([`CapError`](super::CapError), as `InvalidInput`).
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "static");
    /// let assets = bindery::serve::ServeCatalog::builder(&SITE).build().unwrap();
    /// let server = bindery::serve::Server::bind("127.0.0.1:0").await?;
    /// server.with_graceful_shutdown(async {}).serve(assets).await?;
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn serve<S, B>(self, service: S) -> std::io::Result<()>
    where
        S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        self.serve_per_connection(move |_peer| service.clone())
            .await
    }

    /// [`serve`](Self::serve) with a service made for each connection from its peer's address:
    /// what a handler needs to know its client (`axum::extract::ConnectInfo` by hand, or an
    /// application's own type), at no cost per request.
    ///
    /// ```no_run
    /// # async fn run(app: axum::Router) -> std::io::Result<()> {
    /// use axum::extract::ConnectInfo;
    /// let server = bindery::serve::Server::bind("127.0.0.1:8080").await?;
    /// server
    ///     .serve_per_connection(move |peer: std::net::SocketAddr| {
    ///         app.clone().layer(axum::Extension(ConnectInfo(peer)))
    ///     })
    ///     .await
    /// # }
    /// ```
    pub async fn serve_per_connection<M, S, B>(self, mut make_service: M) -> std::io::Result<()>
    where
        M: FnMut(SocketAddr) -> S,
        S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let slots = self.slots()?;
        let Server {
            listener,
            deadlines,
            protocol,
            zero_copy,
            shutdown,
            shutdown_grace,
            trim_after_bursts,
            counters,
            ..
        } = self;
        let trimming =
            trim_after_bursts.then(|| tokio::spawn(super::memory::trim_after_bursts(counters)));
        let clock = Clock::new();
        tokio::spawn(Clock::run(Arc::downgrade(&clock)));
        let builder = protocol.builder();
        let graceful = GracefulShutdown::new();
        let mut shutdown = shutdown.unwrap_or_else(|| Box::pin(super::shutdown_signal()));
        while let Some((stream, peer)) = next_connection(&listener, &mut shutdown).await {
            let activity = Activity::new(&clock);
            let slot = match slots.take(peer.ip(), &activity) {
                Ok(slot) => slot,
                Err(reason) => {
                    refuse(&stream, peer, reason);
                    continue;
                }
            };
            // Small responses must not wait for delayed ACKs (BENCHMARKS.md, "HTTP under load").
            if let Err(error) = stream.set_nodelay(true) {
                tracing::debug!(%error, "cannot set TCP_NODELAY");
            }
            let connection = Connection {
                service: make_service(peer),
                builder: builder.clone(),
                watcher: graceful.watcher(),
                slots: Arc::clone(&slots),
                deadlines,
                peer,
                activity,
            };
            spawn(connection, stream, slot, zero_copy);
        }
        drop(listener);
        drain(graceful, shutdown_grace).await;
        if let Some(trimming) = trimming {
            trimming.abort();
        }
        Ok(())
    }

    /// The cap's slots, sized now (the default from the limits in force).
    fn slots(&self) -> std::io::Result<Arc<Slots>> {
        let descriptors = if self.raise_open_file_limit {
            limits::raise_descriptor_limit()?
        } else {
            limits::descriptor_limit()
        };
        let memory = match self.max_connections {
            Some(_) => None,
            None => limits::memory_limit(),
        };
        let cap = limits::connection_cap(self.max_connections, descriptors, memory)
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidInput, error))?;
        tracing::debug!(cap, per_client = self.per_client, "connection caps");
        Ok(Slots::new(
            cap,
            self.per_client,
            self.trusted.clone(),
            self.counters.clone(),
        ))
    }
}

/// The next accepted connection, or `None` once `shutdown` completes. A failed accept (out of
/// file descriptors and the like) backs off and tries again instead of spinning.
async fn next_connection(
    listener: &tokio::net::TcpListener,
    shutdown: &mut super::Shutdown,
) -> Option<(TcpStream, SocketAddr)> {
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => return Some(accepted),
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            () = &mut *shutdown => return None,
        }
    }
}

/// Waits up to `grace` for the connections `graceful` watches to finish their requests.
async fn drain(graceful: GracefulShutdown, grace: Duration) {
    tracing::info!("shutting down: waiting for requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(grace) => tracing::warn!("grace period over; closing"),
    }
}

/// Serves `connection` on its own task, over `sendfile` when `zero_copy` (and built with it).
fn spawn<S, B>(connection: Connection<S>, stream: TcpStream, slot: Slot, zero_copy: bool)
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + Sync + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    #[cfg(feature = "zerocopy")]
    if zero_copy {
        tokio::spawn(connection.serve(crate::zerocopy::ZeroCopyStream::new(stream), slot));
        return;
    }
    let _ = zero_copy;
    tokio::spawn(connection.serve(stream, slot));
}

/// What one accepted connection is served with.
struct Connection<S> {
    service: S,
    builder: auto::Builder<TokioExecutor>,
    watcher: Watcher,
    slots: Arc<Slots>,
    deadlines: Deadlines,
    peer: SocketAddr,
    activity: Arc<Activity>,
}

impl<S> Connection<S> {
    /// Serves the connection on `io` until it ends or outlives a deadline (it is then dropped:
    /// closed); `slot` is given back when it does.
    async fn serve<I, B>(self, io: I, slot: Slot)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
        S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let _slot = slot;
        let Connection {
            service,
            builder,
            watcher,
            slots,
            deadlines,
            peer,
            activity,
        } = self;
        let service = Tracking::new(service, Arc::clone(&activity));
        let io = TokioIo::new(Watched::new(io, Arc::clone(&activity)));
        let connection = watcher.watch(
            builder
                .serve_connection_with_upgrades(io, service)
                .into_owned(),
        );
        // The connection on a task of its own, and this one its watchdog: a wake of the
        // connection (every read and write) polls hyper alone, not the deadlines beside it.
        let mut serving = tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
        });
        tokio::select! {
            _ = &mut serving => {}
            reason = deadlines::watchdog(Arc::clone(&activity), deadlines) => {
                serving.abort();
                slots.record_expired(reason);
                tracing::debug!(%peer, reason = reason.as_str(), "connection closed at its deadline");
            }
            () = activity.evicted() => {
                serving.abort();
                tracing::debug!(%peer, "idle connection closed to make room for a new one");
            }
        }
    }
}

/// Refuses a connection over the cap: one non-blocking write of [`REFUSAL`], then close.
fn refuse(stream: &TcpStream, peer: SocketAddr, reason: Refused) {
    let _ = stream.try_write(REFUSAL);
    tracing::debug!(%peer, ?reason, "connection refused: no idle connection to make room");
}
