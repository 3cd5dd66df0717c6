//! What a server may hold, sized from the machine: the listen backlog, the open-file limit, the
//! memory limit (cgroup v1 and v2, or physical), and the connection cap they allow.

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

/// Why a connection cap was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CapError {
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
pub(super) const LISTEN_BACKLOG: u32 = 4096;

/// Binds `address` (for tests: port 0 picks a free one) with [`LISTEN_BACKLOG`] and
/// `SO_REUSEADDR`, as tokio's `bind` sets it.
pub(super) async fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
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
pub(super) const RESERVED_DESCRIPTORS: u64 = 64;

/// The default connection cap when none is given, never more than the descriptors left after
/// [`RESERVED_DESCRIPTORS`] nor than half the memory over [`WORST_CASE_CONNECTION_BYTES`].
pub(super) const MAX_DEFAULT_CONNECTIONS: u64 = 16_384;

/// The most one connection was measured to make the server hold by its own requests
/// (SECURITY.md, "What an attacker can hold, and for how long": HTTP/2 at window 0, 63 streams
/// of ranges, a `HEAD` every few seconds): h2's frame buffers, the streams' state and answer
/// heads. The page states the figure; a test holds the two together.
pub(super) const MEASURED_CONNECTION_BYTES: u64 = 170 * 1024;

/// What one connection can make the server hold at most, computed from the limits: the
/// measured worst case above plus what an HTTP/2 client may push unread before the connection
/// window closes, rounded up to 128 KiB for what the measure did not see (384 KiB with the
/// defaults). HTTP/1's read and write buffers are less. Answer bodies are references to
/// embedded or cached bytes, or counted by `ServeCatalog`'s byte budget. Kernel socket
/// buffers are not counted (SECURITY.md).
pub(super) const WORST_CASE_CONNECTION_BYTES: u64 = (MEASURED_CONNECTION_BYTES
    + super::protocol::HTTP2_CONNECTION_WINDOW as u64)
    .div_ceil(128 * 1024)
    * (128 * 1024);

/// Raises the soft limit on open files to the hard limit (the usual 1024 would cap the server
/// at about a thousand clients) and returns the limit now in force, as Go's runtime does at
/// start. Elsewhere than Unix there is no such limit: `u64::MAX`.
pub(super) fn raise_descriptor_limit() -> std::io::Result<u64> {
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
pub(super) fn memory_limit() -> Option<u64> {
    crate::serve::stages::memory_plan::memory_limit()
}

/// The connection cap for a descriptor limit and a memory limit: `requested`, when it fits the
/// descriptors, or the default: [`MAX_DEFAULT_CONNECTIONS`] bounded by the descriptors and by
/// the memory connections may spend over [`WORST_CASE_CONNECTION_BYTES`]: half the memory
/// (the rest is the application's) less the default byte budget of heap bodies (an eighth of
/// the memory, at most 256 MiB: [`Decompression::heap_budget`](crate::serve::Decompression)).
pub(super) fn connection_cap(
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
                crate::serve::stages::memory_plan::connection_bytes_for(memory)
                    / WORST_CASE_CONNECTION_BYTES
            });
            available.min(by_memory).clamp(1, MAX_DEFAULT_CONNECTIONS)
        }
    };
    Ok(usize::try_from(cap).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::{
        WORST_CASE_CONNECTION_BYTES, connection_cap, memory_limit, raise_descriptor_limit,
    };

    #[test]
    fn the_default_cap_follows_the_descriptors_and_the_memory() {
        assert_eq!(connection_cap(None, 1024, None), Ok(960));
        assert_eq!(connection_cap(None, 1 << 20, None), Ok(16_384));
        assert_eq!(
            connection_cap(None, 1 << 20, Some(512 << 20)),
            Ok(512),
            "512 MiB"
        );
        assert_eq!(
            connection_cap(None, 1 << 20, Some(256 << 20)),
            Ok(256),
            "256 MiB"
        );
        assert_eq!(connection_cap(Some(100), 1024, Some(512 << 20)), Ok(100));
        assert!(connection_cap(Some(5000), 1024, None).is_err());
        assert!(connection_cap(Some(0), 1024, None).is_err());
    }

    #[test]
    fn the_worst_case_is_computed_from_the_limits() {
        assert_eq!(WORST_CASE_CONNECTION_BYTES, 384 * 1024);
        assert!(WORST_CASE_CONNECTION_BYTES >= 2 * super::super::protocol::HTTP1_BUFFER as u64);
    }

    #[test]
    fn the_machine_s_limits_are_read() {
        assert!(raise_descriptor_limit().expect("getrlimit") >= 64);
        assert!(memory_limit().is_some_and(|bytes| bytes > 0));
    }
}
