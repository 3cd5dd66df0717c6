//! The generator of [bindery](https://docs.rs/bindery) as a product: the `bindery` binary
//! (`bindery embed assets/ --out src/assets.rs`) and the same command line as a library, so a
//! project's own `cargo xtask embed` is one line.
//!
//! The generator writes a readable module defining `pub static NAME: bindery::Catalog`, the same
//! catalog the `bindery::embed!` macro builds (both come from `bindery-codegen`), with compressed
//! blobs in a folder beside it. Commit it, or regenerate it in a build step; `--check` tells CI
//! when it is stale.
//!
//! ```no_run
//! // xtask/src/main.rs of any project
//! fn main() -> std::process::ExitCode {
//!     bindery_cli::run(std::env::args_os())
//! }
//! ```
//!
//! Programs that already hold the arguments call [`embed`] and get a typed [`Error`].
#![forbid(unsafe_code)]

mod cli;
mod embed;
mod error;
mod release;

pub use cli::run;
pub use embed::{EmbedArgs, FolderArgs, Outcome, embed};
pub use error::Error;
pub use release::{ReleaseArgs, save_release};

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
