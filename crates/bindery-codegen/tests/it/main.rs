//! Codegen through its public API: scanning, bad input, the gzip cache, emitting and rendering.

mod bad_input;
mod cache;
mod emit;
mod properties;
mod tree;
