//! `cargo xtask bench-http`: wrk against the release `bench-server` on loopback, server and wrk
//! on separate cores, CPU per request from `/proc`. Stages: [`cases`] (what), [`measure`] (one
//! run), [`report`] (the document, table and chart; `--report` renders them again).

mod cases;
mod chart;
mod document;
pub(crate) mod measure;
mod report;

use std::path::Path;

use anyhow::Context;

use crate::process::{build_release_binary, ensure_wrk, geolite2};
use cases::CASES;
pub use document::median;
use document::{CaseRuns, Document};
pub use measure::{Sample, parse_wrk};

/// Flags of `cargo xtask bench-http`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One round of 2 s per case instead of three of 10 s (under a minute).
    #[arg(long)]
    pub quick: bool,
    /// Render the table and chart again from target/bench/http.json, without running anything.
    #[arg(long)]
    pub report: bool,
    /// Run only the cases whose target or configuration contains this text (repeatable, e.g.
    /// `--only /geo --only '1 KiB'`); the bare axum reference always runs, for the ratios.
    #[arg(long, value_name = "TEXT")]
    pub only: Vec<String>,
}

const OUTPUT: &str = "target/bench";

/// Runs every case, interleaved, and writes the document, table and chart.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.report {
        println!("{}", report::rerender(Path::new(OUTPUT))?);
        return Ok(());
    }
    ensure_wrk()?;
    build_release_binary("bindery-benches", cases::BENCH_SERVER)?;
    build_release_binary("bindery-benches", cases::BENCH_BARE)?;
    let db_file = geolite2()
        .context("the mmap case needs the real database: run `cargo xtask geodb` first")?;
    let (rounds, seconds) = if args.quick { (1, 2) } else { (3, 10) };
    let chosen: Vec<&cases::Case> = CASES
        .iter()
        .filter(|case| {
            document::is_reference(case.config)
                || args.only.is_empty()
                || args.only.iter().any(|text| {
                    case.target.contains(text.as_str()) || case.config.contains(text.as_str())
                })
        })
        .collect();
    let mut document = Document {
        seconds,
        rounds,
        cases: chosen
            .iter()
            .map(|case| CaseRuns {
                target: case.target.to_owned(),
                config: case.config.to_owned(),
                connections: case.connections,
                runs: Vec::new(),
                paired_references: Vec::new(),
            })
            .collect(),
    };
    for round in 1..=rounds {
        for (case, runs) in chosen.iter().zip(&mut document.cases) {
            // A compared row's reference runs again just before it: the ratio then compares
            // two runs seconds apart, not minutes.
            let reference = chosen.iter().find(|reference| {
                !document::is_reference(case.config)
                    && document::is_reference(reference.config)
                    && document::is_comparable(
                        case.target,
                        case.connections,
                        reference.target,
                        reference.connections,
                    )
            });
            if let Some(reference) = reference {
                eprintln!(
                    "round {round}/{rounds}: {} (paired reference)",
                    reference.config
                );
                let sample = measure::measure(reference, seconds, &db_file)?;
                runs.paired_references.push(sample);
            }
            eprintln!("round {round}/{rounds}: {} / {}", case.target, case.config);
            runs.runs.push(measure::measure(case, seconds, &db_file)?);
        }
    }
    println!("{}", report::write(Path::new(OUTPUT), &document)?);
    eprintln!("wrote {OUTPUT}/http.{{md,json,svg}}");
    Ok(())
}
