//! `cargo xtask bench-nginx`: bindery against nginx at its best, and `/geo` against a bare
//! handler, in one persistent paired harness.
//!
//! Every server is started once, pinned to core 0, and warmed; wrk runs pinned to core 1. For
//! each file, every nginx tuning ([`nginx::TUNINGS`]) is measured and the cheapest in CPU per
//! request becomes the reference (or, with `--reference`, one of the contenders does); then
//! each bindery configuration runs side by side with that reference, pair after pair: both at
//! once, each with its own wrk, sharing core 0 and core 1, so that they see the same machine.
//! The figure is the median of the per-pair ratios. This machine's speed drifts by 10-20% over
//! minutes; runs one after the other (`--sequential`, the first method) differ far more from
//! pair to pair than runs side by side (BENCHMARKS.md, "What `bindery::serve::Server` costs per
//! request over `axum::serve`"). Every pair is reported.
//! `bench-http` keeps the tables that compare bindery with itself.

mod measure;
mod nginx;
mod peers;
mod report;
mod server;

use std::path::Path;
use std::process::Command;

use anyhow::Context;

use crate::process::{build_release_binary, ensure_wrk, geolite2};
use measure::{Load, Run};
use peers::Peer;
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
    /// Pair the contenders with the one whose name contains this text instead of with nginx
    /// (`axum::serve`, `bare axum`).
    #[arg(long, value_name = "TEXT")]
    pub reference: Option<String>,
    /// Run each pair's contender right after its reference instead of side by side.
    #[arg(long)]
    pub sequential: bool,
    /// The peer table: bindery's `mounted_at` rows beside rust-embed + axum-embed, `ServeDir`,
    /// memory-serve, static-web-server, h2o and Caddy (built or installed first).
    #[arg(long)]
    pub peers: bool,
}

/// A server compared with the reference: one of bindery's bench binaries, or a peer.
struct Contender {
    name: &'static str,
    launch: Launch,
}

/// How a contender is started.
#[derive(Clone, Copy)]
enum Launch {
    /// A bench binary with its flags: its installed copy, or, `from_linker`, the file in
    /// `target/release` as the linker left it.
    Bench {
        binary: &'static str,
        args: &'static [&'static str],
        from_linker: bool,
    },
    /// One of the other ways users serve files ([`peers`]).
    Peer(Peer),
}

/// A peer, by its name in the tables.
const fn peer(name: &'static str, peer: Peer) -> Contender {
    Contender {
        name,
        launch: Launch::Peer(peer),
    }
}

/// A bench binary's installed copy with `args`.
const fn bench(
    name: &'static str,
    binary: &'static str,
    args: &'static [&'static str],
) -> Contender {
    Contender {
        name,
        launch: Launch::Bench {
            binary,
            args,
            from_linker: false,
        },
    }
}

impl Contender {
    /// The path this contender serves `file` at.
    fn path(&self, file: &File) -> &'static str {
        match self.launch {
            Launch::Bench { binary, .. } => file.paths[usize::from(binary == SERVER)],
            Launch::Peer(_) => file.nginx_path,
        }
    }
}

