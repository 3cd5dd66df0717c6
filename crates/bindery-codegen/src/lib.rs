//! Build-time half of bindery: scan a folder, hash, compress and emit a `Catalog`.
//!
//! One implementation serves every front door: the `bindery::embed!` proc-macro turns a
//! [`Manifest`] into tokens with [`emit::catalog`], the `bindery embed` generator (bindery-cli) into a
//! readable module with [`render::module`], and build scripts call [`track`] so that cargo
//! rebuilds when the folder changes.
//!
//! ```
//! use bindery_codegen::{Mode, Options, Stored};
//!
//! let manifest = Options::new("../../assets/fixtures").mode(Mode::Gzip).build().unwrap();
//! let page = manifest.entries.iter().find(|entry| entry.path == "index.html").unwrap();
//! assert!(matches!(page.stored, Stored::Gzip { .. }));
//! ```
#![forbid(unsafe_code)]

mod compress;
pub mod describe;
pub mod emit;
mod encoding;
mod error;
mod hashes;
mod manifest;
mod options;
pub mod pack;
pub mod render;
pub mod scan;
mod track;

pub use compress::{MIN_SAVING_PERCENT, default_cache_dir};
pub use encoding::{
    BROTLI_QUALITY, BROTLI_WINDOW_LOG, Encoding, ParseEncodingError, ZSTD_LEVEL, ZSTD_WINDOW_LOG,
    check_precompress,
};
pub use error::Error;
pub use manifest::{Entry, Manifest, Rules, Stored, Variant};
pub use options::{
    DEFAULT_LARGE_THRESHOLD, DEFAULT_LEVEL, Mode, Options, ParseModeError, Progress,
    normalise_prefix, parse_large_threshold,
};
pub use track::{TRACKED_ENV, is_tracked, track};

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
