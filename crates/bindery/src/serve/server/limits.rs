//! What a server may hold, sized from the machine: the listen backlog, the open-file limit, the
//! memory limit (cgroup v1 and v2, or physical), and the connection cap they allow.

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

/// Why a connection cap was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CapError {
    /// A cap of 0 connections.
    #[error("the connection cap must be at least 1")]
    Zero,
    /// More connections than the open-file limit allows.
    #[error(
        "a cap of {requested} connections exceeds the {available} the open-file limit \
         ({descriptor_limit}, less {RESERVED_DESCRIPTORS} kept back) allows; raise the hard \
         limit (ulimit -Hn, LimitNOFILE=) or lower the cap"
    )]
    OverDescriptors {
        /// The cap asked for.
        requested: u64,
        /// Connections the limit allows.
        available: u64,
        /// The open-file limit in force.
        descriptor_limit: u64,
    },
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
/// let listener = bindery::serve::server::bind("127.0.0.1:0".parse().unwrap()).await?;
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

/// File descriptors kept back from the connection cap: the listeners, the application's files,
/// logs, the blocking pool's files, a refused connection's brief descriptor.
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
/// at about a thousand clients) and returns the limit now in force, as Go's runtime does at
/// start. Elsewhere than Unix there is no such limit: `u64::MAX`.
///
/// ```
/// assert!(bindery::serve::server::raise_descriptor_limit().unwrap() >= 64);
/// ```
pub fn raise_descriptor_limit() -> std::io::Result<u64> {
    #[cfg(unix)]
    {
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
    #[cfg(not(unix))]
    Ok(u64::MAX)
}

/// The soft limit on open files in force, without raising it; `u64::MAX` where there is none.
pub(super) fn descriptor_limit() -> u64 {
    #[cfg(unix)]
    return rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX);
    #[cfg(not(unix))]
    u64::MAX
}

/// The memory this process may use: the smallest of its cgroup's limits (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, the groups above included) and the machine's memory; `None` where
/// none can be read.
///
/// ```
/// assert!(bindery::serve::server::memory_limit().is_some_and(|bytes| bytes > 0));
/// ```
pub fn memory_limit() -> Option<u64> {
    crate::serve::memory_plan::memory_limit()
}

/// The connection cap for a descriptor limit and a memory limit: `requested`, when it fits the
/// descriptors, or the default: [`MAX_DEFAULT_CONNECTIONS`] bounded by the descriptors and by
/// the memory connections may spend over [`WORST_CASE_CONNECTION_BYTES`]: half the memory
/// (the rest is the application's) less the default byte budget of heap bodies (an eighth of
/// the memory, at most 256 MiB: [`Decompression::heap_budget`](crate::serve::Decompression)).
///
/// ```
/// use bindery::serve::server::connection_cap;
/// assert_eq!(connection_cap(None, 1024, None), Ok(960));
/// assert_eq!(connection_cap(None, 1 << 20, None), Ok(16_384));
/// assert_eq!(connection_cap(None, 1 << 20, Some(512 << 20)), Ok(512), "512 MiB");
/// assert_eq!(connection_cap(None, 1 << 20, Some(256 << 20)), Ok(256), "256 MiB");
/// assert_eq!(connection_cap(Some(100), 1024, Some(512 << 20)), Ok(100));
/// assert!(connection_cap(Some(5000), 1024, None).is_err());
/// ```
pub fn connection_cap(
    requested: Option<u64>,
    descriptor_limit: u64,
    memory_limit: Option<u64>,
) -> Result<usize, CapError> {
    let available = descriptor_limit.saturating_sub(RESERVED_DESCRIPTORS);
    let cap = match requested {
        Some(0) => return Err(CapError::Zero),
        Some(requested) if requested > available => {
            return Err(CapError::OverDescriptors {
                requested,
                available,
                descriptor_limit,
            });
        }
        Some(requested) => requested,
        None => {
            let by_memory = memory_limit.map_or(u64::MAX, |memory| {
                crate::serve::memory_plan::connection_bytes_for(memory)
                    / WORST_CASE_CONNECTION_BYTES
            });
            available.min(by_memory).clamp(1, MAX_DEFAULT_CONNECTIONS)
        }
    };
    Ok(usize::try_from(cap).unwrap_or(usize::MAX))
}