/// A file served by nginx and by every contender, with the path each serves it at.
struct File {
    name: &'static str,
    /// nginx's path, which the peers serve it at too.
    nginx_path: &'static str,
    /// `bench-plain`'s path, then `bench-server`'s.
    paths: [&'static str; 2],
    /// Why its pairs run one after the other even when the others' run side by side.
    sequential_because: Option<&'static str>,
    /// Its length, when responses are counted by the bytes wrk read ([`Load::body_len`]).
    count_by_bytes: Option<u64>,
}

const PLAIN: &str = "bench-plain";
const SERVER: &str = "bench-server";
const BARE: &str = "bench-bare";

const FILES: [File; 3] = [
    File {
        name: "small.txt (1 KiB)",
        nginx_path: "/small.txt",
        paths: ["/web/small.txt", "/bench/static/web/small.txt"],
        sequential_because: None,
        count_by_bytes: None,
    },
    File {
        name: "vue.min.js (105 KiB)",
        nginx_path: "/vue.min.js",
        paths: ["/web/vue.min.js", "/bench/static/web/vue.min.js"],
        sequential_because: None,
        count_by_bytes: None,
    },
    File {
        name: "17 MiB",
        nginx_path: "/noise.bin",
        paths: ["/large/noise.bin", "/bench/static/large/noise.bin"],
        sequential_because: Some(LARGE_SIDE_BY_SIDE),
        count_by_bytes: Some(nginx::LARGE_LEN as u64),
    },
];

/// Side by side, two 17 MiB transfers on one core wait on each other's socket space, and even
/// hyper's own floor moves (BENCHMARKS.md, "Zero-copy sending against nginx (`sendfile`)").
/// Run one at a time, each server has the machine to itself, as a large download has.
const LARGE_SIDE_BY_SIDE: &str = "one after the other: side by side, two 17 MiB transfers \
    sharing a core wait on each other's socket space (wrk timed out requests, and even hyper's \
    own floor moved), so each server has the machine to itself here";

/// What a user's crate runs, the variants tried against it, and the floors under it: the same
/// stack without `ServeCatalog`, and hyper without axum (what no handler on them can undercut).
const CONTENDERS: [Contender; 13] = [
    bench(
        "user crate, `axum::serve`, `#[tokio::main]` (plain path)",
        PLAIN,
        &[],
    ),
    bench(
        "user crate, `bindery::serve::Server`, `#[tokio::main]` (plain path)",
        PLAIN,
        &["--server", "bindery"],
    ),
    bench(
        "user crate, `ZeroCopyListener`, `#[tokio::main]`",
        PLAIN,
        &["--zero-copy"],
    ),
    bench(
        "user crate, `bindery::serve::Server` with `.zero_copy(true)`, `#[tokio::main]`",
        PLAIN,
        &["--zero-copy", "--server", "bindery"],
    ),
    Contender {
        name: "the same, run from `target/release` (page cache as the linker wrote it)",
        launch: Launch::Bench {
            binary: PLAIN,
            args: &["--zero-copy"],
            from_linker: true,
        },
    },
    bench(
        BINDERY_MOUNTED_PLAIN,
        PLAIN,
        &["--handler", "serve-catalog-mounted"],
    ),
    bench(
        BINDERY_MOUNTED_ZERO_COPY,
        PLAIN,
        &["--zero-copy", "--handler", "serve-catalog-mounted"],
    ),
    bench(
        "user crate, `ZeroCopyListener`, current-thread runtime",
        PLAIN,
        &["--zero-copy", "--runtime", "current-thread"],
    ),
    bench(
        "user crate, plain path, current-thread runtime",
        PLAIN,
        &["--runtime", "current-thread"],
    ),
    bench(
        "geo-server's stack (`bench-server --zero-copy`)",
        SERVER,
        &["--zero-copy"],
    ),
    bench(
        "floor: a bare axum handler instead of `ServeCatalog`, `ZeroCopyListener`",
        PLAIN,
        &["--zero-copy", "--handler", "bare-axum"],
    ),
    bench(
        "floor: the same, with `ServeCatalog`'s head as constants, `ZeroCopyListener`",
        PLAIN,
        &["--zero-copy", "--handler", "bare-axum-same-head"],
    ),
    bench(
        "floor: hyper's HTTP/1 alone, no axum, `ZeroCopyStream`",
        PLAIN,
        &["--zero-copy", "--handler", "bare-hyper"],
    ),
];

/// bindery as the axum peers run: `ServeCatalog` the router's fallback, `axum::serve`.
const BINDERY_MOUNTED_PLAIN: &str =
    "bindery: user crate, `axum::serve`, `ServeCatalog` by `mounted_at` (plain path)";
/// bindery at its cheapest: the same with `ZeroCopyListener`.
const BINDERY_MOUNTED_ZERO_COPY: &str =
    "bindery: user crate, `ZeroCopyListener`, `ServeCatalog` by `mounted_at`, no `nest_service`";

/// The peer table's other rows (`--peers`): how users serve the same files without bindery.
const PEERS: [Contender; 6] = [
    peer(
        "rust-embed 8.13 + axum-embed 0.1, `axum::serve` (axum 0.7)",
        Peer::Crate("rust-embed"),
    ),
    peer(
        "tower-http 0.7 `ServeDir` from disk, `axum::serve` (axum 0.8)",
        Peer::Crate("serve-dir"),
    ),
    peer(
        "memory-serve 2, `axum::serve` (axum 0.8)",
        Peer::Crate("memory-serve"),
    ),
    peer(
        "static-web-server 2.44.1 (crates.io), defaults",
        Peer::StaticWebServer,
    ),
    peer("h2o (Debian), `file.dir`, one thread", Peer::H2o),
    peer("Caddy (Debian), `file_server`", Peer::Caddy),
];

/// The contenders a run chooses from: bindery's configurations, or with `--peers` the peer
/// table (bindery's two `mounted_at` rows, then [`PEERS`]).
fn pool(peers: bool) -> Vec<&'static Contender> {
    if !peers {
        return CONTENDERS.iter().collect();
    }
    CONTENDERS
        .iter()
        .filter(|contender| {
            [BINDERY_MOUNTED_PLAIN, BINDERY_MOUNTED_ZERO_COPY].contains(&contender.name)
        })
        .chain(&PEERS)
        .collect()
}

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
    /// Contenders that could not run here, with why (h2o and Caddy without root).
    pub left_out: Vec<LeftOut>,
    /// How this comparison's pairs ran, when not as the run's plan says.
    pub pairing: Option<&'static str>,
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
    let plan = Plan {
        pairs,
        seconds,
        together: !args.sequential,
    };
    let pool = pool(args.peers);
    let built = if args.peers {
        Some(peers::build(&nginx::document_root()?)?)
    } else {
        None
    };
    let servers = Servers {
        pool: &pool,
        peers: built.as_ref(),
    };
    let mut comparisons = Vec::new();
    for file in FILES.iter().filter(|file| wanted(file.name)) {
        let only = args.contenders.as_deref();
        let plan = Plan {
            together: plan.together && file.sequential_because.is_none(),
            ..plan
        };
        comparisons.push(match &args.reference {
            None => versus_nginx(file, &servers, only, plan, tuning_runs)?,
            Some(reference) => versus_contender(file, &servers, reference, only, plan)?,
        });
    }
    if wanted(GEO) && !args.peers {
        comparisons.push(geo_versus_bare(plan)?);
    }
    let text = report::markdown(&comparisons, plan, &system(built.is_some()));
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
/// congestion control (BBR without the `fq` qdisc paces segments with timers of its own);
/// with `peers`, h2o's and Caddy's versions.
fn system(peers: bool) -> String {
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
    let mut system = format!(
        "{}, Linux {}, target/ on {}, TCP congestion control {} (qdisc {})",
        nginx.strip_prefix("nginx version: ").unwrap_or(&nginx),
        output("uname", &["-r"]),
        output("stat", &["-f", "-c", "%T", "target"]),
        sysctl("ipv4/tcp_congestion_control"),
        sysctl("core/default_qdisc"),
    );
    if peers {
        let h2o = output("/usr/bin/h2o", &["--version"]);
        let caddy = output("/usr/bin/caddy", &["version"]);
        let first = |text: &str| text.lines().next().unwrap_or("not installed").to_owned();
        system.push_str(&format!(", {}, Caddy {}", first(&h2o), first(&caddy)));
    }
    system
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
    let load = Load::path(file.nginx_path).by_bytes(file.count_by_bytes);
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

/// How the pairs are run.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub pairs: u32,
    pub seconds: u32,
    /// Side by side ([`measure::run_together`]), or the contender right after the reference.
    pub together: bool,
}

