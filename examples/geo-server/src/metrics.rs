//! `/metrics` in Prometheus text format: requests by route and status, memory, database.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::answer_cache::AnswerCacheStats;
use crate::connection::ConnectionStats;
use crate::db::DbInfo;

/// Route labels; requests are counted per label without allocating. Path parameters are written
/// `:ip` rather than `{ip}`: braces inside label values trip up some scrapers' parsers.
pub const ROUTES: [&str; 7] = [
    "/geo/:ip",
    "/geo/me",
    "/healthz",
    "/metrics",
    "/openapi.json",
    "static",
    "other",
];

/// The label of a matched route (`/geo/{ip}` -> `/geo/:ip`), `other` for unknown ones.
///
/// ```
/// assert_eq!(geo_server::metrics::route_label("/geo/{ip}"), "/geo/:ip");
/// assert_eq!(geo_server::metrics::route_label("/healthz"), "/healthz");
/// ```
pub fn route_label(matched: &str) -> &'static str {
    let label = if matched == "/geo/{ip}" {
        "/geo/:ip"
    } else {
        matched
    };
    ROUTES
        .iter()
        .copied()
        .find(|route| *route == label)
        .unwrap_or("other")
}

const STATUSES: [u16; 13] = [
    200, 206, 304, 307, 400, 404, 405, 408, 413, 416, 431, 500, 503,
];

/// Request counters, one per (route, status) pair, plus one per route for other statuses.
///
/// ```
/// let metrics = geo_server::metrics::Metrics::default();
/// metrics.record("/healthz", 200);
/// assert!(metrics.render_requests().contains("route=\"/healthz\",status=\"200\"} 1"));
/// ```
#[derive(Debug)]
pub struct Metrics {
    counts: Vec<AtomicU64>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            counts: (0..ROUTES.len() * (STATUSES.len() + 1))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }
}

impl Metrics {
    /// Counts one answered request.
    pub fn record(&self, route: &str, status: u16) {
        let route_index = ROUTES
            .iter()
            .position(|known| *known == route)
            .unwrap_or(ROUTES.len() - 1);
        let status_index = STATUSES
            .iter()
            .position(|known| *known == status)
            .unwrap_or(STATUSES.len());
        self.counts[route_index * (STATUSES.len() + 1) + status_index]
            .fetch_add(1, Ordering::Relaxed);
    }

    /// The request counters in text format.
    pub fn render_requests(&self) -> String {
        let mut out = String::from(
            "# HELP geo_http_requests_total Requests answered, by route and status.\n# TYPE geo_http_requests_total counter\n",
        );
        for (route_index, route) in ROUTES.iter().enumerate() {
            for status_index in 0..=STATUSES.len() {
                let count = self.counts[route_index * (STATUSES.len() + 1) + status_index]
                    .load(Ordering::Relaxed);
                if count == 0 {
                    continue;
                }
                let status = STATUSES
                    .get(status_index)
                    .map_or_else(|| "other".to_owned(), u16::to_string);
                let _ = writeln!(
                    out,
                    "geo_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {count}"
                );
            }
        }
        out
    }
}

/// Resident memory of this process split as the kernel reports it, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resident {
    /// Private memory: heap, stacks (`RssAnon`).
    pub anon: u64,
    /// File-backed pages: the binary (with embedded data) and memory maps (`RssFile`).
    pub file: u64,
    /// Shared memory (`RssShmem`).
    pub shmem: u64,
}

