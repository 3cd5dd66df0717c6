//! `cargo xtask embed`: go-bindata's generator for bindery. Scans a folder and writes a readable
//! module defining `pub static NAME: bindery::Catalog`, with gzip blobs in a sibling folder.
//!
//! Everything but argument handling, progress and writing files comes from `bindery-codegen`,
//! the same code the `embed!` macro runs, so the two front doors give the same catalog.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use bindery_codegen::emit::Locator;
use bindery_codegen::render::{is_identifier, module};
use bindery_codegen::scan::compile_glob;
use bindery_codegen::{
    DEFAULT_LARGE_THRESHOLD, DEFAULT_LEVEL, Manifest, Mode, Options, Stored, normalise_prefix,
    parse_large_threshold,
};

use crate::Usage;

const EXAMPLES: &str = "Examples:
  cargo xtask embed assets/spa
      writes ./bindata.rs defining `pub static ASSETS: bindery::Catalog` (static mode)
  cargo xtask embed assets/spa --mode gzip --out src/spa.rs --name SPA --exclude '**/*.map'
      writes src/spa.rs and its compressed blobs in src/spa/
  cargo xtask embed assets/spa --mode gzip --out src/spa.rs --name SPA --exclude '**/*.map' --check
      exits 1, naming each stale file, if regenerating would change anything (for CI)

Use the module with `mod spa;` (or `include!`) and a dependency on `bindery`.";

/// Flags of `cargo xtask embed`.
#[derive(Debug, Clone, clap::Parser)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The folder to embed, e.g. `assets/spa`.
    pub dir: PathBuf,
    /// How the catalog stores files: `static` (zero copy), `gzip` (compressed once, sent as-is
    /// to clients that accept gzip) or `copy` (copied on every read).
    #[arg(long, default_value = "static", value_parser = parse_mode)]
    pub mode: Mode,
    /// The module to write, e.g. `src/spa.rs`; gzip blobs go in a folder named after it
    /// (`src/spa/`).
    #[arg(long, default_value = "bindata.rs")]
    pub out: PathBuf,
    /// The name of the generated `pub static`, e.g. `SPA`.
    #[arg(long, default_value = "ASSETS")]
    pub name: String,
    /// A path put before every catalog path, e.g. `static` gives `static/index.html`.
    #[arg(long)]
    pub prefix: Option<String>,
    /// Embed only files matching this glob (relative to the folder; repeatable), e.g. `'**/*.js'`.
    #[arg(long = "include", value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out files matching this glob (repeatable; wins over --include), e.g. `'**/*.map'`.
    #[arg(long = "exclude", value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Gzip level, 0 to 9 (gzip mode).
    #[arg(long, default_value_t = DEFAULT_LEVEL, value_parser = clap::value_parser!(u32).range(0..=9))]
    pub level: u32,
    /// Embed files and folders whose name starts with `.`.
    #[arg(long)]
    pub hidden: bool,
    /// Stored size in bytes from which a file enters the binary through the assembler
    /// (`.incbin`) instead of `include_bytes!`, sparing rustc; `0` for every file, `off` never.
    #[arg(long, value_name = "BYTES|off", default_value = "1048576", value_parser = parse_large)]
    pub large: Large,
    /// Write nothing; exit 1, naming each stale file, if regenerating would change anything.
    #[arg(long)]
    pub check: bool,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    text.parse()
}

/// The `--large` threshold: `None` is `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Large(pub Option<u64>);

fn parse_large(text: &str) -> Result<Large, String> {
    parse_large_threshold(text).map(Large)
}

/// What the module and its blob folder must contain.
struct Plan {
    out: PathBuf,
    blob_dir: PathBuf,
    text: String,
    /// Blob file name -> cached blob to copy from.
    blobs: BTreeMap<String, PathBuf>,
}

/// Runs the task.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let started = Instant::now();
    let (options, out_dir) = validate(args)?;
    let manifest = build_manifest(&options)?;
    let plan = plan(args, &manifest, &out_dir)?;
    if args.check {
        return check(args, &plan);
    }
    write(&plan)?;
    summarise(&manifest, started);
    Ok(())
}

