//! `cargo xtask bench-nginx`: bindery against nginx at its best, and `/geo` against a bare
//! handler, in one persistent paired harness.
//!
//! Every server is started once, pinned to core 0, and warmed; wrk runs pinned to core 1. For
//! each file, every nginx tuning ([`nginx::TUNINGS`]) is measured and the cheapest in CPU per
//! request becomes the reference; then each bindery configuration runs right after a run of
//! that reference, pair after pair, and the figure is the median of the per-pair ratios (this
//! machine's speed drifts by 10-20% over minutes: only runs seconds apart compare). Every pair
//! is reported. `bench-http` keeps the tables that compare bindery with itself.

mod measure;
mod nginx;
mod report;
mod server;

use std::path::Path;
use std::process::Command;

use anyhow::Context;

use crate::process::{build_release_binary, ensure_wrk, geolite2};
use measure::{Load, Run};
use server::Server;

/// Flags of `cargo xtask bench-nginx`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One pair of 2 s runs and one run per nginx tuning (a smoke test of the harness).
    #[arg(long)]
    pub quick: bool,
    /// Pairs per comparison.
    #[arg(long, default_value_t = 5)]
    pub pairs: u32,
    /// Seconds per run.
    #[arg(long, default_value_t = 5)]
    pub seconds: u32,
    /// Run only the comparisons whose title contains this text (`vue`, `17 MiB`, `/geo`).
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
    /// Run only the contenders whose name contains this text (`Server`, `floor`).
    #[arg(long, value_name = "TEXT")]
    pub contenders: Option<String>,
}

/// A bindery server compared with the reference.
struct Contender {
    name: &'static str,
    binary: &'static str,
    args: &'static [&'static str],
    /// Run from `target/release` as the linker left it, instead of an installed copy.
    from_linker: bool,
}

/// A file served by nginx and by every contender, with the path each serves it at.
struct File {
    name: &'static str,
    nginx_path: &'static str,
    /// `bench-plain`'s path, then `bench-server`'s.
    paths: [&'static str; 2],
}

const PLAIN: &str = "bench-plain";
const SERVER: &str = "bench-server";
const BARE: &str = "bench-bare";

const FILES: [File; 2] = [
    File {
        name: "vue.min.js (105 KiB)",
        nginx_path: "/vue.min.js",
        paths: ["/web/vue.min.js", "/bench/static/web/vue.min.js"],
    },
    File {
        name: "17 MiB",
        nginx_path: "/noise.bin",
        paths: ["/large/noise.bin", "/bench/static/large/noise.bin"],
    },
];

/// What a user's crate runs, the variants tried against it, and the floors under it: the same
/// stack without `ServeCatalog`, and hyper without axum (what no handler on them can undercut).
const CONTENDERS: [Contender; 10] = [
    Contender {
        name: "user crate, `axum::serve`, `#[tokio::main]` (plain path)",
        binary: PLAIN,
        args: &[],
        from_linker: false,
    },
    Contender {
        name: "user crate, `bindery::serve::Server`, `#[tokio::main]` (plain path)",
        binary: PLAIN,
        args: &["--server", "bindery"],
        from_linker: false,
    },
    Contender {
        name: "user crate, `ZeroCopyListener`, `#[tokio::main]`",
        binary: PLAIN,
        args: &["--zero-copy"],
        from_linker: false,
    },
    Contender {
        name: "user crate, `bindery::serve::Server` with `.zero_copy(true)`, `#[tokio::main]`",
        binary: PLAIN,
        args: &["--zero-copy", "--server", "bindery"],
        from_linker: false,
    },
    Contender {
        name: "the same, run from `target/release` (page cache as the linker wrote it)",
        binary: PLAIN,
        args: &["--zero-copy"],
        from_linker: true,
    },
    Contender {
        name: "user crate, `ZeroCopyListener`, current-thread runtime",
        binary: PLAIN,
        args: &["--zero-copy", "--runtime", "current-thread"],
        from_linker: false,
    },
    Contender {
        name: "user crate, plain path, current-thread runtime",
        binary: PLAIN,
        args: &["--runtime", "current-thread"],
        from_linker: false,
    },
    Contender {
        name: "geo-server's stack (`bench-server --zero-copy`)",
        binary: SERVER,
        args: &["--zero-copy"],
        from_linker: false,
    },
    Contender {
        name: "floor: a bare axum handler instead of `ServeCatalog`, `ZeroCopyListener`",
        binary: PLAIN,
        args: &["--zero-copy", "--handler", "bare-axum"],
        from_linker: false,
    },
    Contender {
        name: "floor: hyper's HTTP/1 alone, no axum, `ZeroCopyStream`",
        binary: PLAIN,
        args: &["--zero-copy", "--handler", "bare-hyper"],
        from_linker: false,
    },
];

const GEO: &str = "/geo/<random ip>";

/// wrk's connections, as the issue that set the targets measured them.
const CONNECTIONS: u32 = 50;

/// The comparisons of one reference with its contenders: every pair of runs.
#[derive(Debug, serde::Serialize)]
pub struct Comparison {
    pub title: String,
    /// Each tuning tried with its runs, cheapest first; the first is the reference.
    pub tunings: Vec<(String, Vec<Run>)>,
    pub reference: String,
    pub rows: Vec<Row>,
}

/// One contender's pairs: (reference run, contender run).
#[derive(Debug, serde::Serialize)]
pub struct Row {
    pub name: String,
    pub pairs: Vec<(Run, Run)>,
}

/// Runs the comparisons and writes `target/bench/nginx.md`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    ensure_wrk()?;
    for binary in [PLAIN, SERVER, BARE] {
        build_release_binary("bindery-benches", binary)?;
        install(binary)?;
    }
    if geolite2().is_none() {
        eprintln!(
            "note: no GeoLite2 database in assets/geo (`cargo xtask geodb`): /geo looks up the sample"
        );
    }
    let (pairs, seconds, tuning_runs) = if args.quick {
        (1, 2, 1)
    } else {
        (args.pairs, args.seconds, 3)
    };
    let wanted = |title: &str| {
        args.only
            .as_ref()
            .is_none_or(|only| title.contains(only.as_str()))
    };
    let mut comparisons = Vec::new();
    for file in FILES.iter().filter(|file| wanted(file.name)) {
        let only = args.contenders.as_deref();
        comparisons.push(versus_nginx(file, only, pairs, seconds, tuning_runs)?);
    }
    if wanted(GEO) {
        comparisons.push(geo_versus_bare(pairs, seconds)?);
    }
    let text = report::markdown(&comparisons, pairs, seconds, &system());
    let out = Path::new("target/bench");
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("nginx.md"), &text)?;
    std::fs::write(
        out.join("nginx.json"),
        serde_json::to_string_pretty(&comparisons)?,
    )?;
    println!("{text}");
    eprintln!("wrote target/bench/nginx.{{md,json}}");
    Ok(())
}

