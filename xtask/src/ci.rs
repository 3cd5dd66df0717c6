//! `cargo xtask ci`: the one command that runs every check, on a fresh machine as on CI.
//!
//! It installs what the tests need (one table: installs.rs's `INSTALLS`), then runs the
//! code-shape lint (`lint-code`), fmt, clippy, the generated modules' freshness, `cargo package` of the published crates, doc
//! tests, the browser test, REDbot over the geo server, two replicas behind a caching nginx,
//! every fuzz target for a few seconds, and every other test with nextest last, so the run
//! closes on the total.

use std::process::Command;

use anyhow::{Context, bail, ensure};

use crate::installs::{CHROMIUM, E2E};
use crate::process::{cargo, cargo_command, one_shot_builds, run_command};

/// Flags of `cargo xtask ci`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Skip `cargo fmt --check` and clippy; run only the tests.
    #[arg(long)]
    pub tests_only: bool,
}

/// The crates published to crates.io, in dependency order. `cargo package` checks that each
/// builds from its packaged sources alone (README, licenses and metadata included).
pub const PUBLISHED: [&str; 5] = [
    "bindery-core",
    "bindery-codegen",
    "bindery-macros",
    "bindery",
    "bindery-cli",
];

/// What each step of a run took, printed as the run goes and once more at its end (also when
/// a step fails), so that a slow CI names its slow step.
#[derive(Default)]
struct Steps(Vec<(&'static str, std::time::Duration)>);

impl Steps {
    fn run(
        &mut self,
        name: &'static str,
        step: impl FnOnce() -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let start = std::time::Instant::now();
        let result = step();
        let took = start.elapsed();
        eprintln!("xtask ci: {name}: {:.0} s", took.as_secs_f64());
        self.0.push((name, took));
        if result.is_err() {
            self.summary();
        }
        result.with_context(|| format!("step `{name}`"))
    }

    fn summary(&self) {
        let total: std::time::Duration = self.0.iter().map(|(_, took)| *took).sum();
        eprintln!("xtask ci: steps (total {:.0} s):", total.as_secs_f64());
        for (name, took) in &self.0 {
            eprintln!("  {:>6.0} s  {name}", took.as_secs_f64());
        }
    }
}

/// Runs the checks in order, stopping at the first failure.
pub fn run(args: &Args) -> anyhow::Result<()> {
    one_shot_builds();
    // A full run writes several GB under target/ (BENCHMARKS.md, "What CI costs"); a disk
    // that fills mid-run fails with "No space left on device" far from the cause, so say up
    // front what there is.
    run_command(Command::new("df").args(["-h", "."]))?;
    let mut steps = Steps::default();
    steps.run("install", crate::installs::install_all)?;
    steps.run("generated modules", check_generated)?;
    if !args.tests_only {
        steps.run("lint-code", crate::lint_code::run)?;
        steps.run("fmt", || cargo(&["fmt", "--all", "--check"]))?;
        steps.run("clippy", || {
            cargo(&[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
        })?;
    }
    steps.run("doc", docs)?;
    steps.run("package", package)?;
    steps.run("doc tests", || cargo(&["test", "--workspace", "--doc"]))?;
    steps.run("browser test", || {
        cargo(&["build", "--package", "geo-server"])?;
        run_command(
            Command::new("node")
                .args(["--test", E2E])
                .env("CHROMIUM", CHROMIUM)
                .env("GEO_SERVER_BIN", "target/debug/geo-server"),
        )
    })?;
    steps.run("REDbot", || {
        crate::showcase(&[
            "lint-http".into(),
            "--binary".into(),
            "target/debug/geo-server".into(),
        ])
    })?;
    steps.run("scale", || {
        crate::showcase(&["scale".into(), "--quick".into()])
    })?;
    steps.run("soak", || {
        crate::showcase(&[
            "soak".into(),
            "--seconds".into(),
            "20".into(),
            "--quick".into(),
        ])
    })?;
    steps.run("fuzz", || {
        crate::fuzz::run(&crate::fuzz::Args {
            seconds: 5,
            target: None,
            dev: true,
        })
    })?;
    steps.run("tests", || {
        cargo(&["nextest", "run", "--workspace", "--no-fail-fast"])
    })?;
    steps.summary();
    run_command(Command::new("du").args(["-sh", "target"]))?;
    Ok(())
}

/// `cargo doc --workspace --no-deps` with every warning an error (a broken intra-doc link, a
/// public doc naming a private item). The workspace's members turn on the runtime's features
/// between them, all but `dev` and `minijinja`, which are turned on here: one run documents all
/// of it.
fn docs() -> anyhow::Result<()> {
    run_command(
        cargo_command()
            .args(["doc", "--workspace", "--no-deps"])
            .args(["--features", "bindery/dev,bindery/minijinja"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )
}

/// Runs `cargo xtask embed … --check` for every committed generated module, with the
/// arguments its own header records (`regenerate = "bindery embed …"`); the generator names
/// each stale file and the command that regenerates it.
fn check_generated() -> anyhow::Result<()> {
    let modules = generated_modules()?;
    ensure!(
        !modules.is_empty(),
        "no committed generated module was found"
    );
    for (module, arguments) in modules {
        eprintln!(
            "xtask: {module}: cargo xtask embed {} --check",
            arguments.join(" ")
        );
        let command_line = ["cargo xtask", "embed"]
            .into_iter()
            .chain(arguments.iter().map(String::as_str))
            .chain(["--check"]);
        if bindery_cli::run(command_line) != std::process::ExitCode::SUCCESS {
            bail!("{module} is stale");
        }
    }
    Ok(())
}

/// Every committed Rust file that is a generated module (its header has `regenerate =
/// "bindery embed …"`), with the arguments that line records, split as a shell would.
pub fn generated_modules() -> anyhow::Result<Vec<(String, Vec<String>)>> {
    let listed = Command::new("git").args(["ls-files", "*.rs"]).output()?;
    ensure!(listed.status.success(), "git ls-files failed");
    let mut modules = Vec::new();
    for path in String::from_utf8_lossy(&listed.stdout).lines() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Some(line) = text
            .lines()
            .take(20)
            .find_map(|line| line.trim().strip_prefix("regenerate = \"bindery embed "))
        else {
            continue;
        };
        let command = line.trim_end_matches("\";");
        let words = shlex::split(command)
            .with_context(|| format!("{path}: cannot read the regenerate line {command:?}"))?;
        modules.push((path.to_owned(), words));
    }
    Ok(modules)
}

/// `cargo package` of every published crate, with verification: each is built from its
/// `.crate` file against the others' (cargo overlays the unpublished ones). `--allow-dirty` so
/// that the check also runs on a working tree with local changes.
fn package() -> anyhow::Result<()> {
    forget_stale_extractions()?;
    let mut args = vec!["package", "--allow-dirty", "--quiet"];
    for name in PUBLISHED {
        args.extend(["--package", name]);
    }
    cargo(&args)
}

/// Removes earlier verifications' unpacked copies of our crates. Cargo verifies against a local
/// registry of the new `.crate` files and unpacks each into `$CARGO_HOME/registry/src/<registry>/
/// <name>-<version>`, named after the registry's path; it never unpacks a name and version again.
/// A later run from the same checkout path with the same version would then build against the
/// old sources (seen: a new field "missing" from bindery-codegen). Only folders of local
/// registries (crates.io's are named `index.*`) holding our crates are removed.
fn forget_stale_extractions() -> anyhow::Result<()> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let Ok(registries) = std::fs::read_dir(cargo_home.join("registry/src")) else {
        return Ok(());
    };
    let version = env!("CARGO_PKG_VERSION");
    for registry in registries.filter_map(Result::ok) {
        if registry.file_name().to_string_lossy().starts_with("index.") {
            continue;
        }
        for name in PUBLISHED {
            let unpacked = registry.path().join(format!("{name}-{version}"));
            if unpacked.is_dir() {
                std::fs::remove_dir_all(&unpacked)
                    .with_context(|| format!("cannot remove {}", unpacked.display()))?;
            }
        }
    }
    Ok(())
}
