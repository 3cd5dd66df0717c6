//! The command line: `bindery embed`, `bindery release`, `bindery completions`, `--version` and `help`; parsing,
//! printing and exit statuses, shared by the installed binary and users' xtasks.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::{EmbedArgs, Error, embed};

/// Embed folders of assets in Rust binaries: the generator of bindery (go-bindata's role).
///
/// It writes a readable module defining `pub static NAME: bindery::Catalog`, the same catalog
/// the `bindery::embed!` macro builds, to commit or to write from a build step.
#[derive(Debug, Parser)]
#[command(name = "bindery", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a module embedding a folder, with compressed blobs beside it (`--check`: compare
    /// only, for CI).
    Embed(Box<EmbedArgs>),
    /// Save the hashed files of a build as the next release in a releases folder, for the next
    /// build's `releases` (old chunks kept for open tabs, deltas for returning visitors).
    Release(crate::ReleaseArgs),
    /// Print a completion script for a shell, e.g. `bindery completions bash >
    /// ~/.local/share/bash-completion/completions/bindery`.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
}

/// Runs the command line `args` as the `bindery` binary does, the first item being the program
/// name, and returns the exit status: 0 done or up to date, 1 stale under `--check` or a
/// failure, 2 bad arguments or input (one line on stderr naming the argument or file; nothing
/// written).
///
/// This is the entry for a project's own xtask: with
///
/// ```no_run
/// // xtask/src/main.rs
/// fn main() -> std::process::ExitCode {
///     bindery_cli::run(std::env::args_os())
/// }
/// ```
///
/// and the usual alias (`xtask = "run --package xtask --"` in `.cargo/config.toml`),
/// `cargo xtask embed assets/ --out src/assets.rs` works in that project. A program named
/// `xtask` is shown as `cargo xtask` in help and messages.
///
/// ```
/// use std::process::ExitCode;
/// assert_eq!(bindery_cli::run(["bindery", "--version"]), ExitCode::SUCCESS);
/// assert_eq!(bindery_cli::run(["bindery", "embed", "no/such/folder"]), ExitCode::from(2));
/// ```
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut args = args.into_iter().map(Into::into);
    let program: OsString = args.next().unwrap_or_else(|| "bindery".into());
    let shown = shown_name(&program);
    let parsed = Cli::command()
        .bin_name(&shown)
        .try_get_matches_from(std::iter::once(program).chain(args))
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            // clap gives 0 for --help and --version, 2 for usage errors.
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    match cli.command {
        Command::Embed(args) => run_embed(&args, &shown),
        Command::Release(args) => match crate::save_release(&args) {
            Ok(said) => {
                eprintln!("{said}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {error}");
                error.exit_code()
            }
        },
        Command::Completions { shell } => {
            let name = if shown.contains(' ') {
                "bindery"
            } else {
                &shown
            };
            clap_complete::generate(shell, &mut Cli::command(), name, &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

fn run_embed(args: &EmbedArgs, shown: &str) -> ExitCode {
    match embed(args) {
        Ok(outcome) if outcome.wrote => {
            eprintln!("{}", outcome.summary);
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!("{} is up to date", args.out.display());
            ExitCode::SUCCESS
        }
        Err(Error::Stale { stale, command }) => {
            for line in &stale {
                eprintln!("stale: {line}");
            }
            eprintln!("error: regenerate with: {shown} embed {command}");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            error.exit_code()
        }
    }
}

/// How the program is named in help and messages: its file stem, `cargo xtask` for an xtask.
fn shown_name(program: &OsStr) -> String {
    let stem = Path::new(program)
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .filter(|stem| !stem.is_empty())
        .unwrap_or_else(|| "bindery".to_owned());
    if stem == "xtask" {
        "cargo xtask".to_owned()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_is_shown_by_its_stem_and_an_xtask_as_cargo_xtask() {
        assert_eq!(shown_name(OsStr::new("/usr/local/bin/bindery")), "bindery");
        assert_eq!(shown_name(OsStr::new("bindery.exe")), "bindery");
        assert_eq!(shown_name(OsStr::new("target/debug/xtask")), "cargo xtask");
        assert_eq!(shown_name(OsStr::new("cargo xtask")), "cargo xtask");
        assert_eq!(shown_name(OsStr::new("")), "bindery");
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
