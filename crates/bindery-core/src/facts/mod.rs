//! The facts the runtime (`bindery`) shares with the build, compiled into both: the modes, the
//! encodings, the integrity algorithms, the catalog key rules, the glob matcher, the contract
//! and the ETag. The runtime cannot depend on this crate without compiling it twice (once for
//! the proc macro's host, once for the target), so it holds a copy of each file, made from
//! these and checked against them by `tests/facts_copy.rs` (`BINDERY_BLESS=1` rewrites it).

pub mod contract;
pub mod encoding;
#[cfg(feature = "glob")]
pub mod glob;
#[cfg(feature = "glob")]
mod glob_parse;
pub mod integrity;
pub mod key;
pub mod mode;