/// What the figures depend on beyond the code: nginx's version, the kernel, the file system
/// the executables and nginx's files are on (how the page cache holds them), and the TCP
/// congestion control (BBR without the `fq` qdisc paces segments with timers of its own).
fn system() -> String {
    let output = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .map(|output| {
                let text = [output.stdout, output.stderr].concat();
                String::from_utf8_lossy(&text).trim().to_owned()
            })
            .unwrap_or_default()
    };
    let nginx = output("/usr/sbin/nginx", &["-v"]);
    let sysctl = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/net/{name}"))
            .map(|value| value.trim().to_owned())
            .unwrap_or_else(|_| "unknown".to_owned())
    };
    format!(
        "{}, Linux {}, target/ on {}, TCP congestion control {} (qdisc {})",
        nginx.strip_prefix("nginx version: ").unwrap_or(&nginx),
        output("uname", &["-r"]),
        output("stat", &["-f", "-c", "%T", "target"]),
        sysctl("ipv4/tcp_congestion_control"),
        sysctl("core/default_qdisc"),
    )
}

/// Copies a built bench binary to `target/bench/bin/`, as `cargo install`, a package or a
/// container image puts a binary in place: a new file, whose pages the kernel caches as it
/// caches any file written whole, where the linker's output is cached as the linker wrote it.
/// `sendfile` of embedded bytes reads those pages (BENCHMARKS.md, "Zero-copy sending").
fn install(binary: &str) -> anyhow::Result<()> {
    let built = Path::new("target/release").join(binary);
    let installed = Path::new(INSTALLED).join(binary);
    std::fs::create_dir_all(INSTALLED)?;
    // Removed first: a new file leaves no page of an older copy in the cache.
    let _ = std::fs::remove_file(&installed);
    std::fs::copy(&built, &installed)
        .with_context(|| format!("cannot install {}", built.display()))?;
    Ok(())
}

/// Where [`install`] puts the bench binaries.
const INSTALLED: &str = "target/bench/bin";

/// Starts a bench binary pinned to core 0: its installed copy, or, `from_linker`, the file the
/// linker wrote.
fn start_binary(
    label: &str,
    binary: &str,
    args: &[&str],
    from_linker: bool,
) -> anyhow::Result<Server> {
    let folder = if from_linker {
        "target/release"
    } else {
        INSTALLED
    };
    let mut command = Command::new("taskset");
    command
        .args(["-c", "0"])
        .arg(Path::new(folder).join(binary))
        .args(args);
    Server::start(label.to_owned(), &mut command)
}

/// A few seconds of load so that caches, page tables and the runtime's threads are warm.
fn warm(server: &Server, load: Load) -> anyhow::Result<()> {
    measure::run(server, load, 2).map(drop)
}

