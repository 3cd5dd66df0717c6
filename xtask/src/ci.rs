//! `cargo xtask ci`: the one command that runs every check, on a fresh machine as on CI.
//!
//! It installs what the tests need (Debian's chromium for the browser test, the npm packages,
//! cargo-nextest, cargo-fuzz), then runs fmt, clippy, doc tests, the browser test, every fuzz
//! target for a few seconds, and every other test with nextest last, so the run closes on the
//! total.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// Flags of `cargo xtask ci`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Skip `cargo fmt --check` and clippy; run only the tests.
    #[arg(long)]
    pub tests_only: bool,
}

const CHROMIUM: &str = "/usr/bin/chromium";

/// Committed modules written by `cargo xtask embed`, with the arguments that regenerate each.
/// CI fails, naming the command, when one is stale.
pub const GENERATED: [&[&str]; 4] = [
    &[
        "assets/fixtures",
        "--mode",
        "static",
        "--out",
        "examples/bindata-demo/src/fixtures_static.rs",
        "--name",
        "FIXTURES_STATIC",
    ],
    &[
        "assets/fixtures",
        "--mode",
        "gzip",
        "--out",
        "examples/bindata-demo/src/fixtures_gzip.rs",
        "--name",
        "FIXTURES_GZIP",
    ],
    &[
        "assets/fixtures",
        "--mode",
        "copy",
        "--out",
        "examples/bindata-demo/src/fixtures_copy.rs",
        "--name",
        "FIXTURES_COPY",
    ],
    &[
        "assets/spa",
        "--mode",
        "gzip",
        "--out",
        "examples/bindata-demo/src/spa.rs",
        "--name",
        "SPA",
    ],
];
const E2E: &str = "examples/geo-server/e2e";

/// The crates published to crates.io, in dependency order. `cargo package` checks that each
/// builds from its packaged sources alone (README, licenses and metadata included).
pub const PUBLISHED: [&str; 4] = [
    "bindery-codegen",
    "bindery-macros",
    "bindery",
    "bindery-cli",
];

/// Runs the checks in order, stopping at the first failure.
pub fn run(args: &Args) -> anyhow::Result<()> {
    install_system_packages()?;
    ensure_nextest()?;
    run_command(Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--prefix", E2E]))?;
    check_generated()?;
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
    package()?;
    cargo(&["test", "--workspace", "--doc"])?;
    cargo(&["build", "--package", "geo-server"])?;
    run_command(
        Command::new("node")
            .args(["--test", E2E])
            .env("CHROMIUM", CHROMIUM)
            .env("GEO_SERVER_BIN", "target/debug/geo-server"),
    )?;
    crate::fuzz::run(&crate::fuzz::Args {
        seconds: 5,
        target: None,
    })?;
    cargo(&["nextest", "run", "--workspace", "--no-fail-fast"])?;
    Ok(())
}

/// Runs `cargo xtask embed ... --check` for every committed generated module; the generator
/// names each stale file and the command that regenerates it.
fn check_generated() -> anyhow::Result<()> {
    for arguments in GENERATED {
        eprintln!("xtask: cargo xtask embed {} --check", arguments.join(" "));
        let command_line = ["cargo xtask", "embed"]
            .into_iter()
            .chain(arguments.iter().copied())
            .chain(["--check"]);
        if bindery_cli::run(command_line) != std::process::ExitCode::SUCCESS {
            bail!("a committed generated module is stale");
        }
    }
    Ok(())
}

/// `cargo package` of every published crate, with verification: each is built from its
/// `.crate` file against the others' (cargo overlays the unpublished ones). `--allow-dirty` so
/// that the check also runs on a working tree with local changes.
fn package() -> anyhow::Result<()> {
    let mut args = vec!["package", "--allow-dirty", "--quiet"];
    for name in PUBLISHED {
        args.extend(["--package", name]);
    }
    cargo(&args)
}

/// Debian's chromium (the browser test) and a colour emoji font (flags in its screenshots).
fn install_system_packages() -> anyhow::Result<()> {
    let has_emoji_font = Path::new("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf").exists();
    if Path::new(CHROMIUM).exists() && has_emoji_font {
        return Ok(());
    }
    if !is_root() {
        bail!(
            "the browser test needs Debian's chromium: run as root, or `apt-get install chromium fonts-noto-color-emoji`"
        );
    }
    run_command(Command::new("apt-get").args(["update", "-qq"]))?;
    run_command(
        Command::new("apt-get")
            .args([
                "install",
                "-y",
                "-qq",
                "--no-install-recommends",
                "chromium",
                "fonts-noto-color-emoji",
            ])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
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

/// Builds one binary of a package in release mode, quietly.
pub fn build_release_binary(package: &str, binary: &str) -> anyhow::Result<()> {
    cargo(&[
        "build",
        "--release",
        "--quiet",
        "--package",
        package,
        "--bin",
        binary,
    ])
}

fn cargo_binary() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn cargo(args: &[&str]) -> anyhow::Result<()> {
    run_command(Command::new(cargo_binary()).args(args))
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
    eprintln!("xtask: {line}");
    let status = command
        .status()
        .with_context(|| format!("cannot run {line}"))?;
    if !status.success() {
        bail!("{line} failed ({status})");
    }
    Ok(())
}
