//! What a person sees: a progress bar while a large folder is hashed and compressed (on a
//! terminal only), and a summary at the end: one row of totals, then the five largest files,
//! so that an accidental video or `node_modules` shows on the first run.

use std::io::IsTerminal;
use std::time::Duration;

use bindery_codegen::{Manifest, Options};

use crate::Error;

/// Builds the manifest with a progress bar on a terminal, silence elsewhere (CI, pipes).
pub(crate) fn build_manifest(options: &Options) -> Result<Manifest, Error> {
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

/// How many of the largest files the summary lists.
const LARGEST: usize = 5;

/// The summary table: files, raw and stored bytes, their ratio, and the time taken; then the
/// largest files, with their raw and stored sizes.
pub(crate) fn summary(manifest: &Manifest, elapsed: Duration) -> String {
    let mut largest: Vec<&bindery_codegen::Entry> = manifest.entries.iter().collect();
    largest.sort_by(|left, right| {
        right
            .len
            .cmp(&left.len)
            .then_with(|| left.path.cmp(&right.path))
    });
    let mut text = totals(manifest, elapsed);
    if !largest.is_empty() {
        text.push_str(
            "
largest files:",
        );
        for entry in largest.into_iter().take(LARGEST) {
            text.push_str(&format!(
                "
  {:>12}  {:>12}  {}",
                entry.len,
                entry.stored_len(),
                entry.path
            ));
        }
    }
    text
}

fn totals(manifest: &Manifest, elapsed: Duration) -> String {
    let raw: u64 = manifest.entries.iter().map(|entry| entry.len).sum();
    let stored: u64 = manifest
        .entries
        .iter()
        .map(|entry| entry.stored_len())
        .sum();
    let ratio = if raw == 0 {
        1.0
    } else {
        stored as f64 / raw as f64
    };
    format!(
        "{:>6}  {:>12}  {:>12}  {:>6}  {:>8}\n{:>6}  {:>12}  {:>12}  {:>6.3}  {:>7.2}s",
        "files",
        "raw bytes",
        "stored bytes",
        "ratio",
        "elapsed",
        manifest.entries.len(),
        raw,
        stored,
        ratio,
        elapsed.as_secs_f64()
    )
}
