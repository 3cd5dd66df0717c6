//! `/metrics` in Prometheus text format: requests by route and status, memory, database.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::answer_cache::AnswerCacheStats;
use crate::db::DbInfo;
use bindery::serve::server::{ConnectionStats, Expired};

/// The label of the SPA's answers (the router's fallback, no matched route).
pub const STATIC: &str = "static";
/// The label of a route the table does not hold.
const OTHER: &str = "other";

const STATUSES: [u16; 13] = [
    200, 206, 304, 307, 400, 404, 405, 408, 413, 416, 431, 500, 503,
];

/// Request counters, one per (route, status) pair, plus one per route for other statuses. The
/// routes are the router's own table ([`for_routes`](Self::for_routes)), so a route added
/// there is counted under its own label.
///
/// ```
/// let metrics = geo_server::metrics::Metrics::for_routes(["/healthz", "/geo/{ip}"]);
/// assert_eq!(metrics.label("/geo/{ip}"), "/geo/:ip");
/// assert_eq!(metrics.label("/nowhere"), "other");
/// metrics.record("/healthz", 200);
/// assert!(metrics.render_requests().contains("route=\"/healthz\",status=\"200\"} 1"));
/// ```
#[derive(Debug)]
pub struct Metrics {
    /// The routes' paths, as the router matches them.
    paths: Vec<&'static str>,
    /// Their labels, then [`STATIC`] and `other`.
    labels: Vec<&'static str>,
    counts: Vec<AtomicU64>,
}