/// Reads `/proc/self/status`; zeros where it is not available.
pub fn resident() -> Resident {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mut resident = Resident::default();
    for line in status.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let kilobytes = value
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .unwrap_or(0);
        match name {
            "RssAnon" => resident.anon = kilobytes * 1024,
            "RssFile" => resident.file = kilobytes * 1024,
            "RssShmem" => resident.shmem = kilobytes * 1024,
            _ => {}
        }
    }
    resident
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The whole exposition: requests, memory, heap, the loaded database and the answer cache.
pub fn render(
    metrics: &Metrics,
    db: &DbInfo,
    answers: &AnswerCacheStats,
    connections: &ConnectionStats,
    heap_in_use: usize,
) -> String {
    let mut out = metrics.render_requests();
    let resident = resident();
    let _ = write!(
        out,
        "# HELP process_resident_memory_bytes Resident memory by kind: anon is private (heap), file is the binary and mapped files.\n\
         # TYPE process_resident_memory_bytes gauge\n\
         process_resident_memory_bytes{{kind=\"anon\"}} {}\n\
         process_resident_memory_bytes{{kind=\"file\"}} {}\n\
         process_resident_memory_bytes{{kind=\"shmem\"}} {}\n\
         # HELP geo_heap_in_use_bytes Heap bytes allocated now, counted by the global allocator.\n\
         # TYPE geo_heap_in_use_bytes gauge\n\
         geo_heap_in_use_bytes {heap_in_use}\n\
         # HELP geodb_info The loaded database.\n\
         # TYPE geodb_info gauge\n\
         geodb_info{{mode=\"{}\",database_type=\"{}\",origin=\"{}\"}} 1\n\
         # HELP geodb_size_bytes Size of the database.\n\
         # TYPE geodb_size_bytes gauge\n\
         geodb_size_bytes {}\n\
         # HELP geodb_build_timestamp_seconds When the database was built.\n\
         # TYPE geodb_build_timestamp_seconds gauge\n\
         geodb_build_timestamp_seconds {}\n\
         # HELP geodb_reader_heap_bytes Heap retained by the reader when it was created.\n\
         # TYPE geodb_reader_heap_bytes gauge\n\
         geodb_reader_heap_bytes {}\n\
         # HELP geodb_load_seconds Time to create the reader.\n\
         # TYPE geodb_load_seconds gauge\n\
         geodb_load_seconds {}\n\
         # HELP geo_answer_cache_lookups_total Answers whose record part was looked up in the answer cache, by result.\n\
         # TYPE geo_answer_cache_lookups_total counter\n\
         geo_answer_cache_lookups_total{{result=\"hit\"}} {}\n\
         geo_answer_cache_lookups_total{{result=\"miss\"}} {}\n\
         # HELP geo_answer_cache_bytes Bytes the answer cache holds, of geo_answer_cache_budget_bytes.\n\
         # TYPE geo_answer_cache_bytes gauge\n\
         geo_answer_cache_bytes {}\n\
         # HELP geo_answer_cache_budget_bytes The answer cache's budget (0: off).\n\
         # TYPE geo_answer_cache_budget_bytes gauge\n\
         geo_answer_cache_budget_bytes {}\n",
        resident.anon,
        resident.file,
        resident.shmem,
        db.mode.as_str(),
        escape(&db.database_type),
        escape(&db.origin),
        db.size,
        db.build_epoch,
        db.reader_heap_bytes,
        db.load_time.as_secs_f64(),
        answers.hits,
        answers.misses,
        answers.bytes,
        answers.budget,
    );
    let _ = write!(
        out,
        "# HELP geo_connections_open Connections open now.\n\
         # TYPE geo_connections_open gauge\n\
         geo_connections_open {}\n\
         # HELP geo_connections_max The connection cap (--max-connections).\n\
         # TYPE geo_connections_max gauge\n\
         geo_connections_max {}\n\
         # HELP geo_connections_refused_total Connections refused at accept, the cap being reached.\n\
         # TYPE geo_connections_refused_total counter\n\
         geo_connections_refused_total {}\n\
         # HELP geo_connections_expired_total Connections closed at a deadline, by phase.\n\
         # TYPE geo_connections_expired_total counter\n\
         geo_connections_expired_total{{phase=\"first_request\"}} {}\n\
         geo_connections_expired_total{{phase=\"idle\"}} {}\n\
         geo_connections_expired_total{{phase=\"stalled\"}} {}\n",
        connections.open,
        connections.cap,
        connections.refused,
        connections.expired_first_request,
        connections.expired_idle,
        connections.expired_stalled,
    );
    out
}
