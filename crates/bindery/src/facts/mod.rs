//! The facts the runtime shares with the build: the modes, the encodings, the integrity
//! algorithms, the catalog key rules, the glob matcher, the contract and the ETag. Each file is
//! a copy of `bindery-core`'s `src/facts/`, made and checked by its `tests/facts_copy.rs`: the
//! runtime compiles the copy rather than depend on `bindery-core`, which a build would compile
//! twice (for the proc macro's host and for the target). Edit the originals, never these.

// Each file also holds what only the build uses.
#![allow(dead_code, unreachable_pub)]

pub(crate) mod contract;
pub(crate) mod encoding;
#[cfg(feature = "serve")]
pub(crate) mod glob;
#[cfg(feature = "serve")]
mod glob_parse;
pub(crate) mod integrity;
pub(crate) mod key;
pub(crate) mod mode;
