//! `cargo xtask ci`: the one command that runs every check, on a fresh machine as on CI.

use std::process::Command;

use anyhow::{Context, bail};

/// Flags of `cargo xtask ci`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Skip `cargo fmt --check` and clippy; run only the tests.
    #[arg(long)]
    pub tests_only: bool,
}

/// Runs the checks in order, stopping at the first failure.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if !args.tests_only {
        cargo(&["fmt", "--all", "--check"])?;
        cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])?;
    }
    cargo(&["test", "--workspace"])?;
    Ok(())
}

fn cargo(args: &[&str]) -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("xtask ci: cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .status()
        .with_context(|| format!("cannot run cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}
