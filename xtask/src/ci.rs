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

/// Runs the checks in order, stopping at the first failure. Doc tests run first and nextest
/// last, so the run closes on the summary of every test.
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
    ensure_nextest()?;
    cargo(&["test", "--workspace", "--doc"])?;
    cargo(&["nextest", "run", "--workspace", "--no-fail-fast"])?;
    Ok(())
}

/// Installs cargo-nextest from crates.io when this machine lacks it.
fn ensure_nextest() -> anyhow::Result<()> {
    let has_nextest = Command::new(cargo_binary())
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if has_nextest {
        return Ok(());
    }
    cargo(&["install", "cargo-nextest", "--locked"])
}

fn cargo_binary() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn cargo(args: &[&str]) -> anyhow::Result<()> {
    eprintln!("xtask ci: cargo {}", args.join(" "));
    let status = Command::new(cargo_binary())
        .args(args)
        .status()
        .with_context(|| format!("cannot run cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}
