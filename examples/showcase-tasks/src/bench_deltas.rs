//! `cargo xtask bench-deltas`: what a deploy that keeps the previous release costs and saves,
//! measured on bindery's own output: for a file changed between two releases, its bytes in
//! full, gzip, br, zstd and as a `dcz` delta against the previous version (RFC 9842); and
//! the build's time and catalog bytes with and without the kept release.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use bindery_codegen::{Encoding, Manifest, Options, release};

/// Flags of `cargo xtask bench-deltas`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many builds to time per configuration (the median is shown).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
}

/// One measured pair: a file's previous and current versions.
struct Pair {
    name: &'static str,
    previous: Vec<u8>,
    current: Vec<u8>,
}

fn pairs(root: &Path) -> anyhow::Result<Vec<Pair>> {
    let read =
        |path: &str| std::fs::read(root.join(path)).with_context(|| format!("cannot read {path}"));
    let vue = read("benches/assets/web/vue.min.js")?;
    let vue_text = String::from_utf8(vue.clone()).context("vue.min.js is UTF-8")?;
    // One function changed: what a small fix to a library looks like in its bundle.
    let before = "function o(t){return!0===t}";
    anyhow::ensure!(vue_text.contains(before), "vue.min.js lacks `{before}`");
    let edited = vue_text.replacen(before, "function o(t){return!0===t||\"yes\"===t}", 1);
    Ok(vec![
        Pair {
            name: "assets/deploy app bundle (one function)",
            previous: read("assets/deploy/releases/1/assets/app-01dRel1x.js")?,
            current: read("assets/deploy/dist/assets/app-N3wRel2x.js")?,
        },
        Pair {
            name: "vue.min.js (one function)",
            previous: vue,
            current: edited.into_bytes(),
        },
    ])
}

fn options(folder: &Path, cache: &Path) -> Options {
    Options::new(folder)
        .fingerprint(true)
        .precompress([Encoding::Gzip, Encoding::Br, Encoding::Zstd])
        .cache_dir(cache)
}

/// Builds `folder` (with the releases in `releases`, when given) `runs` times, each with an
/// empty cache; the last manifest and the median time.
fn timed(folder: &Path, releases: Option<&Path>, runs: usize) -> anyhow::Result<(Manifest, f64)> {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let cache = tempfile::tempdir()?;
        let mut options = options(folder, cache.path());
        if let Some(releases) = releases {
            options = options
                .releases(Some(releases.to_owned()))
                .dictionaries(true);
        }
        let started = Instant::now();
        last = Some(options.build()?);
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok((last.context("one build")?, times[times.len() / 2]))
}

/// Bytes the catalog stores: every file's stored bytes, variants and deltas.
fn catalog_bytes(manifest: &Manifest) -> u64 {
    manifest
        .entries
        .iter()
        .map(|entry| {
            let variants: u64 = entry.variants.iter().map(|variant| variant.len).sum();
            let deltas: u64 = entry
                .dictionary
                .iter()
                .flat_map(|dictionary| &dictionary.deltas)
                .map(|delta| delta.len)
                .sum();
            entry.stored_len() + variants + deltas
        })
        .sum()
}

fn measure(pair: &Pair, runs: usize) -> anyhow::Result<String> {
    let work = tempfile::tempdir()?;
    let write = |folder: &str, bytes: &[u8]| -> anyhow::Result<PathBuf> {
        let dir = work.path().join(folder);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("app.js"), bytes)?;
        Ok(dir)
    };
    let previous = write("previous", &pair.previous)?;
    let current = write("current", &pair.current)?;
    let releases = work.path().join("releases");
    let cache = tempfile::tempdir()?;
    release::save(&options(&previous, cache.path()).build()?, &releases, 3)?;
    let (alone, alone_ms) = timed(&current, None, runs)?;
    let (kept, kept_ms) = timed(&current, Some(&releases), runs)?;
    let app = kept
        .entries
        .iter()
        .find(|entry| entry.path == "app.js")
        .context("app.js")?;
    let variant = |encoding| {
        app.variants
            .iter()
            .find(|variant| variant.encoding == encoding)
            .map_or(app.len, |variant| variant.len)
    };
    let dcz = app
        .dictionary
        .as_ref()
        .and_then(|dictionary| dictionary.deltas.first())
        .map(|delta| delta.len)
        .context("no delta was made")?;
    let br = variant(Encoding::Br);
    Ok(format!(
        "| {} | {} | {} | {br} | {} | {dcz} ({:.3}x br) | {alone_ms:.0} → {kept_ms:.0} ms | +{} B |",
        pair.name,
        app.len,
        variant(Encoding::Gzip),
        variant(Encoding::Zstd),
        dcz as f64 / br as f64,
        catalog_bytes(&kept) - catalog_bytes(&alone),
    ))
}

/// Prints the table (markdown, as BENCHMARKS.md and docs/deploying.md quote it).
pub fn run(args: &Args) -> anyhow::Result<()> {
    let root = bindery_test_support::workspace();
    println!("| file | full | gzip -9 | br 11 | zstd 19 | dcz | build (cold cache) | catalog |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for pair in pairs(&root)? {
        println!("{}", measure(&pair, args.runs)?);
    }
    Ok(())
}
