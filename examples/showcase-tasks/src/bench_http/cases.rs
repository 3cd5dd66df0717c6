//! What `bench-http` measures: one row per case, each a path on `bench-server` with the client
//! headers and connection count that make the point.

/// One measured configuration.
pub struct Case {
    /// What is fetched (the row group).
    pub target: &'static str,
    /// How (the row).
    pub config: &'static str,
    pub path: &'static str,
    /// The client's `Accept-Encoding`, if it sends one.
    pub accept_encoding: Option<&'static str>,
    /// Whether wrk runs `benches/wrk/geo.lua` (random `/geo/` addresses).
    pub script: bool,
    pub connections: u32,
    pub server_args: &'static [&'static str],
    /// The binary serving it: `bench-server`, or `bench-bare` for the reference.
    pub server: &'static str,
}

/// A file case; the 17 MiB file gets few connections (each response is 17 MiB).
const fn file(
    target: &'static str,
    config: &'static str,
    path: &'static str,
    accept_encoding: Option<&'static str>,
    connections: u32,
) -> Case {
    Case {
        target,
        config,
        path,
        accept_encoding,
        script: false,
        connections,
        server_args: &[],
        server: BENCH_SERVER,
    }
}

/// A `/geo/<random ip>` case, addresses from `benches/wrk/geo.lua`.
const fn geo(config: &'static str, server_args: &'static [&'static str]) -> Case {
    Case {
        target: "/geo/<random ip>",
        config,
        path: "/",
        accept_encoding: None,
        script: true,
        // As the issue that set the targets measured it: wrk -c50.
        connections: 50,
        server_args,
        server: BENCH_SERVER,
    }
}

/// geo-server's app plus the bench catalogs.
pub const BENCH_SERVER: &str = "bench-server";
/// A bare axum router with one static route: the ceiling every row is compared with.
pub const BENCH_BARE: &str = "bench-bare";

/// The reference row's configuration name.
pub const REFERENCE: &str = "bare axum, `Bytes::from_static` (reference)";
/// The same reference at 50 connections, for the `/geo` rows.
pub const REFERENCE_50: &str = "bare axum, `Bytes::from_static`, 50 connections (reference)";

const VUE: &str = "vue.min.js";
const LARGE: &str = "17 MiB";
/// The seed's finding is about concurrency: memory held per request in flight.
const LARGE_50: &str = "17 MiB, 50 connections";
/// Every case, in table order.
pub const CASES: [Case; 21] = [
    Case {
        target: "1 KiB text",
        config: REFERENCE,
        path: "/small.txt",
        accept_encoding: None,
        script: false,
        connections: 16,
        server_args: &[],
        server: BENCH_BARE,
    },
    Case {
        target: "1 KiB text",
        config: REFERENCE_50,
        path: "/small.txt",
        accept_encoding: None,
        script: false,
        connections: 50,
        server_args: &[],
        server: BENCH_BARE,
    },
    file(VUE, "static", "/bench/static/web/vue.min.js", None, 16),
    file(
        VUE,
        "gzip, client takes gzip",
        "/bench/gzip/web/vue.min.js",
        Some("gzip"),
        16,
    ),
    file(
        VUE,
        "br variant, client takes br",
        "/bench/precompressed/web/vue.min.js",
        Some("br"),
        16,
    ),
    file(
        VUE,
        "zstd variant, client takes zstd",
        "/bench/precompressed/web/vue.min.js",
        Some("zstd"),
        16,
    ),
    file(
        VUE,
        "gzip, decompress per read",
        "/bench/gzip/web/vue.min.js",
        None,
        16,
    ),
    file(VUE, "copy", "/bench/copy/web/vue.min.js", None, 16),
    file(LARGE, "static", "/bench/static/large/noise.bin", None, 2),
    file(
        LARGE,
        "gzip (stored raw: saves < 5%)",
        "/bench/gzip/large/noise.bin",
        Some("gzip"),
        2,
    ),
    file(LARGE, "copy", "/bench/copy/large/noise.bin", None, 2),
    file(
        LARGE,
        "go-bindata: gzip decompressed per request",
        "/bench/gobindata/large/noise.bin",
        None,
        2,
    ),
    file(
        LARGE_50,
        "static",
        "/bench/static/large/noise.bin",
        None,
        50,
    ),
    file(LARGE_50, "copy", "/bench/copy/large/noise.bin", None, 50),
    file(
        LARGE_50,
        "go-bindata: gzip decompressed per request",
        "/bench/gobindata/large/noise.bin",
        None,
        50,
    ),
    geo("DB embed", &["--geodb-mode", "embed"]),
    geo(
        "DB embed, no answer cache",
        &["--geodb-mode", "embed", "--answer-cache-mib", "0"],
    ),
    geo("DB copy", &["--geodb-mode", "copy"]),
    geo("DB mmap", &["--geodb-mode", "mmap"]),
    file(
        "1 KiB text",
        "static",
        "/bench/static/web/small.txt",
        None,
        16,
    ),
    file(
        "1 KiB text",
        "static, 50 connections",
        "/bench/static/web/small.txt",
        None,
        50,
    ),
];
