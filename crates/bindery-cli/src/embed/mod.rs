//! `bindery embed`: go-bindata's generator for bindery. Scans a folder and writes a readable
//! module defining `pub static NAME: bindery::Catalog`, with compressed blobs in a sibling
//! folder.
//!
//! Everything but arguments, progress and writing files comes from `bindery-codegen`, the same
//! code the `embed!` macro runs, so the two front doors give the same catalog. Stages:
//! [`validate`] (usage errors before any work) -> manifest ([`report`]) -> [`plan`] -> `--check`
//! or [`write`].

mod args;
mod plan;
mod report;
mod validate;
mod write;

use std::time::Instant;

pub use args::{EmbedArgs, FolderArgs};

use crate::Error;

/// What a finished run did.
///
/// ```no_run
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Command {
///     #[command(flatten)]
///     embed: bindery_cli::EmbedArgs,
/// }
///
/// let command = Command::parse_from(["embed", "assets/spa", "--out", "src/spa.rs"]);
/// let outcome = bindery_cli::embed(&command.embed).unwrap();
/// println!("{} files", outcome.files);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// Files in the catalog.
    pub files: usize,
    /// Whether the run wrote files (`false` under `--check`).
    pub wrote: bool,
    /// The summary table shown after a run that wrote (files, raw and stored bytes, ratio,
    /// elapsed time).
    pub summary: String,
}

/// Runs the generator with parsed arguments: validates, builds the manifest, then checks
/// (`--check`) or writes. Nothing is written when it returns a [`Error::Usage`] or
/// [`Error::Stale`].
///
/// Use [`run`](crate::run) to parse a command line, print and get an exit status; this is the
/// typed entry for programs that already hold the arguments.
pub fn embed(args: &EmbedArgs) -> Result<Outcome, Error> {
    let started = Instant::now();
    let (options, out_dir) = validate::validate(args)?;
    let manifest = report::build_manifest(&options)?;
    let plan = plan::plan(args, &manifest, &out_dir)?;
    if args.check {
        write::check(args, &plan)?;
    } else {
        write::write(&plan)?;
    }
    Ok(Outcome {
        files: manifest.entries.len(),
        wrote: !args.check,
        summary: report::summary(&manifest, started.elapsed()),
    })
}