/// Every bad-input check, before anything is read or written; failures are usage errors.
fn validate(args: &Args) -> anyhow::Result<(Options, PathBuf)> {
    if !is_identifier(&args.name) {
        return Err(Usage(format!("--name `{}` is not a Rust identifier", args.name)).into());
    }
    for glob in args.include.iter().chain(&args.exclude) {
        compile_glob(glob).map_err(|error| Usage(error.to_string()))?;
    }
    if let Some(prefix) = &args.prefix {
        normalise_prefix(prefix).map_err(|error| Usage(error.to_string()))?;
    }
    let root = match std::fs::metadata(&args.dir) {
        Err(_) => {
            return Err(Usage(format!("folder `{}` does not exist", args.dir.display())).into());
        }
        Ok(metadata) if !metadata.is_dir() => {
            return Err(Usage(format!("`{}` is not a folder", args.dir.display())).into());
        }
        Ok(_) => std::fs::canonicalize(&args.dir)?,
    };
    let out_parent = match args.out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !args.check {
        std::fs::create_dir_all(&out_parent).map_err(|error| {
            Usage(format!(
                "cannot write --out `{}`: {error}",
                args.out.display()
            ))
        })?;
    }
    let out_dir = std::fs::canonicalize(&out_parent)
        .unwrap_or_else(|_| std::path::absolute(&out_parent).unwrap_or(out_parent));
    if out_dir.starts_with(&root) {
        return Err(Usage(format!(
            "--out `{}` is inside the embedded folder `{}`: the next run would embed it",
            args.out.display(),
            args.dir.display()
        ))
        .into());
    }
    if !args.check {
        tempfile::NamedTempFile::new_in(&out_dir).map_err(|error| {
            Usage(format!(
                "cannot write --out `{}`: {error}",
                args.out.display()
            ))
        })?;
        if args.out.is_dir() {
            return Err(Usage(format!("--out `{}` is a folder", args.out.display())).into());
        }
    }
    let mut options = Options::new(root)
        .mode(args.mode)
        .level(args.level)
        .include_hidden(args.hidden)
        .large_threshold(args.large.0)
        .prefix(args.prefix.clone().unwrap_or_default());
    for glob in &args.include {
        options = options.include(glob.clone());
    }
    for glob in &args.exclude {
        options = options.exclude(glob.clone());
    }
    Ok((options, out_dir))
}

