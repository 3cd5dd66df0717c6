//! Codegen through its public API: scanning, bad input, the blob cache, precompressed
//! variants, emitting and rendering.

mod bad_input;
mod bundle;
mod cache;
mod contract;
mod emit;
mod folders;
mod gitignore;
mod options;
mod pack;
mod precompress;
mod properties;
mod releases;
mod script_hashes;
mod siblings;
mod tree;
mod trust;
