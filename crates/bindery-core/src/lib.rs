//! The facts bindery's build time and run time share, so both decide the same way: the
//! [`Mode`]s, the [`Encoding`]s a file can be precompressed in, the catalog [`key`] rules, the
//! build-time [`Error`], and, behind features, how a file is described ([`describe`]) and which
//! files of a folder a catalog holds ([`scan`]).
//!
//! `bindery-codegen` uses all of it; `bindery` holds a copy of the [`facts`] (modes, encodings,
//! key rules, globs, the contract) and uses the rest in dev mode and the overlay only. Nothing
//! here depends on `syn` or any proc-macro crate.
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
pub mod dev_record;
mod error;
pub mod facts;
pub mod folder;
#[cfg(feature = "gitignore")]
mod ignore_files;
pub mod key;
pub mod rules;
#[cfg(feature = "scan")]
#[cfg_attr(docsrs, doc(cfg(feature = "scan")))]
pub mod scan;

pub use error::Error;
pub use facts::contract::{CONTRACT, ETAG_LEN, HASH_LEN, Tagged, etag};
pub use facts::encoding::{Encoding, ParseEncodingError};
#[cfg(feature = "glob")]
#[cfg_attr(docsrs, doc(cfg(feature = "glob")))]
pub use facts::glob;
pub use facts::integrity::{Integrity, ParseIntegrityError};
pub use facts::mode::{Mode, ParseModeError};

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
