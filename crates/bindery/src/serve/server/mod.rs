//! A hardened HTTP server for any tower service (an axum `Router`, a bare
//! [`ServeCatalog`](crate::serve::ServeCatalog)): what `axum::serve` leaves to hyper's defaults,
//! set on purpose, in one line (feature `server`).
//!
//! - **Deadlines for every phase** of a connection, whatever its protocol: from the accept to a
//!   complete request head ([`Server::header_read_timeout`], 10 s: one byte, or an HTTP/2
//!   preface, then silence), between requests, and for an answer that stops moving
//!   ([`Server::idle_timeout`], 60 s, measured on delivery: HTTP/2 streams held at window 0 are
//!   closed even while the client sends `HEAD`s; a slow download that keeps moving is not cut).
//! - **HTTP/1 and HTTP/2 limits**: a 16 KiB request head (431 beyond), 64 streams a connection,
//!   a 16 KiB header list, 256 KiB queued per stream, small receive windows (64 KiB a stream,
//!   128 KiB a connection), rapid-reset limits (each setter says its default).
//! - **A fair connection cap** ([`Server::max_connections`], default from the open-file limit,
//!   raised to its hard limit, and from the memory limit, cgroup or physical), at most
//!   256 of them from one client (an IPv4 address, an IPv6 /64): at either
//!   limit the connection idle the longest makes room, and only when none is idle is a new one
//!   refused, with one 503 write. Connections from [trusted proxies](Server::trusted_proxies)
//!   count against the cap only.
//! - `TCP_NODELAY`, a listen backlog of 4096 ([`Server::bind`]), graceful shutdown on SIGINT or
//!   SIGTERM (or [a future of yours](Server::with_graceful_shutdown)) with a grace period,
//!   `sendfile(2)` of embedded bodies when asked ([`Server::zero_copy`], feature `zerocopy`),
//!   and counters for a `/metrics` page ([`Server::counters`]); after a burst of connections
//!   ends, the allocator's free pages go back to the system ([`Server::trim_after_bursts`]).
//!
//! Each setter of [`Server`] states its default; SECURITY.md lists them all with what each
//! bounds (a test holds the two to the code).
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use bindery::serve::{Server, ServeCatalog};
//!
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! let app = axum::Router::new()
//!     .route("/api/ping", axum::routing::get(|| async { "pong" }))
//!     .fallback_service(ServeCatalog::builder(&SITE).build().unwrap());
//! let server = Server::bind("127.0.0.1:0").await?;
//! println!("listening on http://{}", server.local_addr()?);
//! // Until SIGINT or SIGTERM: `server.serve(app).await?`; here, until a future completes.
//! server.with_graceful_shutdown(async {}).serve(app).await?;
//! # Ok::<(), std::io::Error>(())
//! # }).unwrap();
//! ```
//!
//! SECURITY.md has what an attacker can hold under these defaults, measured, beside plain
//! `axum::serve`, actix-web and rocket.

mod accept;
mod activity;
mod client_key;
mod clock;
mod counters;
mod deadlines;
mod delivery;
mod frames;
mod holders;
mod in_flight;
mod limits;
mod memory;
mod protocol;
mod proxy;
mod signal;
mod slots;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

use tokio::net::TcpListener;

pub use client_key::ClientKey;
pub use counters::{ConnectionCounters, ConnectionStats};
pub use deadlines::Expired;
pub use proxy::{BadHeader, BadRange, ForwardingHeader, TrustedProxies, Unknown};
pub use signal::shutdown_signal;
use slots::DEFAULT_PER_CLIENT;

/// The default [`Server::header_read_timeout`]: 10 s.
const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default [`Server::idle_timeout`]: 60 s.
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The default [`Server::shutdown_grace`]: 30 s.
const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);
/// The default [`Server::upgrade_idle_timeout`]: 300 s.
const DEFAULT_UPGRADE_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

