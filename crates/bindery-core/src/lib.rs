//! The facts bindery's build time and run time share, so both decide the same way: the
//! [`Mode`]s, the [`Encoding`]s a file can be precompressed in, the catalog [`key`] rules, the
//! build-time [`Error`], and, behind features, how a file is described ([`describe`]) and which
//! files of a folder a catalog holds ([`scan`]).
//!
//! `bindery-codegen` uses all of it; `bindery` uses the modes, encodings and key rules, and its
//! dev mode the rest. Nothing here depends on `syn` or any proc-macro crate.
//!
//! ```
//! use bindery_core::{Encoding, Mode};
//! assert_eq!(Mode::ALL.map(Mode::as_str), ["static", "gzip", "copy"]);
//! assert_eq!(Encoding::ALL.map(Encoding::as_str), ["br", "zstd", "gzip"]);
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "describe")]
#[cfg_attr(docsrs, doc(cfg(feature = "describe")))]
pub mod describe;
mod encoding;
mod error;
pub mod folder;
#[cfg(feature = "glob")]
#[cfg_attr(docsrs, doc(cfg(feature = "glob")))]
pub mod glob;
#[cfg(feature = "scan")]
mod ignore_files;
mod integrity;
pub mod key;
mod mode;
pub mod rules;
#[cfg(feature = "scan")]
#[cfg_attr(docsrs, doc(cfg(feature = "scan")))]
pub mod scan;

pub use encoding::{Encoding, ParseEncodingError};
pub use error::Error;
pub use integrity::{Integrity, ParseIntegrityError};
pub use mode::{Mode, ParseModeError};

/// The version of the contract between generated code and the `bindery` runtime: what
/// `bindery::__private_v{CONTRACT}` offers, the hidden fields of `EmbeddedFile`, and the
/// arguments of the macros generated code calls. Generated code names that module and
/// committed modules record the number, so a module meets only a runtime that reads it
/// (ARCHITECTURE.md, "The generated-code contract"). A test keeps a hash of that surface and
/// fails, asking for a bump, when it changes.
///
/// ```
/// assert_eq!(bindery_core::CONTRACT, 6);
/// ```
pub const CONTRACT: u32 = 6;

/// The length of every ETag: a quote, 32 hexadecimal digits of the content hash, a quote.
///
/// ```
/// assert_eq!(bindery_core::ETAG_LEN, "\"0123456789abcdef0123456789abcdef\"".len());
/// ```
pub const ETAG_LEN: usize = 34;

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
