//! Running commands for the workspace's tasks (`cargo xtask`, the showcase's tasks): cargo with
//! the one-shot settings of a CI run, a command in the foreground that fails naming itself, and
//! Debian packages installed when missing.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, bail};

/// Set by a one-shot run (`cargo xtask ci`): cargo's incremental caches are written for a next
/// build that never comes, and took 1.5 GB of a fresh clone's `target/`.
static ONE_SHOT: AtomicBool = AtomicBool::new(false);

/// Turns incremental compilation off for every cargo this process starts from now on (and so
/// for the builds those start: nextest's tests building throwaway projects inherit it), keeps
/// line tables only in the workspace's own dev builds (as its dependencies already do: a
/// failing test's backtrace still names file and line; full debuginfo is for a debugger, which
/// a one-shot run never starts), and turns the slow tests on in them (`RUN_SLOW_TESTS`): a
/// one-shot run is the run that tests everything.
pub fn one_shot_builds() {
    ONE_SHOT.store(true, Ordering::Relaxed);
}

/// A command of the cargo running this task (or the one on PATH) to add arguments to
/// (incremental off and line tables only after [`one_shot_builds`]).
pub fn cargo_command() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    if ONE_SHOT.load(Ordering::Relaxed) {
        command
            .env("CARGO_INCREMENTAL", "0")
            .env("CARGO_PROFILE_DEV_DEBUG", "line-tables-only")
            .env("RUN_SLOW_TESTS", "1");
    }
    command
}

/// `cargo <args>` in the foreground.
pub fn cargo(args: &[&str]) -> anyhow::Result<()> {
    run_command(cargo_command().args(args))
}

/// Runs a command in the foreground, failing with its command line when it fails.
pub fn run_command(command: &mut Command) -> anyhow::Result<()> {
    let line = format!(
        "{} {}",
        command.get_program().to_string_lossy(),
        command
            .get_args()
            .map(|arg| arg.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    eprintln!("task: {line}");
    let status = command
        .status()
        .with_context(|| format!("cannot run {line}"))?;
    if !status.success() {
        bail!("{line} failed ({status})");
    }
    Ok(())
}

/// Whether this process runs as root (and so may `apt-get install`).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// Installs the Debian packages of `wanted` (package, a file it installs) whose file is missing.
pub fn apt_install(wanted: &[(&str, &str)]) -> anyhow::Result<()> {
    let missing: Vec<&str> = wanted
        .iter()
        .filter(|(_, file)| !Path::new(file).exists())
        .map(|(package, _)| *package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !is_root() {
        bail!(
            "this needs Debian's {}: run as root, or `apt-get install {}`",
            missing.join(", "),
            missing.join(" ")
        );
    }
    run_command(Command::new("apt-get").args(["update", "-qq"]))?;
    run_command(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}
