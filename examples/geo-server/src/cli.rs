//! Command-line flags.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::db::DbMode;

/// bindery's geo server: a single-page app and `/geo/<ip>` from one binary.
///
/// The GeoIP database is embedded (default), copied to the heap (to show what that costs), or
/// memory-mapped from a file. A mapped file must only ever be replaced by an atomic rename
/// (`mv new.mmdb GeoLite2-City.mmdb`), never truncated or rewritten in place: readers of a
/// truncated map die with SIGBUS. The server reloads it on SIGHUP or when the file is replaced.
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
    /// Believe `X-Forwarded-For` for `/geo/me` (only behind a proxy you run).
    #[arg(long)]
    pub trust_proxy: bool,
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
    /// Seconds a client may take to send the request head.
    #[arg(long, default_value_t = 10)]
    pub header_read_timeout: u64,
    /// Seconds one request may take.
    #[arg(long, default_value_t = 30)]
    pub request_timeout: u64,
    /// Seconds shutdown waits for requests in flight.
    #[arg(long, default_value_t = 30)]
    pub shutdown_grace: u64,
    /// Seconds between checks for a replaced database file (`mmap` mode).
    #[arg(long, default_value_t = 5)]
    pub reload_poll: u64,
}
