//! `cargo xtask fuzz`: every cargo-fuzz target in `fuzz/` for a bounded time. The committed
//! corpus (`fuzz/corpus/<target>`) seeds each run and is only read; new inputs go to a temporary
//! folder, so the repository's corpus stays small. A crash fails the task and leaves its input
//! in `fuzz/artifacts/<target>/`: add it to the corpus (and a test) when fixing it.
//!
//! cargo-fuzz wants nightly for its sanitizer flags; the stable toolchain ships the sanitizer
//! runtimes, so `RUSTC_BOOTSTRAP=1` is set for this build only.

use anyhow::Context;

use crate::process::{cargo_command, run_command};

/// The fuzz crate's manifest: its `[[bin]]` entries are the one list of targets.
const MANIFEST: &str = "fuzz/Cargo.toml";

/// Flags of `cargo xtask fuzz`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seconds per target (CI uses a few; a local hunt, minutes).
    #[arg(long, default_value_t = 10)]
    pub seconds: u32,
    /// Run only this target (one of the `[[bin]]` names in fuzz/Cargo.toml).
    #[arg(long)]
    pub target: Option<String>,
    /// Build the targets unoptimized, debug assertions on (`cargo fuzz run --dev`): a shorter
    /// build than the default optimized one, overflow checks on, fewer runs per second. What a
    /// few seconds per target want (CI); a long hunt wants the default.
    #[arg(long)]
    pub dev: bool,
}

/// The targets, as `fuzz/Cargo.toml` declares them.
fn targets() -> anyhow::Result<Vec<String>> {
    let text =
        std::fs::read_to_string(MANIFEST).with_context(|| format!("cannot read {MANIFEST}"))?;
    let manifest: toml::Table = text
        .parse()
        .with_context(|| format!("{MANIFEST} is not TOML"))?;
    let names: Vec<String> = manifest
        .get("bin")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|bin| Some(bin.get("name")?.as_str()?.to_owned()))
        .collect();
    anyhow::ensure!(!names.is_empty(), "{MANIFEST} declares no [[bin]] targets");
    Ok(names)
}

/// Installs cargo-fuzz if needed, then runs each target for the given time.
pub fn run(args: &Args) -> anyhow::Result<()> {
    crate::installs::ensure_cargo_tool("fuzz", "cargo-fuzz")?;
    let targets = targets()?;
    if let Some(wanted) = &args.target {
        anyhow::ensure!(
            targets.contains(wanted),
            "no fuzz target `{wanted}` (expected one of: {})",
            targets.join(", ")
        );
    }
    for target in targets
        .iter()
        .filter(|target| args.target.as_ref().is_none_or(|wanted| wanted == *target))
    {
        let scratch = tempfile::tempdir().context("cannot create a scratch corpus")?;
        run_command(
            cargo_command()
                .args(["fuzz", "run", target])
                .args(args.dev.then_some("--dev"))
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
