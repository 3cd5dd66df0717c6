//! `cargo xtask embed`: this repository's door to the generator, which lives in `bindery-cli`
//! (the same one users install as `bindery` or call from their own xtask). The arguments go
//! through untouched, `--help` included.

use std::ffi::OsString;
use std::process::ExitCode;

/// Everything after `cargo xtask embed`, handed to `bindery_cli::run`.
#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// The generator's arguments: see `cargo xtask embed --help`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

/// Runs `bindery embed <args>`, shown as `cargo xtask embed` in help and messages.
pub fn run(args: Args) -> ExitCode {
    bindery_cli::run(
        ["cargo xtask", "embed"]
            .map(OsString::from)
            .into_iter()
            .chain(args.args),
    )
}
