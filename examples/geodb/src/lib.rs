//! The GeoIP database the geo server embeds, chosen at build time.
//!
//! [`DATABASE`] is the file named by `$GEODB`, else `assets/geo/GeoLite2-City.mmdb` when
//! `cargo xtask geodb` has fetched it, else [`SAMPLE`]: a small City database built from
//! `assets/geo/sample-city.json`. Tests use [`SAMPLE`], so they never depend on which database
//! a machine has. Both are checked with `maxminddb` while building.
//!
//! This crate holds nothing else, so embedding a 56 MB database costs a rebuild of this crate
//! only when the database changes.
//!
//! ```
//! let reader = maxminddb::Reader::from_source(geodb::SAMPLE).unwrap();
//! assert_eq!(reader.metadata().database_type, "bindery-Sample-City");
//! assert!(!geodb::DATABASE.is_empty());
//! ```
#![forbid(unsafe_code)]

/// The database to serve, embedded with `include_bytes!`: read-only data of the binary.
pub static DATABASE: &[u8] = include_bytes!(env!("GEODB_PATH"));

/// Where [`DATABASE`] came from: `GEODB`, `assets/geo/GeoLite2-City.mmdb` or `sample`.
pub const ORIGIN: &str = env!("GEODB_ORIGIN");

/// The sample City database built from `assets/geo/sample-city.json` (IPv4 and IPv6).
pub static SAMPLE: &[u8] = include_bytes!(env!("GEODB_SAMPLE_PATH"));

/// The BLAKE3 hash of [`DATABASE`], in hex, computed when it was embedded: the server's
/// identity for its HTTP validators, known without reading the database's pages.
///
/// ```
/// assert_eq!(geodb::DATABASE_BLAKE3, blake3::hash(geodb::DATABASE).to_hex().as_str());
/// ```
pub const DATABASE_BLAKE3: &str = env!("GEODB_BLAKE3");

/// The BLAKE3 hash of [`SAMPLE`], in hex.
pub const SAMPLE_BLAKE3: &str = env!("GEODB_SAMPLE_BLAKE3");
