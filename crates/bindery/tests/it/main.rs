//! Integration tests of the runtime through the public API, in one binary (each test binary
//! that embeds assets is another slow link).

mod catalogs;
mod dependencies;
mod dev;
mod external;
mod fixtures;
mod folders;
mod large;
mod metadata;
mod options;
mod project;
mod rebuild;
mod reload;
mod reproducible;
mod roundtrip;
mod rust_embed_crates;
mod server;
mod server_attacks;
mod trust;
mod vite;
mod vite_dev;
mod zerocopy;
