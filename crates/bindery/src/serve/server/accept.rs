//! The accept loop and one connection's life: a slot of the cap taken at accept (slots.rs) and
//! held by the socket for as long as it is open, hyper serving the connection with the protocol
//! limits (protocol.rs) on a task of its own while this one keeps the deadlines (deadlines.rs,
//! seen through delivery.rs) and the stop signals; after an upgrade the same deadlines and
//! signals follow the socket into the application's hands. Shutdown has an end: requests in
//! flight get the grace, then every connection is closed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::net::TcpStream;
use tower_service::Service;

use super::Server;
use super::activity::{Activity, Stop};
use super::clock::Clock;
use super::deadlines::{self, Deadlines};
use super::delivery::{Holds, Tracking, Watched};
use super::limits;
use super::slots::{Refused, Slot, Slots};

mod upgraded;

use upgraded::watch_upgraded;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What a connection refused at the cap is sent, in one non-blocking write, before it is
/// closed: HTTP/1 clients see why; nothing is read, parsed or kept for it.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
retry-after: 1\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: 55\r\n\r\n\
{\"error\":\"too many connections\",\"status\":503,\"retry\":1}";

/// How long a connection told to end for its resets (GOAWAY sent) may finish what it has in
/// flight before it is closed; and how long shutdown waits, after the grace, for connections
/// told to close to be gone.
const LINGER: Duration = Duration::from_secs(1);

impl Server {
    /// Serves `service` until the shutdown signal (SIGINT or SIGTERM unless
    /// [told otherwise](Server::with_graceful_shutdown)), then stops accepting and waits up to
    /// the grace period for requests in flight. Fails at start only: a cap the open-file limit
    /// cannot hold (as `InvalidInput`, naming the limits).
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
        let mut shutdown = shutdown.unwrap_or_else(|| Box::pin(super::shutdown_signal()));
        // Connections closed to make room whose sockets may still be open.
        let mut leaving: Vec<Arc<Activity>> = Vec::new();
        while let Some((stream, peer)) = next_connection(&listener, &mut shutdown).await {
            let activity = Activity::new(&clock);
            let mut slot = match slots.take(peer.ip(), &activity) {
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
            #[cfg(unix)]
            activity.attach_socket(std::os::fd::AsRawFd::as_raw_fd(&stream));
            let evicted = slot.take_evicted();
            let connection = Connection {
                service: make_service(peer),
                builder: builder.clone(),
                slots: Arc::clone(&slots),
                deadlines,
                peer,
                client: slot.client(),
                activity,
            };
            spawn(connection, stream, slot, zero_copy);
            leaving.extend(evicted);
            made_room(&mut leaving).await;
        }
        drop(listener);
        drain(&slots, shutdown_grace).await;
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
        tracing::info!(
            max_connections = cap,
            max_connections_per_client = self.per_client,
            open_file_limit = descriptors,
            memory_limit = memory.unwrap_or(0),
            "connection limits"
        );
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

/// Ends every connection: each is asked to finish gracefully (HTTP/2 GOAWAY, no more HTTP/1
/// keep-alive), given up to `grace` for the requests in flight, then closed, upgraded ones
/// included; returns once all are gone, or [`LINGER`] after the grace.
async fn drain(slots: &Slots, grace: Duration) {
    tracing::info!("shutting down: waiting for requests in flight");
    slots.stop_all(Stop::Shutdown);
    if tokio::time::timeout(grace, slots.emptied()).await.is_ok() {
        tracing::info!("all connections closed");
        return;
    }
    tracing::warn!(open = slots.open(), "grace period over; closing");
    slots.stop_all(Stop::Close);
    if tokio::time::timeout(LINGER, slots.emptied()).await.is_err() {
        tracing::warn!(
            open = slots.open(),
            "connections held past the grace by an application after an upgrade"
        );
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
    slots: Arc<Slots>,
    deadlines: Deadlines,
    peer: SocketAddr,
    client: Option<u128>,
    activity: Arc<Activity>,
}

/// How a connection's watch ended.
enum Ended {
    /// hyper is done with it: closed, or handed over by an upgrade.
    Served,
    /// Closed by this side.
    Closed,
}

impl<S> Connection<S> {
    /// Serves the connection on `io` until it ends, outlives a deadline or is told to stop
    /// (it is then dropped: closed); `slot` is given back when the socket is dropped.
    async fn serve<I, B>(self, io: I, slot: Slot)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
        S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let Connection {
            service,
            builder,
            slots,
            deadlines,
            peer,
            client,
            activity,
        } = self;
        let service = Tracking::new(service, Arc::clone(&activity), client);
        let io = TokioIo::new(Watched::new(io, Holds::new(Arc::clone(&activity), slot)));
        let connection = builder
            .serve_connection_with_upgrades(io, service)
            .into_owned();
        // The connection on a task of its own, and this one its watchdog: a wake of the
        // connection (every read and write) polls hyper and one signal of its own, not the
        // deadlines beside it.
        let ending = Arc::clone(&activity);
        let mut serving = tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let asked = ending.asked_to_end();
            let mut asked = std::pin::pin!(asked);
            let mut is_ending = false;
            let result = std::future::poll_fn(|context| {
                if !is_ending && asked.as_mut().poll(context).is_ready() {
                    is_ending = true;
                    connection.as_mut().graceful_shutdown();
                }
                connection.as_mut().poll(context)
            })
            .await;
            if let Err(error) = result {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
        });
        if let Ended::Closed = watch(&activity, deadlines, &slots, &mut serving, peer).await {
            // A reset: nothing queued for a client this side gave up on is sent after the close.
            activity.reset_on_close();
            serving.abort();
            return;
        }
        // hyper let go of the connection; if the socket is still open, an upgrade handed it
        // to the application, and the deadlines and signals follow it there.
        if activity.has_socket() {
            watch_upgraded(&activity, deadlines, &slots, peer).await;
        }
    }
}

/// Keeps `activity`'s deadlines and stop signals while hyper serves the connection.
async fn watch(
    activity: &Arc<Activity>,
    deadlines: Deadlines,
    slots: &Slots,
    serving: &mut tokio::task::JoinHandle<()>,
    peer: SocketAddr,
) -> Ended {
    let mut linger_until = None;
    loop {
        let linger = async {
            match linger_until {
                Some(until) => tokio::time::sleep_until(until).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = &mut *serving => return Ended::Served,
            reason = deadlines::watchdog(Arc::clone(activity), deadlines) => {
                slots.record_expired(reason);
                tracing::debug!(%peer, reason = reason.as_str(), "connection closed at its deadline");
                return Ended::Closed;
            }
            () = linger => {
                tracing::debug!(%peer, "connection closed after its GOAWAY for resets");
                return Ended::Closed;
            }
            () = activity.stopped() => match activity.stop_reason() {
                Some(Stop::Evicted) => {
                    tracing::debug!(%peer, "connection closed to make room for another");
                    return Ended::Closed;
                }
                Some(Stop::Close) => return Ended::Closed,
                Some(Stop::Resets) if linger_until.is_none() => {
                    tracing::debug!(%peer, "too many streams reset: GOAWAY");
                    linger_until = Some(tokio::time::Instant::now() + LINGER);
                }
                _ => {}
            },
        }
    }
}

/// The longest one accept waits for the connections closed to make room to let their sockets
/// go: they go as soon as their tasks run, so this bounds only a task that never runs again.
const ROOM_WAIT: Duration = Duration::from_secs(2);

/// Waits, before the next accept, until every connection closed to make room has let its
/// socket go (their tasks close them when they next run): a burst of newcomers accepted before
/// would hold more descriptors than the cap, each a victim's. The ones still open are kept
/// across accepts, so a victim whose task waits longer is still waited for at the next one
/// (under CPU starvation, a wait of its own per victim let them pile up past the cap); after
/// [`ROOM_WAIT`] without all of them gone, they are given up. Not for an upgraded connection:
/// the application holding it lets go in its own time.
async fn made_room(leaving: &mut Vec<Arc<Activity>>) {
    if !cfg!(unix) {
        leaving.clear();
        return;
    }
    let deadline = tokio::time::Instant::now() + ROOM_WAIT;
    loop {
        leaving.retain(|activity| !activity.is_upgraded() && activity.has_socket());
        let Some(oldest) = leaving.first() else {
            return;
        };
        if tokio::time::timeout_at(deadline, oldest.socket_dropped())
            .await
            .is_err()
        {
            leaving.clear();
            return;
        }
    }
}

/// Refuses a connection over the cap: one non-blocking write of [`REFUSAL`], then close.
fn refuse(stream: &TcpStream, peer: SocketAddr, reason: Refused) {
    let _ = stream.try_write(REFUSAL);
    tracing::debug!(%peer, ?reason, "connection refused: no idle connection to make room");
}