/// nginx at its best on `file`, then every contender (whose name contains `only`, if given)
/// paired with it.
fn versus_nginx(
    file: &File,
    servers: &Servers<'_>,
    only: Option<&str>,
    plan: Plan,
    runs: u32,
) -> anyhow::Result<Comparison> {
    let mut ranked = rank_tunings(file, runs, plan.seconds)?;
    let tunings = ranked
        .iter()
        .map(|(server, runs)| (server.label.clone(), runs.clone()))
        .collect();
    // Only the cheapest stays up.
    ranked.truncate(1);
    let (reference, _) = ranked.pop().context("no nginx tuning")?;
    let reference_load = Load::path(file.nginx_path).by_bytes(file.count_by_bytes);
    let chosen: Vec<&Contender> = servers
        .pool
        .iter()
        .copied()
        .filter(|contender| only.is_none_or(|only| contender.name.contains(only)))
        .collect();
    let (contenders, left_out) = servers.start(file, &chosen)?;
    let rows = paired(&reference, reference_load, &contenders, plan)?;
    Ok(Comparison {
        title: format!("{}, {CONNECTIONS} connections", file.name),
        tunings,
        reference: reference.label.clone(),
        rows,
        left_out,
        pairing: pairing(file, plan),
    })
}

/// The contender whose name contains `reference` in nginx's place: every other contender
/// (whose name contains `only`, if given) paired with it, as a direct comparison of two ways of
/// serving `file` (`Server` against `axum::serve`, `ServeCatalog` against a bare handler, a
/// peer against bindery).
fn versus_contender(
    file: &File,
    servers: &Servers<'_>,
    reference: &str,
    only: Option<&str>,
    plan: Plan,
) -> anyhow::Result<Comparison> {
    let (references, others): (Vec<&Contender>, Vec<&Contender>) = servers
        .pool
        .iter()
        .partition(|contender| contender.name.contains(reference));
    let [reference] = references[..] else {
        anyhow::bail!(
            "--reference {reference:?} names {} contenders; it must name one",
            references.len()
        );
    };
    let others: Vec<&Contender> = others
        .into_iter()
        .filter(|contender| only.is_none_or(|only| contender.name.contains(only)))
        .collect();
    let (mut started, _) = servers.start(file, &[reference])?;
    if started.is_empty() {
        anyhow::bail!("the reference {:?} is not installed here", reference.name);
    }
    let (reference_server, reference_load) = started.remove(0);
    let (contenders, left_out) = servers.start(file, &others)?;
    let rows = paired(&reference_server, reference_load, &contenders, plan)?;
    Ok(Comparison {
        title: format!("{}, {CONNECTIONS} connections", file.name),
        tunings: Vec::new(),
        reference: reference_server.label.clone(),
        rows,
        left_out,
        pairing: pairing(file, plan),
    })
}

