//! `cargo xtask lint-http`: an independent HTTP linter, REDbot (from PyPI, in a venv under
//! `target/`), checks what the geo server sends for the API and every asset of the SPA; any
//! BAD or WARN note fails the task. Run by `xtask ci`.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::process::{cargo, run_command, spawn_server};

/// Flags of `cargo xtask lint-http`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The geo-server binary to check (built in debug mode when left out).
    #[arg(long)]
    pub binary: Option<std::path::PathBuf>,
    /// Only install REDbot (what `cargo xtask ci`'s install step asks for), lint nothing.
    #[arg(long)]
    pub install_only: bool,
}

const VENV: &str = "target/redbot-venv";
const REDBOT: &str = "redbot==2.7.1";

/// What is checked: the API (an answer, a miss, its description) and the SPA, page and assets.
const PATHS: [&str; 9] = [
    "/geo/8.8.8.8",
    "/geo/10.0.0.1",
    "/openapi.json",
    "/",
    "/index.html",
    "/app.js",
    "/style.css",
    "/world.svg",
    "/favicon.svg",
];

/// Installs REDbot if needed, starts the server and lints every path.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let redbot = Path::new(VENV).join("bin/redbot");
    if !redbot.is_file() {
        run_command(Command::new("python3").args(["-m", "venv", VENV]))?;
        run_command(Command::new(Path::new(VENV).join("bin/pip")).args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            REDBOT,
        ]))?;
    }
    if args.install_only {
        return Ok(());
    }
    let binary = match &args.binary {
        Some(binary) => binary.clone(),
        None => {
            cargo(&["build", "--quiet", "--package", "geo-server"])?;
            "target/debug/geo-server".into()
        }
    };
    let (mut server, address) = spawn_server(
        Command::new(&binary)
            .args(["--addr", "127.0.0.1:0"])
            .env("NO_COLOR", "1"),
    )?;
    let result = (|| {
        let mut failures = Vec::new();
        for path in PATHS {
            let url = format!("http://{address}{path}");
            let output = Command::new(&redbot)
                .args(["-o", "har", &url])
                .output()
                .context("cannot run redbot")?;
            let notes = notes(&output.stdout)
                .with_context(|| format!("redbot's report on {url} is not a HAR document"))?;
            let bad: Vec<&(String, String, String)> = notes
                .iter()
                .filter(|(level, _, _)| level == "BAD" || level == "WARN")
                .collect();
            eprintln!(
                "lint-http: {path}: {} notes, {} BAD or WARN",
                notes.len(),
                bad.len()
            );
            for (level, id, summary) in bad {
                failures.push(format!("{path}: {level} {id}: {summary}"));
            }
        }
        if !failures.is_empty() {
            bail!("REDbot found problems:\n{}", failures.join("\n"));
        }
        Ok(())
    })();
    let _ = server.kill();
    let _ = server.wait();
    result
}

/// (level, note id, summary) of every note in a REDbot HAR report.
fn notes(har: &[u8]) -> anyhow::Result<Vec<(String, String, String)>> {
    let document: serde_json::Value = serde_json::from_slice(har)?;
    let entries = document["log"]["entries"]
        .as_array()
        .context("no entries")?;
    anyhow::ensure!(!entries.is_empty(), "no entries");
    Ok(entries
        .iter()
        .flat_map(|entry| {
            entry["_red_messages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|note| {
            let text = |key: &str| note[key].as_str().unwrap_or_default().to_owned();
            (text("level"), text("note_id"), text("summary"))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::notes;

    #[test]
    fn reads_levels_ids_and_summaries_from_a_har_report() {
        let har = br#"{"log": {"entries": [{"_red_messages": [
            {"note_id": "INM_304", "level": "GOOD", "summary": "If-None-Match works."},
            {"note_id": "CC_CONFLICTING", "level": "WARN", "summary": "Conflicting."}
        ]}]}}"#;
        let found = notes(har).expect("parses");
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].0, "WARN");
        assert_eq!(found[1].1, "CC_CONFLICTING");
        assert!(notes(b"{}").is_err());
        assert!(notes(b"not json").is_err());
    }
}
