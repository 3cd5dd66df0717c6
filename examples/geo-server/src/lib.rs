//! bindery's showcase: a single-page app and a GeoIP API from one binary.
//!
//! The SPA is embedded with `bindery::embed!` in `gzip` mode and served by
//! `bindery::serve::ServeCatalog`; the GeoIP database is embedded by the `geodb` crate and read
//! in place, copied to the heap, or memory-mapped from a file ([`db::DbMode`]).

pub mod address;
pub mod alloc;
pub mod answer;
pub mod answer_cache;
pub mod caching;
pub mod cli;
pub mod count;
pub mod db;
pub mod error;
pub mod exact;
pub mod front;
pub mod language;
pub mod metrics;
pub mod private_copy;
pub mod reload;
mod routes;
pub mod tree_jump;

pub use front::{App, ConnectionApp, app};
pub use routes::{AppState, SPA, admin_router, assets, router};