/// A contender that could not run here, and why.
type LeftOut = (String, String);

/// The contenders running, each with the load for its path, and those left out.
type Started = (Vec<(Server, Load)>, Vec<LeftOut>);

/// The contenders a run chooses from, and the peers' build when the run has peers.
struct Servers<'a> {
    pool: &'a [&'static Contender],
    peers: Option<&'a peers::Built>,
}

impl Servers<'_> {
    /// Starts and warms each contender on `file`'s path for it; a peer that is not installed
    /// here is left out, with why.
    fn start(&self, file: &File, chosen: &[&Contender]) -> anyhow::Result<Started> {
        let mut contenders = Vec::new();
        let mut left_out = Vec::new();
        for contender in chosen {
            let server = match contender.launch {
                Launch::Bench {
                    binary,
                    args,
                    from_linker,
                } => start_binary(contender.name, binary, args, from_linker)?,
                Launch::Peer(peer) => {
                    let built = self.peers.context("peers were not built (--peers)")?;
                    if let Some(why) = built.unavailable(peer) {
                        left_out.push((contender.name.to_owned(), why.to_owned()));
                        continue;
                    }
                    peers::start(peer, built, contender.name)?
                }
            };
            let load = Load::path(contender.path(file)).by_bytes(file.count_by_bytes);
            warm(&server, load)?;
            contenders.push((server, load));
        }
        Ok((contenders, left_out))
    }
}

/// Why `file`'s pairs ran one after the other when the plan was side by side.
fn pairing(file: &File, plan: Plan) -> Option<&'static str> {
    file.sequential_because.filter(|_| !plan.together)
}

/// `plan.pairs` rounds: in each, for every contender, a run of the reference and one of the
/// contender, side by side or one right after the other.
fn paired(
    reference: &Server,
    reference_load: Load,
    contenders: &[(Server, Load)],
    plan: Plan,
) -> anyhow::Result<Vec<Row>> {
    let Plan {
        pairs,
        seconds,
        together,
    } = plan;
    let mut rows: Vec<Row> = contenders
        .iter()
        .map(|(server, _)| Row {
            name: server.label.clone(),
            pairs: Vec::new(),
        })
        .collect();
    for pair in 1..=pairs {
        for ((server, load), row) in contenders.iter().zip(&mut rows) {
            let (before, after) = if together {
                eprintln!(
                    "pair {pair}/{pairs}: {} beside {}",
                    reference.label, server.label
                );
                measure::run_together((reference, reference_load), (server, *load), seconds)?
            } else {
                eprintln!(
                    "pair {pair}/{pairs}: {} then {}",
                    reference.label, server.label
                );
                let before = measure::run(reference, reference_load, seconds)?;
                (before, measure::run(server, *load, seconds)?)
            };
            row.pairs.push((before, after));
        }
    }
    Ok(rows)
}