/// The runs of every nginx tuning on `file`, interleaved, cheapest (median CPU) first; the
/// servers stay up, in the same order.
fn rank_tunings(file: &File, runs: u32, seconds: u32) -> anyhow::Result<Vec<(Server, Vec<Run>)>> {
    let load = Load::path(file.nginx_path);
    let mut tried = Vec::new();
    for tuning in &nginx::TUNINGS {
        let server = nginx::start(tuning)?;
        warm(&server, load)?;
        tried.push((server, Vec::new()));
    }
    for round in 1..=runs {
        for (server, runs) in &mut tried {
            eprintln!("{}: {} (tuning, run {round})", file.name, server.label);
            runs.push(measure::run(server, load, seconds)?);
        }
    }
    tried.sort_by(|a, b| median_cpu(&a.1).total_cmp(&median_cpu(&b.1)));
    Ok(tried)
}

fn median_cpu(runs: &[Run]) -> f64 {
    report::median(runs.iter().map(|run| run.cpu_us_per_request).collect())
}

/// nginx at its best on `file`, then every contender (whose name contains `only`, if given)
/// paired with it.
fn versus_nginx(
    file: &File,
    only: Option<&str>,
    pairs: u32,
    seconds: u32,
    runs: u32,
) -> anyhow::Result<Comparison> {
    let mut ranked = rank_tunings(file, runs, seconds)?;
    let tunings = ranked
        .iter()
        .map(|(server, runs)| (server.label.clone(), runs.clone()))
        .collect();
    // Only the cheapest stays up.
    ranked.truncate(1);
    let (reference, _) = ranked.pop().context("no nginx tuning")?;
    let reference_load = Load::path(file.nginx_path);
    let mut contenders = Vec::new();
    let chosen = CONTENDERS
        .iter()
        .filter(|contender| only.is_none_or(|only| contender.name.contains(only)));
    for contender in chosen {
        let server = start_binary(
            contender.name,
            contender.binary,
            contender.args,
            contender.from_linker,
        )?;
        let load = Load::path(file.paths[usize::from(contender.binary == SERVER)]);
        warm(&server, load)?;
        contenders.push((server, load));
    }
    let rows = paired(&reference, reference_load, &contenders, pairs, seconds)?;
    Ok(Comparison {
        title: format!("{}, {CONNECTIONS} connections", file.name),
        tunings,
        reference: reference.label.clone(),
        rows,
    })
}

/// `pairs` rounds: in each, for every contender, a run of the reference and right after it
/// one of the contender.
fn paired(
    reference: &Server,
    reference_load: Load,
    contenders: &[(Server, Load)],
    pairs: u32,
    seconds: u32,
) -> anyhow::Result<Vec<Row>> {
    let mut rows: Vec<Row> = contenders
        .iter()
        .map(|(server, _)| Row {
            name: server.label.clone(),
            pairs: Vec::new(),
        })
        .collect();
    for pair in 1..=pairs {
        for ((server, load), row) in contenders.iter().zip(&mut rows) {
            eprintln!(
                "pair {pair}/{pairs}: {} then {}",
                reference.label, server.label
            );
            let before = measure::run(reference, reference_load, seconds)?;
            let after = measure::run(server, *load, seconds)?;
            row.pairs.push((before, after));
        }
    }
    Ok(rows)
}

/// `/geo/<random ip>` on geo-server's stack against a bare axum route's static 1 KiB answer.
fn geo_versus_bare(pairs: u32, seconds: u32) -> anyhow::Result<Comparison> {
    let reference_name = "bare axum route, `Bytes::from_static` 1 KiB (`bench-bare`)";
    let reference = start_binary(reference_name, BARE, &[], false)?;
    let reference_load = Load::path("/small.txt");
    warm(&reference, reference_load)?;
    let load = Load {
        path: "/",
        connections: CONNECTIONS,
        script: Some("benches/wrk/geo.lua"),
    };
    let mut contenders = Vec::new();
    for (name, binary, args) in [
        ("geo-server's stack, DB embedded", SERVER, &[][..]),
        (
            "geo-server's stack, DB embedded, no answer cache",
            SERVER,
            &["--answer-cache-mib", "0"][..],
        ),
        // The answer alone on the reference's stack: what `/geo` costs before geo-server's
        // layers.
        (
            "floor: the same answer from a bare axum route (`bench-bare --geo`)",
            BARE,
            &["--geo"][..],
        ),
    ] {
        let server = start_binary(name, binary, args, false)?;
        warm(&server, load)?;
        contenders.push((server, load));
    }
    let rows = paired(&reference, reference_load, &contenders, pairs, seconds)?;
    Ok(Comparison {
        title: format!("{GEO} against a bare handler, {CONNECTIONS} connections"),
        tunings: Vec::new(),
        reference: reference_name.to_owned(),
        rows,
    })
}
