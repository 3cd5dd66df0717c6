//! Accepting connections: a fair cap on how many are open (slots.rs), a deadline for every
//! phase of each (connection.rs), HTTP/1 and HTTP/2 limits set on purpose, `TCP_NODELAY`, a
//! request timeout, and a graceful shutdown in which requests in flight finish.

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
use tokio::net::{TcpListener, TcpSocket, TcpStream};

use crate::connection::{self, Activity, Deadlines};
use crate::delivery::{HTTP2_FRAME, Tracked, Watched};
use crate::front::App;
use crate::slots::{Refused, Slot, Slots};

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
    let builder = protocol_builder(&limits);
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
        let activity = Activity::new();
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
            handler: handler.clone(),
            builder: builder.clone(),
            watcher: graceful.watcher(),
            slots: Arc::clone(&slots),
            deadlines,
            peer,
            activity,
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
    activity: Arc<Activity>,
}

impl<H> Connection<H> {
    /// Serves the connection on `io` until it ends or outlives a deadline; `slot` is given back
    /// when it does.
    async fn serve<I, F, B>(self, io: I, slot: Slot)
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
            activity,
        } = self;
        let tracker = Arc::clone(&activity);
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let is_http2 = request.version() == http::Version::HTTP_2;
            let in_flight = tracker.request_started(is_http2);
            let response = handler(request, peer);
            async move {
                let response = response.await?;
                // HTTP/2 frames are cut small so that each stream's progress shows; HTTP/1
                // writes whole frames and its socket's bytes show progress.
                let frame = is_http2.then_some(HTTP2_FRAME);
                Ok::<_, Infallible>(response.map(|body| Tracked::new(body, in_flight, frame)))
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
            reason = connection::watchdog(Arc::clone(&activity), deadlines) => {
                slots.record_expired(reason);
                tracing::debug!(%peer, reason = reason.as_str(), "connection closed at its deadline");
            }
            () = activity.evicted() => {
                tracing::debug!(%peer, "idle connection closed to make room for a new one");
            }
        }
    }
}

/// The HTTP/1 and HTTP/2 settings, chosen for an API of small GET answers and bounded memory
/// per connection (SECURITY.md lists each with what it bounds).
fn protocol_builder(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        // The watchdog keeps the header deadline (hyper's would also end keep-alive early).
        .header_read_timeout(None)
        // Read buffer at most this (a longer head is refused with 431), and a write buffer
        // that hyper flushes before it takes the next frame of a larger body.
        .max_buf_size(HTTP1_BUFFER)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(limits.h2_ping_interval)
        .keep_alive_timeout(limits.h2_ping_timeout)
        .max_concurrent_streams(HTTP2_MAX_STREAMS)
        .max_header_list_size(HTTP2_MAX_HEADER_LIST)
        .max_send_buf_size(HTTP2_SEND_BUFFER)
        // The API reads no request bodies: the windows bound what a client can push unread.
        .initial_stream_window_size(HTTP2_STREAM_WINDOW)
        .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
        .max_pending_accept_reset_streams(HTTP2_MAX_PENDING_RESETS)
        .max_local_error_reset_streams(HTTP2_MAX_LOCAL_RESETS);
    builder
}

/// HTTP/1's read buffer limit (request heads longer get 431) and write buffer size: 16 KiB.
pub const HTTP1_BUFFER: usize = 16 * 1024;
/// HTTP/2 streams open at once per connection.
pub const HTTP2_MAX_STREAMS: u32 = 64;
/// The longest HTTP/2 header list accepted (decoded), as HTTP/1's buffer.
pub const HTTP2_MAX_HEADER_LIST: u32 = 16 * 1024;
/// Bytes hyper queues ahead of the socket per HTTP/2 stream (references to the answer's bytes;
/// no copies).
pub const HTTP2_SEND_BUFFER: usize = 256 * 1024;
/// What a client may send on one HTTP/2 stream before it is read: 64 KiB.
pub const HTTP2_STREAM_WINDOW: u32 = 64 * 1024;
/// What a client may send on one HTTP/2 connection before it is read: 128 KiB.
pub const HTTP2_CONNECTION_WINDOW: u32 = 128 * 1024;
/// Streams a client may open and reset before they are answered (rapid reset, CVE-2023-44487).
pub const HTTP2_MAX_PENDING_RESETS: usize = 20;
/// Streams the server may reset for a client's errors before the connection is closed.
pub const HTTP2_MAX_LOCAL_RESETS: usize = 1024;

