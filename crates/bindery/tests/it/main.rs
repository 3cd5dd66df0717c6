//! Integration tests of the runtime through the public API, in one binary (each test binary
//! that embeds assets is another slow link).

mod catalogs;
mod fixtures;
mod metadata;
mod options;
mod rebuild;
mod roundtrip;
mod ui;
mod external;
