//! The library's tasks, run as `cargo xtask <task>`: ci, embed, docs, lint-code, fuzz. The
//! showcase's tasks (bench-*, soak, scale, lint-http, geodb) live in `examples/showcase-tasks`;
//! xtask hands them on, so `cargo xtask <task>` runs every task.
#![forbid(unsafe_code)]

mod ci;
mod docs;
mod embed;
mod fuzz;
mod installs;
mod lint_code;
mod map;
mod process;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Project tasks for bindery: run `cargo xtask <task> --help` for one task's flags.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    about,
    disable_version_flag = true,
    after_help = "The showcase's tasks (examples/showcase-tasks) run here too: bench-binary, \
                  bench-build, bench-cap, bench-cold, bench-deltas, bench-hostile, bench-http, \
                  bench-memory, bench-nginx, bench-overlay, bench-stall, soak, scale, \
                  lint-http, geodb (`cargo xtask <task> --help`)."
)]
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
    /// Run every fuzz target for a bounded time (cargo-fuzz; installed if missing).
    Fuzz(fuzz::Args),
    /// Code shape: no function over 80 lines, no type defined by two crates.
    LintCode,
    /// The pages: README's and docs/' programs are their files, links lead somewhere, and
    /// ARCHITECTURE.md names every source file once in lines of at most 110 characters.
    Docs,
    /// A task of the showcase (bench-*, soak, scale, lint-http, geodb), handed to the
    /// showcase-tasks crate: `cargo xtask bench-nginx --quick` runs
    /// `cargo run -p showcase-tasks -- bench-nginx --quick`.
    #[command(external_subcommand)]
    Showcase(Vec<OsString>),
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
        Task::LintCode => lint_code::run(),
        Task::Docs => docs::run(),
        Task::Fuzz(args) => fuzz::run(&args),
        Task::Showcase(args) => showcase(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a showcase task in its own crate, with the same cargo (and, in a CI run, the same
/// one-shot settings), failing when it fails.
pub fn showcase(args: &[OsString]) -> anyhow::Result<()> {
    process::run_command(
        process::cargo_command()
            .args(["run", "--quiet", "--package", "showcase-tasks", "--"])
            .args(args),
    )
}