/// One row of `/geo`'s comparison: a server, its flags, and the wrk script of its client.
struct GeoRow {
    name: &'static str,
    binary: &'static str,
    args: &'static [&'static str],
    script: &'static str,
}

/// The script of `/geo`'s clients: a random IPv4 address per request.
const GEO_SCRIPT: &str = "benches/wrk/geo.lua";

/// A row whose client runs [`GEO_SCRIPT`].
const fn geo_row(
    name: &'static str,
    binary: &'static str,
    args: &'static [&'static str],
) -> GeoRow {
    GeoRow {
        name,
        binary,
        args,
        script: GEO_SCRIPT,
    }
}

/// `/geo`'s comparison, row by row, each paired with the bare route.
const GEO_ROWS: [GeoRow; 7] = [
    geo_row("geo-server's stack, DB embedded", SERVER, &[]),
    geo_row(
        "geo-server's stack, DB embedded, no answer cache",
        SERVER,
        &["--answer-cache-mib", "0"],
    ),
    // Every record the run asks for kept (the default keeps some 40,000 of them): what a kept
    // answer costs, with no decoding.
    geo_row(
        "geo-server's stack, DB embedded, answer cache 64 MiB",
        SERVER,
        &["--answer-cache-mib", "64"],
    ),
    // The answer alone on the reference's stack: what `/geo` costs before geo-server's layers.
    geo_row(
        "floor: the same answer from a bare axum route (`bench-bare --geo`)",
        BARE,
        &["--geo"],
    ),
    // The same route with a fixed answer of a typical size, with no lookup and after the walk
    // down the tree alone: what of the floor is the stack's, what the lookup's, and how much of
    // that reading the tree takes.
    geo_row(
        "floor: a fixed answer, no lookup (`bench-bare --geo-floor fixed`)",
        BARE,
        &["--geo-floor", "fixed"],
    ),
    geo_row(
        "floor: a fixed answer after the tree walk (`bench-bare --geo-floor walk`)",
        BARE,
        &["--geo-floor", "walk"],
    ),
    GeoRow {
        name: "the reference's route, its client scripted like geo.lua (`geo-reference.lua`)",
        binary: BARE,
        args: &[],
        script: "benches/wrk/geo-reference.lua",
    },
];

/// `/geo/<random ip>` on geo-server's stack against a bare axum route's static 1 KiB answer,
/// each server saturated. A scripted wrk (a Lua call per request) costs more per request than a
/// plain one, and side by side the two clients share a core: one row gives the reference's route
/// a client that runs geo.lua's Lua too (`geo-reference.lua`), to show where the clients start
/// to limit the servers. With such a client the reference is not saturated, and its
/// requests per second flatter whatever is paired with it.
fn geo_versus_bare(plan: Plan) -> anyhow::Result<Comparison> {
    let reference_name = "bare axum route, `Bytes::from_static` 1 KiB (`bench-bare`)";
    let reference = start_binary(reference_name, BARE, &[], false)?;
    let reference_load = Load::path("/small.txt");
    warm(&reference, reference_load)?;
    let mut contenders = Vec::new();
    for row in &GEO_ROWS {
        let load = Load {
            script: Some(row.script),
            ..Load::path("/")
        };
        let server = start_binary(row.name, row.binary, row.args, false)?;
        warm(&server, load)?;
        contenders.push((server, load));
    }
    let rows = paired(&reference, reference_load, &contenders, plan)?;
    Ok(Comparison {
        title: format!("{GEO} against a bare handler, {CONNECTIONS} connections"),
        tunings: Vec::new(),
        reference: reference_name.to_owned(),
        rows,
        left_out: Vec::new(),
        pairing: None,
    })
}