impl Metrics {
    /// Counters for the routes at `paths` (axum's syntax: `/geo/{ip}`). Each is labelled by
    /// its path with `{name}` segments written `:name` (braces inside label values trip up
    /// some scrapers' parsers); the SPA's answers are [`STATIC`], anything else `other`.
    pub fn for_routes(paths: impl IntoIterator<Item = &'static str>) -> Metrics {
        let paths: Vec<&'static str> = paths.into_iter().collect();
        let labels: Vec<&'static str> = paths
            .iter()
            .map(|path| -> &'static str {
                if path.contains('{') {
                    // Made once per route, for the counters' life: the process's.
                    String::leak(path.replace('{', ":").replace('}', ""))
                } else {
                    path
                }
            })
            .chain([STATIC, OTHER])
            .collect();
        Metrics {
            counts: (0..labels.len() * (STATUSES.len() + 1))
                .map(|_| AtomicU64::new(0))
                .collect(),
            paths,
            labels,
        }
    }

    /// The label of the route matched at `matched` (`/geo/{ip}` -> `/geo/:ip`), `other` for
    /// a path that is none of the routes'.
    pub fn label(&self, matched: &str) -> &'static str {
        self.paths
            .iter()
            .position(|path| *path == matched)
            .map_or(OTHER, |index| self.labels[index])
    }

    /// Counts one answered request.
    pub fn record(&self, route: &str, status: u16) {
        let route_index = self
            .labels
            .iter()
            .position(|known| *known == route)
            .unwrap_or(self.labels.len() - 1);
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
        for (route_index, route) in self.labels.iter().enumerate() {
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

/// The whole exposition: requests, memory, heap, the loaded database, the answer cache and the
/// connections.
pub fn render(
    metrics: &Metrics,
    db: &DbInfo,
    answers: &AnswerCacheStats,
    connections: &ConnectionStats,
    heap_in_use: usize,
) -> String {
    let mut out = metrics.render_requests();
    render_memory(&mut out, heap_in_use);
    render_database(&mut out, db);
    render_answer_cache(&mut out, answers);
    render_connections(&mut out, connections);
    out
}

/// One metric's `# HELP` and `# TYPE` lines.
fn describe(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn render_memory(out: &mut String, heap_in_use: usize) {
    let resident = resident();
    describe(
        out,
        "process_resident_memory_bytes",
        "gauge",
        "Resident memory by kind: anon is private (heap), file is the binary and mapped files.",
    );
    for (kind, bytes) in [
        ("anon", resident.anon),
        ("file", resident.file),
        ("shmem", resident.shmem),
    ] {
        let _ = writeln!(
            out,
            "process_resident_memory_bytes{{kind=\"{kind}\"}} {bytes}"
        );
    }
    describe(
        out,
        "geo_heap_in_use_bytes",
        "gauge",
        "Heap bytes allocated now, counted by the global allocator.",
    );
    let _ = writeln!(out, "geo_heap_in_use_bytes {heap_in_use}");
}

fn render_database(out: &mut String, db: &DbInfo) {
    describe(out, "geodb_info", "gauge", "The loaded database.");
    let _ = writeln!(
        out,
        "geodb_info{{mode=\"{}\",database_type=\"{}\",origin=\"{}\"}} 1",
        db.mode.as_str(),
        escape(&db.database_type),
        escape(&db.origin),
    );
    let gauges: [(&str, &str, String); 5] = [
        (
            "geodb_size_bytes",
            "Size of the database.",
            db.size.to_string(),
        ),
        (
            "geodb_build_timestamp_seconds",
            "When the database was built.",
            db.build_epoch.to_string(),
        ),
        (
            "geodb_reader_heap_bytes",
            "Heap retained by the reader when it was created.",
            db.reader_heap_bytes.to_string(),
        ),
        (
            "geodb_jump_table_bytes",
            "Heap of the jump table into the database's search tree.",
            db.jump_table_bytes.to_string(),
        ),
        (
            "geodb_load_seconds",
            "Time to create the reader.",
            db.load_time.as_secs_f64().to_string(),
        ),
    ];
    for (name, help, value) in gauges {
        describe(out, name, "gauge", help);
        let _ = writeln!(out, "{name} {value}");
    }
}

fn render_answer_cache(out: &mut String, answers: &AnswerCacheStats) {
    describe(
        out,
        "geo_answer_cache_lookups_total",
        "counter",
        "Answers whose record part was looked up in the answer cache, by result.",
    );
    let _ = writeln!(
        out,
        "geo_answer_cache_lookups_total{{result=\"hit\"}} {}\n\
         geo_answer_cache_lookups_total{{result=\"miss\"}} {}",
        answers.hits, answers.misses
    );
    describe(
        out,
        "geo_answer_cache_bytes",
        "gauge",
        "Bytes the answer cache holds, of geo_answer_cache_budget_bytes.",
    );
    let _ = writeln!(out, "geo_answer_cache_bytes {}", answers.bytes);
    describe(
        out,
        "geo_answer_cache_slot_bytes",
        "gauge",
        "The answer cache's own slots and hash table, sized by the most answers held since the \
         last reload (beside geo_answer_cache_bytes).",
    );
    let _ = writeln!(out, "geo_answer_cache_slot_bytes {}", answers.slot_bytes);
    describe(
        out,
        "geo_answer_cache_budget_bytes",
        "gauge",
        "The answer cache's budget (0: off).",
    );
    let _ = writeln!(out, "geo_answer_cache_budget_bytes {}", answers.budget);
}

fn render_connections(out: &mut String, connections: &ConnectionStats) {
    let gauges = [
        (
            "geo_connections_open",
            "Connections open now.",
            connections.open,
        ),
        (
            "geo_connections_max",
            "The connection cap (--max-connections).",
            connections.cap,
        ),
        (
            "geo_connections_max_per_client",
            "The cap per client (--max-connections-per-client).",
            connections.per_client,
        ),
        (
            "geo_connections_largest_client",
            "The most connections one client (an IPv4 address, an IPv6 /64) holds now.",
            connections.largest_client,
        ),
        (
            "geo_connections_clients",
            "Clients holding a connection now.",
            connections.clients,
        ),
        (
            "geo_connections_upgraded",
            "Connections handed to the application by an upgrade, open now.",
            connections.upgraded,
        ),
    ];
    for (name, help, value) in gauges {
        describe(out, name, "gauge", help);
        let _ = writeln!(out, "{name} {value}");
    }
    let counters = [
        (
            "geo_connections_evicted_total",
            "Idle connections closed to make room for a new one at a cap.",
            connections.evicted,
        ),
        (
            "geo_connections_evicted_busy_total",
            "Busy connections closed at the cap with nothing idle: the oldest of the client \
             holding the most, to make room for another client's.",
            connections.evicted_busy,
        ),
        (
            "geo_connections_reset_limited_total",
            "HTTP/2 connections ended (GOAWAY) because their client reset too many answered \
             streams.",
            connections.reset_limited,
        ),
    ];
    for (name, help, value) in counters {
        describe(out, name, "counter", help);
        let _ = writeln!(out, "{name} {value}");
    }
    render_refused_and_expired(out, connections);
}

/// The labelled connection counters: refused by limit, expired by phase.
fn render_refused_and_expired(out: &mut String, connections: &ConnectionStats) {
    describe(
        out,
        "geo_connections_refused_total",
        "counter",
        "Connections refused at accept, no idle connection making room, by the limit reached.",
    );
    let _ = writeln!(
        out,
        "geo_connections_refused_total{{limit=\"cap\"}} {}\n\
         geo_connections_refused_total{{limit=\"client\"}} {}",
        connections.refused_full, connections.refused_per_client
    );
    describe(
        out,
        "geo_connections_expired_total",
        "counter",
        "Connections closed at a deadline, by phase.",
    );
    for (reason, count) in Expired::ALL.iter().zip(connections.expired) {
        let _ = writeln!(
            out,
            "geo_connections_expired_total{{phase=\"{}\"}} {count}",
            reason.as_str()
        );
    }
}
