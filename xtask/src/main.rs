//! Project tasks, run as `cargo xtask <task>`.

use clap::Parser;

/// Project tasks for bindery.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", version, about)]
enum Task {}

fn main() -> anyhow::Result<()> {
    match Task::parse() {}
}