/// Refuses a connection over the cap: one non-blocking write of [`REFUSAL`], then close.
fn refuse(stream: &TcpStream, peer: SocketAddr, reason: Refused) {
    let _ = stream.try_write(REFUSAL);
    tracing::debug!(%peer, ?reason, "connection refused: no idle connection to make room");
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

/// The listen backlog asked for: connections the kernel completes and holds while the accept
/// loop catches up. The kernel caps it at `net.core.somaxconn` (4096 by default since Linux 5.4).
/// Tokio's and std's `bind` ask for 128: past that many new connections at once (clients
/// reconnecting after a restart, a proxy opening its pool) the kernel drops the excess SYNs and
/// each of those clients waits a second for its retransmission.
pub const LISTEN_BACKLOG: u32 = 4096;

/// Binds `address` (for tests: port 0 picks a free one) with [`LISTEN_BACKLOG`] and
/// `SO_REUSEADDR`, as tokio's `bind` sets it.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let listener = geo_server::server::bind("127.0.0.1:0".parse().unwrap()).await?;
/// assert!(listener.local_addr()?.port() != 0);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub async fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

/// File descriptors kept back from the connection cap: the listeners, the database, logs, the
/// blocking pool's files, a refused connection's brief descriptor.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// The default connection cap when none is given, never more than the descriptors left after
/// [`RESERVED_DESCRIPTORS`] nor than half the memory over [`WORST_CASE_CONNECTION_BYTES`].
pub const MAX_DEFAULT_CONNECTIONS: u64 = 16_384;

/// What one connection can make the server hold at most, by the limits above: HTTP/2's receive
/// windows (128 KiB a connection), a header block being decoded (16 KiB) and its HPACK table,
/// h2's frame buffers, 64 streams' state and answer heads; HTTP/1's read and write buffers
/// (16 KiB each) are less. Answer bodies are references to embedded or cached bytes, or counted
/// by `ServeCatalog`'s byte budget. Kernel socket buffers are not counted (SECURITY.md).
pub const WORST_CASE_CONNECTION_BYTES: u64 = 384 * 1024;

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

/// The memory this process may use: the smallest of its cgroup's limits (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, the groups above included) and the machine's memory; `None` where
/// none can be read.
pub fn memory_limit() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let physical = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| physical_memory(&meminfo));
    cgroup_limits(&cgroups, &|path| std::fs::read_to_string(path).ok())
        .into_iter()
        .chain(physical)
        .min()
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn physical_memory(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kilobytes: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kilobytes.checked_mul(1024)
}

/// The memory limits of the groups named by `/proc/self/cgroup` and of every group above them,
/// read with `read` (v2 under `/sys/fs/cgroup` or `/sys/fs/cgroup/unified`, v1 under
/// `/sys/fs/cgroup/memory`); "max" and v1's huge "no limit" numbers are no limit.
fn cgroup_limits(cgroups: &str, read: &dyn Fn(&str) -> Option<String>) -> Vec<u64> {
    let mut limits = Vec::new();
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let files: &[&str] = match controllers {
            "" => &[
                "/sys/fs/cgroup{}/memory.max",
                "/sys/fs/cgroup/unified{}/memory.max",
            ],
            list if list.split(',').any(|name| name == "memory") => {
                &["/sys/fs/cgroup/memory{}/memory.limit_in_bytes"]
            }
            _ => continue,
        };
        let mut group = path.trim_end_matches('/').to_owned();
        loop {
            for file in files {
                let limit = read(&file.replace("{}", &group))
                    .and_then(|text| text.trim().parse::<u64>().ok())
                    .filter(|limit| *limit < (1 << 60));
                limits.extend(limit);
            }
            match group.rfind('/') {
                Some(parent) => group.truncate(parent),
                None => break,
            }
        }
    }
    limits
}

/// The connection cap for a descriptor limit and a memory limit: `requested`, when it fits the
/// descriptors, or the default: [`MAX_DEFAULT_CONNECTIONS`] bounded by the descriptors and by
/// half the memory over [`WORST_CASE_CONNECTION_BYTES`] (the rest is the database's, the
/// caches' and the answers').
///
/// ```
/// use geo_server::server::connection_cap;
/// assert_eq!(connection_cap(None, 1024, None), Ok(960));
/// assert_eq!(connection_cap(None, 1 << 20, None), Ok(16_384));
/// assert_eq!(connection_cap(None, 1 << 20, Some(512 << 20)), Ok(682), "512 MiB");
/// assert_eq!(connection_cap(Some(100), 1024, Some(512 << 20)), Ok(100));
/// assert!(connection_cap(Some(5000), 1024, None).is_err());
/// ```
pub fn connection_cap(
    requested: Option<u64>,
    descriptor_limit: u64,
    memory_limit: Option<u64>,
) -> Result<usize, String> {
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
        None => {
            let by_memory =
                memory_limit.map_or(u64::MAX, |memory| memory / 2 / WORST_CASE_CONNECTION_BYTES);
            available.min(by_memory).clamp(1, MAX_DEFAULT_CONNECTIONS)
        }
    };
    Ok(usize::try_from(cap).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::{cgroup_limits, physical_memory};

    #[test]
    fn memory_limits_come_from_every_cgroup_version_and_the_groups_above() {
        let files = |path: &str| {
            match path {
                "/sys/fs/cgroup/memory/a/b/memory.limit_in_bytes" => Some("9223372036854771712\n"),
                "/sys/fs/cgroup/memory/a/memory.limit_in_bytes" => Some("1073741824\n"),
                "/sys/fs/cgroup/unified/svc/memory.max" => Some("max\n"),
                "/sys/fs/cgroup/memory.max" => Some("536870912\n"),
                _ => None,
            }
            .map(str::to_owned)
        };
        assert_eq!(
            cgroup_limits("4:memory:/a/b\n0::/svc\n2:cpu:/x\n", &files),
            [1 << 30, 512 << 20]
        );
        assert_eq!(cgroup_limits("4:memory:/\n", &files), Vec::<u64>::new());
        assert_eq!(
            physical_memory("MemTotal:       24562100 kB\nMemFree: 1 kB\n"),
            Some(24_562_100 * 1024)
        );
    }
}