/// Builds the manifest with a progress bar on a terminal, silence elsewhere (CI, pipes).
fn build_manifest(options: &Options) -> anyhow::Result<Manifest> {
    let is_interactive = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let bar = if is_interactive {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let manifest = options.build_with_progress(&mut |progress| {
        bar.set_length(progress.total as u64);
        bar.set_position(progress.done as u64);
        bar.set_message(progress.path.to_owned());
    });
    bar.finish_and_clear();
    Ok(manifest?)
}

fn plan(args: &Args, manifest: &Manifest, out_dir: &Path) -> anyhow::Result<Plan> {
    let file_name = args.out.file_name().context("--out names no file")?;
    let out = out_dir.join(file_name);
    let stem = args.out.file_stem().context("--out names no file")?;
    let blob_dir = out_dir.join(stem);
    let manifest_dir = out_dir
        .ancestors()
        .find(|dir| dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf);
    let locator = Locator::Module {
        module_dir: out_dir.to_path_buf(),
        blob_dir: blob_dir.clone(),
        manifest_dir,
    };
    let header = format!(
        "Generated by `cargo xtask embed`: do not edit.\nRegenerate with:\n    cargo xtask embed {}",
        command_line(args)
    );
    let text =
        module(manifest, &locator, &args.name, &header).context("--name is not an identifier")?;
    let blobs = manifest
        .entries
        .iter()
        .filter_map(|entry| match &entry.stored {
            Stored::Gzip { blob, .. } => {
                let name = blob.file_name()?.to_string_lossy().into_owned();
                Some((name, blob.clone()))
            }
            Stored::Raw => None,
        })
        .collect();
    Ok(Plan {
        out,
        blob_dir,
        text,
        blobs,
    })
}

/// The command that regenerates the module, as recorded in its header: deterministic, with the
/// paths as they were given.
fn command_line(args: &Args) -> String {
    let mut words = vec![
        args.dir.display().to_string(),
        "--mode".into(),
        args.mode.to_string(),
    ];
    words.extend([
        "--out".into(),
        args.out.display().to_string(),
        "--name".into(),
        args.name.clone(),
    ]);
    if let Some(prefix) = &args.prefix {
        words.extend(["--prefix".into(), prefix.clone()]);
    }
    for glob in &args.include {
        words.extend(["--include".into(), glob.clone()]);
    }
    for glob in &args.exclude {
        words.extend(["--exclude".into(), glob.clone()]);
    }
    if args.mode == Mode::Gzip && args.level != DEFAULT_LEVEL {
        words.extend(["--level".into(), args.level.to_string()]);
    }
    if args.hidden {
        words.push("--hidden".into());
    }
    if args.large.0 != Some(DEFAULT_LARGE_THRESHOLD) {
        let threshold = args
            .large
            .0
            .map_or_else(|| "off".to_owned(), |bytes| bytes.to_string());
        words.extend(["--large".into(), threshold]);
    }
    words
        .iter()
        .map(|word| shell_quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_quote(word: &str) -> String {
    let is_safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    if is_safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Blob files we own in the blob folder: `<64 hex>-<level>.gz`.
fn existing_blobs(blob_dir: &Path) -> BTreeMap<String, PathBuf> {
    let Ok(entries) = std::fs::read_dir(blob_dir) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let (hash, level) = name.strip_suffix(".gz")?.split_once('-')?;
            let is_ours = hash.len() == 64
                && hash.bytes().all(|byte| byte.is_ascii_hexdigit())
                && level.bytes().all(|byte| byte.is_ascii_digit());
            is_ours.then(|| (name, entry.path()))
        })
        .collect()
}

fn same_bytes(left: &Path, right: &Path) -> bool {
    match (std::fs::read(left), std::fs::read(right)) {
        (Ok(left), Ok(right)) => left == right,
        _ => false,
    }
}

fn check(args: &Args, plan: &Plan) -> anyhow::Result<()> {
    let mut stale = Vec::new();
    match std::fs::read_to_string(&plan.out) {
        Ok(text) if text == plan.text => {}
        Ok(_) => stale.push(format!("{}: out of date", args.out.display())),
        Err(_) => stale.push(format!("{}: missing", args.out.display())),
    }
    let existing = existing_blobs(&plan.blob_dir);
    for (name, cached) in &plan.blobs {
        match existing.get(name) {
            Some(path) if same_bytes(path, cached) => {}
            Some(path) => stale.push(format!("{}: differs from its content hash", path.display())),
            None => stale.push(format!("{}: missing", plan.blob_dir.join(name).display())),
        }
    }
    for (name, path) in &existing {
        if !plan.blobs.contains_key(name) {
            stale.push(format!("{}: no longer used", path.display()));
        }
    }
    if stale.is_empty() {
        eprintln!("{} is up to date", args.out.display());
        return Ok(());
    }
    for line in &stale {
        eprintln!("stale: {line}");
    }
    anyhow::bail!("regenerate with: cargo xtask embed {}", command_line(args))
}

/// Writes blobs first (new names never clobber old ones), then the module by rename, then
/// removes blobs no longer used: a failure at any point leaves a consistent previous output.
fn write(plan: &Plan) -> anyhow::Result<()> {
    let existing = existing_blobs(&plan.blob_dir);
    if !plan.blobs.is_empty() {
        std::fs::create_dir_all(&plan.blob_dir)
            .with_context(|| format!("cannot create {}", plan.blob_dir.display()))?;
    }
    for (name, cached) in &plan.blobs {
        let target = plan.blob_dir.join(name);
        if existing
            .get(name)
            .is_some_and(|path| same_bytes(path, cached))
        {
            continue;
        }
        let mut staged = tempfile::NamedTempFile::new_in(&plan.blob_dir)?;
        let bytes =
            std::fs::read(cached).with_context(|| format!("cannot read {}", cached.display()))?;
        staged.write_all(&bytes)?;
        staged
            .persist(&target)
            .with_context(|| format!("cannot write {}", target.display()))?;
    }
    let parent = plan.out.parent().context("--out has a folder")?;
    let mut staged = tempfile::NamedTempFile::new_in(parent)?;
    staged.write_all(plan.text.as_bytes())?;
    std::fs::set_permissions(
        staged.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )?;
    staged
        .persist(&plan.out)
        .with_context(|| format!("cannot write {}", plan.out.display()))?;
    for (name, path) in &existing {
        if !plan.blobs.contains_key(name) {
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    // Only removes the folder when nothing else is in it.
    let _ = std::fs::remove_dir(&plan.blob_dir);
    Ok(())
}

fn summarise(manifest: &Manifest, started: Instant) {
    let raw: u64 = manifest.entries.iter().map(|entry| entry.len).sum();
    let stored: u64 = manifest
        .entries
        .iter()
        .map(|entry| match &entry.stored {
            Stored::Raw => entry.len,
            Stored::Gzip { len, .. } => *len,
        })
        .sum();
    let ratio = if raw == 0 {
        1.0
    } else {
        stored as f64 / raw as f64
    };
    eprintln!(
        "{:>6}  {:>12}  {:>12}  {:>6}  {:>8}",
        "files", "raw bytes", "stored bytes", "ratio", "elapsed"
    );
    eprintln!(
        "{:>6}  {:>12}  {:>12}  {:>6.3}  {:>7.2}s",
        manifest.entries.len(),
        raw,
        stored,
        ratio,
        started.elapsed().as_secs_f64()
    );
}
