//! The showcase's tasks: benchmarks, the soak, two replicas behind nginx, REDbot over the geo
//! server, the real GeoLite2 database. Run as `cargo xtask <task>` (xtask hands them here) or
//! `cargo run -p showcase-tasks -- <task>`.
#![forbid(unsafe_code)]

mod bench_binary;
mod bench_build;
mod bench_cache;
mod bench_cap;
mod bench_cold;
mod bench_deltas;
mod bench_hostile;
mod bench_http;
mod bench_memory;
mod bench_nginx;
mod bench_overlay;
mod bench_stall;
mod geodb;
mod lint_http;
mod process;
mod scale;
mod soak;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The showcase's tasks: run `cargo xtask <task> --help` for one task's flags.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about, disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Rebuild time of a crate embedding many small files: embed!, include_bytes!, rust-embed.
    BenchBuild(bench_build::Args),
    /// What a new connection costs at a full cap of 1,024 and 16,384 idle connections.
    BenchCap(bench_cap::Args),
    /// What embedding a folder adds to a release binary, by mode, against rust-embed and include_dir.
    BenchBinary(bench_binary::Args),
    /// What depending on bindery costs a cold release build, against rust-embed, include_dir, axum-embed and ServeDir.
    BenchCold(bench_cold::Args),
    /// Load-test the release server with wrk on loopback (--quick: under a minute).
    BenchHttp(bench_http::Args),
    /// bindery against nginx at its best per file, and /geo against a bare handler: persistent paired runs.
    BenchNginx(bench_nginx::Args),
    /// What a miss costs with an overlay of 20,000 files against none: paired, on one connection.
    BenchOverlay(bench_overlay::Args),
    /// A deploy that keeps the previous release: full, gzip, br, zstd and dcz bytes of a changed file, build time and catalog bytes.
    BenchDeltas(bench_deltas::Args),
    /// The same hostile clients against bindery's Server, plain axum::serve, actix-web and rocket.
    BenchHostile(bench_hostile::Args),
    /// Does one large decompression stall other requests? p99 of small requests beside it.
    BenchStall(bench_stall::Args),
    /// The GeoIP memory table (one process per DB mode); --limit MIB adds the memory-limit run.
    BenchMemory(bench_memory::Args),
    /// Mixed load on the release geo-server, DB replaced during it: no 5xx, no leak (--quick: 20 s,
    /// debug build).
    Soak(soak::Args),
    /// Lint the geo server's answers with REDbot (installed in a venv): no BAD or WARN note.
    LintHttp(lint_http::Args),
    /// Two replicas behind a caching nginx on loopback: bodies, privacy, origin load (--quick: CI).
    Scale(scale::Args),
    /// Fetch a real GeoLite2 City database (2019-12, CC BY-SA, MaxMind; --source pypi: 2018) into assets/geo/.
    Geodb(geodb::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            // clap uses 0 for --help and 2 for usage errors, as the house style asks.
            return ExitCode::from(error.exit_code() as u8);
        }
    };
    let result = match cli.task {
        Task::Geodb(args) => geodb::run(&args),
        Task::LintHttp(args) => lint_http::run(&args),
        Task::Scale(args) => scale::run(&args),
        Task::Soak(args) => soak::run(&args),
        Task::BenchMemory(args) => bench_memory::run(&args),
        Task::BenchBuild(args) => bench_build::run(&args),
        Task::BenchCap(args) => bench_cap::run(&args),
        Task::BenchCold(args) => bench_cold::run(&args),
        Task::BenchBinary(args) => bench_binary::run(&args),
        Task::BenchHttp(args) => bench_http::run(&args),
        Task::BenchNginx(args) => bench_nginx::run(&args),
        Task::BenchOverlay(args) => bench_overlay::run(&args),
        Task::BenchHostile(args) => bench_hostile::run(&args),
        Task::BenchStall(args) => bench_stall::run(&args),
        Task::BenchDeltas(args) => bench_deltas::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
