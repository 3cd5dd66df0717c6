//! Embed a folder of assets in your binary at build time and read it back without copies.
//!
//! `bindery` is the runtime half: the [`Catalog`] a build produced, its [`EmbeddedFile`]s and
//! the three [`Mode`]s they are read in. The build half lives in `bindery-codegen` and is reached
//! through the [`embed!`] macro or the `cargo xtask embed` generator; both produce the same
//! catalog, file for file and byte for byte.
//!
//! ```
//! use std::borrow::Cow;
//!
//! // Paths are relative to the crate's `Cargo.toml`.
//! static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "static");
//!
//! let hello = FIXTURES.get("hello.txt").unwrap();
//! assert!(matches!(hello, Cow::Borrowed(_))); // zero copy in `static` mode
//! assert_eq!(&*hello, b"Hello, bindery!\n");
//!
//! let file = FIXTURES.file("/hello.txt").unwrap(); // a leading slash is accepted
//! assert_eq!(file.mime(), "text/plain");
//! ```
//!
//! # Modes
//!
//! | mode | stored as | `get` returns |
//! | --- | --- | --- |
//! | [`Mode::Static`] | the file's bytes | `Cow::Borrowed`, no copy, no allocation |
//! | [`Mode::Gzip`] | gzip, compressed once at build time | an owned decompressed copy (borrowed when compression did not pay and the file was stored raw); [`EmbeddedFile::gzip`] hands out the stored bytes for clients that accept gzip |
//! | [`Mode::Copy`] | the file's bytes | an owned copy on every call, like Go's `embed.FS.ReadFile`; kept to show what that costs |
//!
//! # Rebuilds
//!
//! `rustc` re-runs the macro only when the crate itself is rebuilt. Files read through
//! `include_bytes!` are tracked, but new and deleted files (and, in `gzip` mode, edits) are not.
//! Add a build script that calls `bindery_codegen::track("assets/spa")` so that any change under
//! the folder rebuilds the crate.
#![cfg_attr(docsrs, feature(doc_cfg))]


mod catalog;
mod dev;
mod dir;
mod error;
mod file;
mod lookup;
mod mode;
#[doc(hidden)]
#[allow(missing_docs)]
pub mod __private;

pub use bindery_macros::embed;
pub use catalog::Catalog;
pub use dir::{Dir, DirEntry};
pub use error::Error;
pub use file::EmbeddedFile;
pub use mode::Mode;
