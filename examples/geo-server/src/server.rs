//! Accepting connections: a cap on how many are open, a deadline for every phase of each
//! (connection.rs), `TCP_NODELAY`, a request timeout, and a graceful shutdown in which requests
//! in flight finish.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};

use crate::connection::{self, Activity, Deadlines, Slots, Tracked, Watched};
use crate::front::App;

/// Limits of the connection handling.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// From the accept to the first complete request head, whatever the protocol (a client
    /// that sends one byte, or an HTTP/2 preface, and then nothing); for HTTP/1 also each
    /// later request head once its first byte arrived.
    pub header_read_timeout: Duration,
    /// Keep-alive idle: a connection with no request in flight and none started for this long
    /// is closed; so is one whose request in flight moved no byte either way for this long (a
    /// client that stopped reading its response).
    pub idle_timeout: Duration,
    /// HTTP/2: a ping is sent after this long without a frame from the client...
    pub h2_ping_interval: Duration,
    /// ...and the connection closed if its answer takes longer than this.
    pub h2_ping_timeout: Duration,
    /// How long one request may take before it is answered with 408.
    pub request_timeout: Duration,
    /// How long shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
    /// Send embedded bodies with `sendfile` ([`bindery::zerocopy`]); Linux only, else ignored.
    pub zero_copy: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            h2_ping_interval: Duration::from_secs(20),
            h2_ping_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(30),
            zero_copy: false,
        }
    }
}

/// What a connection refused at the cap is sent, in one non-blocking write, before it is
/// closed: HTTP/1 clients see why; nothing is read, parsed or kept for it.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
retry-after: 1\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: 55\r\n\r\n\
{\"error\":\"too many connections\",\"status\":503,\"retry\":1}";

/// Serves `app` on `listener` until `shutdown` completes, then stops accepting and waits up to
/// the grace period for open connections to finish their requests. The connection cap and
/// counters are the app's ([`AppState::connections`](crate::AppState::connections)).
pub async fn serve(
    listener: TcpListener,
    app: App,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let app = app.request_timeout(limits.request_timeout);
    let slots = Arc::clone(&app.state().connections);
    serve_with(
        listener,
        move |request, peer| app.call_from(request, Some(peer)),
        slots,
        limits,
        shutdown,
    )
    .await
}

/// [`serve`] for any handler of a request and its peer's address: the admin listener's router,
/// for one.
pub async fn serve_with<H, F, B>(
    listener: TcpListener,
    handler: H,
    slots: Arc<Slots>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()>
where
    H: Fn(hyper::Request<Incoming>, SocketAddr) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<hyper::Response<B>, Infallible>> + Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(limits.h2_ping_interval)
        .keep_alive_timeout(limits.h2_ping_timeout);
    let deadlines = Deadlines {
        first_request: limits.header_read_timeout,
        idle: limits.idle_timeout,
    };
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
        let Some(slot) = slots.take() else {
            refuse(&stream, peer);
            continue;
        };
        // Small responses must not wait for delayed ACKs (BENCHMARKS.md, "HTTP under load").
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let connection = Connection {
            handler: handler.clone(),
            builder: builder.clone(),
            watcher: graceful.watcher(),
            slots: Arc::clone(&slots),
            deadlines,
            peer,
        };
        if limits.zero_copy {
            tokio::spawn(connection.serve(bindery::zerocopy::ZeroCopyStream::new(stream), slot));
        } else {
            tokio::spawn(connection.serve(stream, slot));
        }
    }
    drop(listener);
    tracing::info!("shutting down: waiting for requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(limits.shutdown_grace) => tracing::warn!("grace period over; closing"),
    }
    Ok(())
}

/// What one accepted connection is served with.
struct Connection<H> {
    handler: H,
    builder: auto::Builder<TokioExecutor>,
    watcher: hyper_util::server::graceful::Watcher,
    slots: Arc<Slots>,
    deadlines: Deadlines,
    peer: SocketAddr,
}