type Shutdown = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A listener and the limits it serves with: [`bind`](Server::bind) or [`new`](Server::new),
/// a setter per limit, then [`serve`](Server::serve). The [module](self) lists the defaults.
///
/// ```no_run
/// # async fn run(app: axum::Router) -> std::io::Result<()> {
/// use std::time::Duration;
/// bindery::serve::Server::bind("0.0.0.0:8080")
///     .await?
///     .idle_timeout(Duration::from_secs(30))
///     .max_connections(10_000)
///     .trusted_proxies("loopback".parse().unwrap())
///     .serve(app)
///     .await
/// # }
/// ```
#[must_use = "a server does nothing until `serve` is awaited"]
pub struct Server {
    listener: TcpListener,
    deadlines: deadlines::Deadlines,
    protocol: protocol::Protocol,
    max_connections: Option<u64>,
    per_client: usize,
    trusted: TrustedProxies,
    raise_open_file_limit: bool,
    trim_after_bursts: bool,
    zero_copy: bool,
    shutdown: Option<Shutdown>,
    shutdown_grace: Duration,
    counters: ConnectionCounters,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Server")
            .field("listener", &self.listener)
            .field("deadlines", &self.deadlines)
            .field("protocol", &self.protocol)
            .field("max_connections", &self.max_connections)
            .field("per_client", &self.per_client)
            .field("trusted", &self.trusted)
            .field("zero_copy", &self.zero_copy)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Serves on `listener` (bound by you) with the defaults.
    ///
    /// ```no_run
    /// # async fn run() -> std::io::Result<()> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let server = bindery::serve::Server::new(listener);
    /// # Ok(()) }
    /// ```
    pub fn new(listener: TcpListener) -> Self {
        Server {
            listener,
            deadlines: deadlines::Deadlines {
                first_request: DEFAULT_HEADER_READ_TIMEOUT,
                idle: DEFAULT_IDLE_TIMEOUT,
                upgraded: DEFAULT_UPGRADE_IDLE_TIMEOUT,
            },
            protocol: protocol::Protocol::default(),
            max_connections: None,
            per_client: DEFAULT_PER_CLIENT,
            trusted: TrustedProxies::none(),
            raise_open_file_limit: true,
            trim_after_bursts: true,
            zero_copy: false,
            shutdown: None,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            counters: ConnectionCounters::default(),
        }
    }

