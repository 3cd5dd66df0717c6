//! Globs as a catalog reads them: the build's `include`/`exclude` and the service's per-path
//! headers match catalog paths with one syntax (`*` crosses `/`, `**` any depth, `\`
//! escapes).

use globset::{Glob, GlobBuilder};

use crate::Error;

/// Compiles one glob the way the build's filter does, so callers can point at the faulty one.
///
/// ```
/// assert!(bindery_core::glob::compile_glob("**/*.css").is_ok());
/// assert!(bindery_core::glob::compile_glob("a[").is_err());
/// ```
pub fn compile_glob(pattern: &str) -> Result<Glob, Error> {
    GlobBuilder::new(pattern)
        .backslash_escape(true)
        .build()
        .map_err(|error| Error::Glob {
            glob: pattern.to_owned(),
            message: error.kind().to_string(),
        })
}