impl<H> Connection<H> {
    /// Serves the connection on `io` until it ends or outlives a deadline; `slot` is given back
    /// when it does.
    async fn serve<I, F, B>(self, io: I, slot: connection::Slot)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
        H: Fn(hyper::Request<Incoming>, SocketAddr) -> F + Clone + Send + Sync + 'static,
        F: Future<Output = Result<hyper::Response<B>, Infallible>> + Send + 'static,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let _slot = slot;
        let Connection {
            handler,
            builder,
            watcher,
            slots,
            deadlines,
            peer,
        } = self;
        let activity = Activity::new();
        let tracker = Arc::clone(&activity);
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let in_flight = tracker.request_started();
            let response = handler(request, peer);
            async move {
                let response = response.await?;
                Ok::<_, Infallible>(response.map(|body| Tracked::new(body, in_flight)))
            }
        });
        let io = TokioIo::new(Watched::new(io, Arc::clone(&activity)));
        let connection = watcher.watch(
            builder
                .serve_connection_with_upgrades(io, service)
                .into_owned(),
        );
        tokio::select! {
            ended = connection => if let Err(error) = ended {
                tracing::debug!(%peer, %error, "connection ended with an error");
            },
            reason = connection::watchdog(activity, deadlines) => {
                slots.record_expired(reason);
                tracing::debug!(%peer, reason = reason.as_str(), "connection closed at its deadline");
            }
        }
    }
}

/// Refuses a connection over the cap: one non-blocking write of [`REFUSAL`], then close.
fn refuse(stream: &TcpStream, peer: SocketAddr) {
    let _ = stream.try_write(REFUSAL);
    tracing::debug!(%peer, "connection refused: the connection cap is reached");
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

/// File descriptors kept back from the connection cap: the listeners, the database, logs, the
/// blocking pool's files, a refused connection's brief descriptor.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// The default connection cap when none is given (each open connection costs a task, hyper's
/// buffers and kernel socket buffers, some tens of KiB), never more than the descriptors left
/// after [`RESERVED_DESCRIPTORS`].
pub const MAX_DEFAULT_CONNECTIONS: u64 = 16_384;

/// Raises the soft limit on open files to the hard limit (the usual 1024 would cap the server
/// at about a thousand clients) and returns the limit now in force.
pub fn raise_descriptor_limit() -> std::io::Result<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        if let Err(error) = setrlimit(Resource::Nofile, limit) {
            tracing::warn!(%error, "cannot raise the open-file limit to its hard limit");
        }
    }
    Ok(getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX))
}

/// The connection cap for a descriptor limit: `requested`, when it fits within it, or the
/// default of [`MAX_DEFAULT_CONNECTIONS`] bounded by the limit.
///
/// ```
/// use geo_server::server::connection_cap;
/// assert_eq!(connection_cap(None, 1024), Ok(960));
/// assert_eq!(connection_cap(None, 1 << 20), Ok(16_384));
/// assert_eq!(connection_cap(Some(100), 1024), Ok(100));
/// assert!(connection_cap(Some(5000), 1024).is_err());
/// ```
pub fn connection_cap(requested: Option<u64>, descriptor_limit: u64) -> Result<usize, String> {
    let available = descriptor_limit.saturating_sub(RESERVED_DESCRIPTORS);
    let cap = match requested {
        Some(0) => return Err("--max-connections must be at least 1".to_owned()),
        Some(requested) if requested > available => {
            return Err(format!(
                "--max-connections {requested} exceeds the {available} connections the open-file \
                 limit ({descriptor_limit}, less {RESERVED_DESCRIPTORS} kept back) allows; raise \
                 the hard limit (ulimit -Hn, LimitNOFILE=) or lower the cap"
            ));
        }
        Some(requested) => requested,
        None => available.clamp(1, MAX_DEFAULT_CONNECTIONS),
    };
    Ok(usize::try_from(cap).unwrap_or(usize::MAX))
}