    /// Binds the first address of `address` that can be bound (`"0.0.0.0:8080"`,
    /// `"localhost:0"`, a `SocketAddr`) with a listen backlog of 4,096 (tokio's
    /// `bind` asks for 128: past that many new connections at once the kernel drops SYNs and
    /// each of those clients waits a second) and `SO_REUSEADDR`.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let server = bindery::serve::Server::bind("127.0.0.1:0").await?;
    /// assert!(server.local_addr()?.port() != 0);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn bind(address: impl tokio::net::ToSocketAddrs) -> std::io::Result<Self> {
        let mut last_error = None;
        for address in tokio::net::lookup_host(address).await? {
            match limits::bind(address).await {
                Ok(listener) => return Ok(Server::new(listener)),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the address resolved to nothing",
            )
        }))
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// From the accept to the first complete request head, whatever the protocol; for HTTP/1
    /// also from the first byte of each later head to its end. Default 10 s.
    pub fn header_read_timeout(mut self, limit: Duration) -> Self {
        self.deadlines.first_request = limit;
        self
    }

    /// How long a connection may idle between requests (HTTP/1 keep-alive and HTTP/2; pings do
    /// not count), and an answer in flight may make no progress (HTTP/1: no byte moves; HTTP/2:
    /// the stream takes no 64 KiB frame), before the connection is closed. Default 60 s.
    pub fn idle_timeout(mut self, limit: Duration) -> Self {
        self.deadlines.idle = limit;
        self
    }

    /// After an upgrade (a WebSocket handed to the application): how long no byte may move
    /// either way before the socket is shut down under the application, which then reads its
    /// end. The connection keeps its slot of the cap until the application lets it go, and
    /// shutdown closes it at the end of the grace. Default 300 s; an application that pings
    /// its clients keeps them alive.
    pub fn upgrade_idle_timeout(mut self, limit: Duration) -> Self {
        self.deadlines.upgraded = limit;
        self
    }

    /// HTTP/2: a ping after `interval` without a frame from the client, and the connection
    /// closed when its answer takes longer than `timeout`. Default 20 s and 10 s.
    pub fn http2_keep_alive(mut self, interval: Duration, timeout: Duration) -> Self {
        self.protocol.http2_ping_interval = interval;
        self.protocol.http2_ping_timeout = timeout;
        self
    }

    /// HTTP/2 streams open at once on one connection. Default 64.
    pub fn http2_max_concurrent_streams(mut self, streams: u32) -> Self {
        self.protocol.http2_max_streams = streams;
        self
    }

    /// The longest HTTP/2 header list accepted, decoded. Default 16 KiB.
    pub fn http2_max_header_list_size(mut self, bytes: u32) -> Self {
        self.protocol.http2_max_header_list = bytes;
        self
    }

    /// Bytes queued ahead of the socket per HTTP/2 stream. Default 256 KiB.
    pub fn http2_max_send_buf_size(mut self, bytes: usize) -> Self {
        self.protocol.http2_send_buffer = bytes;
        self
    }

    /// HTTP/1's read buffer limit (a longer request head gets 431) and write buffer size.
    /// Default 16 KiB; hyper needs at least 8 KiB.
    pub fn http1_max_buf_size(mut self, bytes: usize) -> Self {
        self.protocol.http1_buffer = bytes.max(8192);
        self
    }

    /// Connections open at once. Default: the open-file limit less 64 (kept for the
    /// listeners and the application's files), no more than half the memory limit (cgroup v1
    /// or v2, or the machine's) less the heap bodies' budget, over 384 KiB (what one
    /// connection can make the server hold at most), and at most 16,384. A cap the open-file
    /// limit cannot hold makes [`serve`](Self::serve) fail at start, as `InvalidInput`. The cap
    /// in force is logged at start (`tracing`, info).
    pub fn max_connections(mut self, cap: usize) -> Self {
        self.max_connections = Some(u64::try_from(cap).unwrap_or(u64::MAX));
        self
    }

    /// Connections one client (an IPv4 address, an IPv6 /64) may hold; beyond it its own
    /// longest idle one is closed, or the new one refused. Default 256.
    pub fn max_connections_per_client(mut self, cap: usize) -> Self {
        self.per_client = cap;
        self
    }

    /// Peers whose connections count against the cap only, not against a client's share: the
    /// proxies in front, whose pooled connections carry many clients. Limit clients at the
    /// proxy then (nginx's `limit_conn`). The same value finds a request's client
    /// ([`TrustedProxies::client`]).
    pub fn trusted_proxies(mut self, trusted: TrustedProxies) -> Self {
        self.trusted = trusted;
        self
    }

    /// Whether [`serve`](Self::serve) raises the soft open-file limit to the hard limit before
    /// it sizes the default cap. Default yes.
    pub fn raise_open_file_limit(mut self, raise: bool) -> Self {
        self.raise_open_file_limit = raise;
        self
    }

    /// Whether the allocator's free pages are given back to the system after a burst of
    /// connections ends (glibc's `malloc_trim`, when the open connections fall to half their
    /// peak, by 64 or more; checked every 5 s). Default yes: without it, glibc keeps what
    /// thousands of closed connections freed resident for good.
    pub fn trim_after_bursts(mut self, trim: bool) -> Self {
        self.trim_after_bursts = trim;
        self
    }

    /// Sends the bodies of embedded files with `sendfile(2)` from the executable
    /// ([`ZeroCopyStream`](crate::zerocopy::ZeroCopyStream)); Linux, plain TCP. Default off.
    #[cfg(feature = "zerocopy")]
    #[cfg_attr(docsrs, doc(cfg(feature = "zerocopy")))]
    pub fn zero_copy(mut self, enabled: bool) -> Self {
        self.zero_copy = enabled;
        self
    }

    /// Stops accepting when `signal` completes, instead of on SIGINT or SIGTERM
    /// ([`shutdown_signal`]), then waits up to the [grace](Self::shutdown_grace) for requests
    /// in flight. `std::future::pending()` never stops.
    pub fn with_graceful_shutdown(
        mut self,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> Self {
        self.shutdown = Some(Box::pin(signal));
        self
    }

    /// How long shutdown waits for requests in flight before it closes what is left. Default
    /// 30 s.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The connection counters, to read while the server runs (take them before `serve`).
    pub fn counters(&self) -> ConnectionCounters {
        self.counters.clone()
    }
}

#[cfg(test)]
mod tests;
