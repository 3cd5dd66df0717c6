//! `cargo xtask fuzz`: every cargo-fuzz target in `fuzz/` for a bounded time. The committed
//! corpus (`fuzz/corpus/<target>`) seeds each run and is only read; new inputs go to a temporary
//! folder, so the repository's corpus stays small. A crash fails the task and leaves its input
//! in `fuzz/artifacts/<target>/`: add it to the corpus (and a test) when fixing it.
//!
//! cargo-fuzz wants nightly for its sanitizer flags; the stable toolchain ships the sanitizer
//! runtimes, so `RUSTC_BOOTSTRAP=1` is set for this build only.

use std::process::Command;

use anyhow::Context;

use crate::ci::run_command;

/// The targets in `fuzz/fuzz_targets`.
pub const TARGETS: [&str; 6] = [
    "request_path",
    "range",
    "accept_encoding",
    "if_none_match",
    "geo_address",
    "catalog_lookup",
];

/// Flags of `cargo xtask fuzz`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds per target (CI uses a few; a local hunt, minutes).
    #[arg(long, default_value_t = 10)]
    pub seconds: u32,
    /// Run only this target.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(TARGETS))]
    pub target: Option<String>,
}

/// Installs cargo-fuzz if needed, then runs each target for the given time.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let has_fuzz = Command::new(&cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !has_fuzz {
        run_command(Command::new(&cargo).args(["install", "cargo-fuzz", "--locked"]))?;
    }
    for target in TARGETS.iter().filter(|target| {
        args.target
            .as_deref()
            .is_none_or(|wanted| wanted == **target)
    }) {
        let scratch = tempfile::tempdir().context("cannot create a scratch corpus")?;
        run_command(
            Command::new(&cargo)
                .args(["fuzz", "run", target])
                .arg(scratch.path())
                .arg(format!("fuzz/corpus/{target}"))
                .args([
                    "--",
                    &format!("-max_total_time={}", args.seconds),
                    "-print_final_stats=1",
                ])
                .env("RUSTC_BOOTSTRAP", "1"),
        )?;
    }
    Ok(())
}
