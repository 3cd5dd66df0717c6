//! Project tasks, run as `cargo xtask <task>`.
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
mod ci;
mod docs;
mod embed;
mod fuzz;
mod geodb;
mod lint_code;
mod lint_http;
mod map;
mod process;
mod scale;
mod soak;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Project tasks for bindery: run `cargo xtask <task> --help` for one task's flags.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about, disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run every check CI runs: install what tests need, cargo fmt, clippy and all tests.
    Ci(ci::Args),
    /// Generate a module embedding a folder (go-bindata style, through bindery-cli): cargo xtask embed --help
    Embed(embed::Args),
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
    /// Run every fuzz target for a bounded time (cargo-fuzz; installed if missing).
    Fuzz(fuzz::Args),
    /// Mixed load on the release geo-server, DB replaced during it: no 5xx, no leak (--quick: 20 s,
    /// debug build).
    Soak(soak::Args),
    /// Code shape: no function over 80 lines, no type defined by two crates.
    LintCode,
    /// The pages: README's and docs/' programs are their files, links lead somewhere, and
    /// ARCHITECTURE.md names every source file once in lines of at most 110 characters.
    Docs,
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
        Task::Embed(args) => return embed::run(args),
        Task::Ci(args) => ci::run(&args),
        Task::Geodb(args) => geodb::run(&args),
        Task::LintCode => lint_code::run(),
        Task::Docs => docs::run(),
        Task::LintHttp(args) => lint_http::run(&args),
        Task::Scale(args) => scale::run(&args),
        Task::Fuzz(args) => fuzz::run(&args),
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
