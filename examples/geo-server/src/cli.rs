//! Command-line flags.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::db::DbMode;
use crate::private_copy::PrivateCopy;
use bindery::serve::server::{ForwardingHeader, TrustedProxies};

/// Timeouts are whole seconds within this range: a deadline of days is none, and one near
/// `u64::MAX` overflowed every sum it entered.
const SECONDS: std::ops::RangeInclusive<u64> = 1..=86_400;

/// bindery's geo server: a single-page app and `/geo/<ip>` from one binary.
///
/// The GeoIP database is embedded (default), copied to the heap (to show what that costs), or
/// memory-mapped from a file. The mmap mode maps a private copy made at load time (page cache,
/// not heap; `--geodb-copy`), so the file may be replaced in any way, rename or in place. The
/// server reloads it on SIGHUP or when the file at the path changes.
#[derive(Debug, clap::Parser)]
#[command(name = "geo-server", version)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Where the database bytes live.
    #[arg(long, value_enum, default_value_t = DbMode::Embed)]
    pub geodb_mode: DbMode,
    /// Database file: required for `mmap`; for `copy`, read whole into the heap instead of
    /// copying the embedded database.
    #[arg(long, required_if_eq("geodb_mode", "mmap"))]
    pub geodb: Option<PathBuf>,
    /// What the mmap mode maps: `tmpfile`, an unnamed copy beside the file (page cache,
    /// reclaimable; a sealed memfd where the directory takes none); `memfd`, a sealed copy in
    /// memory; `off`, the file itself, which then must only ever be replaced by an atomic
    /// rename (`mv new.mmdb live.mmdb`), never truncated or rewritten in place (`cp`,
    /// `curl -o`, `rsync --inplace`), or lookups die with SIGBUS.
    #[arg(long, value_enum, default_value_t = PrivateCopy::Tmpfile)]
    pub geodb_copy: PrivateCopy,
    /// Proxies you run, as CIDRs or addresses (`10.0.0.0/8,2001:db8::/32`; `loopback`, also
    /// what the bare flag means): `/geo/me` believes the forwarding header
    /// (`--trust-proxy-header`) only from a peer in these ranges, and takes the right-most
    /// address in it that is not one of them. Where the walk meets an entry that names no
    /// address (`unknown`), or finds every address trusted, `/geo/me` answers 400: the client's
    /// address is not known. Connections from these peers count against `--max-connections`
    /// only, not per client.
    #[arg(
        long,
        value_name = "CIDR[,CIDR...]",
        num_args = 0..=1,
        default_missing_value = "loopback",
    )]
    pub trust_proxy: Option<TrustedProxies>,
    /// The forwarding header your proxy writes; the other is ignored (a client may send it).
    #[arg(
        long,
        default_value = "x-forwarded-for",
        value_parser = clap::builder::TypedValueParser::try_map(
            clap::builder::PossibleValuesParser::new(["x-forwarded-for", "forwarded"]),
            |name| name.parse::<ForwardingHeader>(),
        ),
    )]
    pub trust_proxy_header: ForwardingHeader,
    /// Seconds caches (browsers, CDNs, proxies) may keep `/geo/<ip>` answers
    /// (`Cache-Control: max-age=N`); they revalidate with the ETag after.
    #[arg(long, default_value_t = crate::caching::DEFAULT_GEO_MAX_AGE)]
    pub geo_max_age: u64,
    /// MiB kept of rendered answers by database record (addresses of one city share them);
    /// 0 decodes every answer.
    #[arg(long, default_value_t = crate::answer_cache::DEFAULT_MIB)]
    pub answer_cache_mib: usize,
    /// Log filter, e.g. `info`, `debug`, `geo_server=debug`.
    #[arg(long, default_value = "info")]
    pub log: String,
    /// Seconds from accepting a connection to its first complete request head, whatever the
    /// protocol (one byte, or an HTTP/2 preface, and then silence is closed at this deadline);
    /// for HTTP/1, also each later request head once its first byte came.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(SECONDS))]
    pub header_read_timeout: u64,
    /// Seconds a connection may idle between requests (keep-alive, HTTP/1 and HTTP/2), and an
    /// answer in flight may make no progress (a client that stopped reading, an HTTP/2 stream
    /// held at window 0), before it is closed. A slow download that keeps moving is not cut.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(SECONDS))]
    pub idle_timeout: u64,
    /// Connections open at once. At the cap, the connection idle the longest is closed to make
    /// room; only when none is idle is a new one refused with a 503. Default: the open-file
    /// limit (raised to its hard limit at start) less 64 kept back, and half the memory (cgroup
    /// limit or physical) over 384 KiB a connection, at most 16384.
    #[arg(long)]
    pub max_connections: Option<u64>,
    /// Connections one client (an IPv4 address, an IPv6 /64) may hold; beyond it its own
    /// longest idle one is closed, or the new one refused.
    /// Default: `Server`'s (256).
    #[arg(long)]
    pub max_connections_per_client: Option<usize>,
    /// Serve `/metrics` on the public listener too (it is off there by default; see
    /// `--admin-addr`).
    #[arg(long)]
    pub public_metrics: bool,
    /// Serve `/metrics` (and `/healthz`) on this address, apart from the public one, e.g.
    /// `--admin-addr 127.0.0.1:9090`. Without it (or `--public-metrics`) there is no
    /// `/metrics`: a loopback public address is no sign of privacy behind a proxy on the host.
    #[arg(long)]
    pub admin_addr: Option<SocketAddr>,
    /// Seconds one request may take.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(SECONDS))]
    pub request_timeout: u64,
    /// Seconds shutdown waits for requests in flight.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub shutdown_grace: u64,
    /// A folder laid over the app's embedded files: a file there replaces the embedded one
    /// (themes, branding, a hotfix without a rebuild). Read with the build's jail: no `..`,
    /// no link out, no hidden file, none over 64 MiB; replace its files by rename.
    #[arg(long, value_name = "DIR")]
    pub spa_overlay: Option<std::path::PathBuf>,
    /// Send the app's files with `sendfile(2)` from the executable (Linux): no copy of their
    /// bytes into the kernel. For plain-TCP listeners; behind TLS terminated here it changes
    /// nothing. BENCHMARKS.md, "Zero-copy sending", says when it pays.
    #[arg(long)]
    pub zero_copy: bool,
    /// Seconds between checks for a replaced database file (`mmap` mode).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(SECONDS))]
    pub reload_poll: u64,
}
