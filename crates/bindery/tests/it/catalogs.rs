//! The catalogs under test: the fixture tree in every mode, and with options.

use bindery::Catalog;

pub static STATIC: Catalog = bindery::embed!("../../assets/fixtures", mode = "static");
pub static GZIP: Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
pub static COPY: Catalog = bindery::embed!("../../assets/fixtures", mode = "copy");

/// Every mode, for tests that must hold in each.
pub fn all() -> [(&'static str, &'static Catalog); 3] {
    [("static", &STATIC), ("gzip", &GZIP), ("copy", &COPY)]
}
