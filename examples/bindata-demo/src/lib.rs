//! Catalogs written by `cargo xtask embed` and committed, as go-bindata users commit
//! `bindata.go`: readable, reviewable, no proc-macro at build time. `cargo xtask ci` runs each
//! module's `--check` (the list is `GENERATED` in `xtask/src/ci.rs`), so they cannot go stale;
//! each module's header names the command that regenerates it.
//!
//! ```
//! assert_eq!(bindata_demo::FIXTURES_GZIP.mode(), bindery::Mode::Gzip);
//! assert!(bindata_demo::SPA.file("index.html").is_some());
//! ```
#![forbid(unsafe_code)]

mod fixtures_copy;
mod fixtures_gzip;
mod fixtures_static;
mod spa;

pub use fixtures_copy::FIXTURES_COPY;
pub use fixtures_gzip::FIXTURES_GZIP;
pub use fixtures_static::FIXTURES_STATIC;
pub use spa::SPA;
