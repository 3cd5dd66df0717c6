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
/// half the memory over [`WORST_CASE_CONNECTION_BYTES`] (the rest is the application's).
///
/// ```
/// use bindery::serve::server::connection_cap;
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
