//! Why [`Builder::build`](crate::serve::Builder::build) refused a setup: one type for every setter it
//! checks.

/// Why [`Builder::build`](crate::serve::Builder::build) refused a setup.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A setter named a file the catalog does not have.
    #[error("{setting}: the catalog has no file {path:?}{}", suggestion(near))]
    NoSuchFile {
        /// The setter: `spa_fallback`, `not_found_file` or `alias`.
        setting: &'static str,
        /// The path it was given.
        path: String,
        /// The catalog's paths closest to it, nearest first (at most three).
        near: Vec<String>,
    },
    /// An overlay laid over another catalog than the service's.
    #[cfg(feature = "overlay")]
    #[error("overlay: it lies over another catalog than the one this service serves")]
    OverlayOfAnotherCatalog,
    /// A glob given to [`Builder::headers`](crate::serve::Builder::headers) that does not compile.
    #[error("headers: the glob {glob:?} is not valid: {message}")]
    BadGlob {
        /// The glob as given.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// A header given to [`Builder::headers`](crate::serve::Builder::headers) that cannot be sent as it is.
    #[error("headers for {glob:?}: {name:?}: {reason}")]
    BadHeader {
        /// The glob it was given for.
        glob: String,
        /// The header's name as given.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// [`Builder::content_security_policy`](crate::serve::Builder::content_security_policy) over an
    /// HTML file with an inline script whose hash the build did not record: the browser would
    /// block the script.
    #[error(
        "content_security_policy: {path:?} has an inline script whose hash the build did not \
         record, and the policy would block it: build the catalog with `script_hashes = true` \
         (feature `csp`), or move the script to a file"
    )]
    InlineScriptWithoutHash {
        /// The HTML file.
        path: String,
    },
    /// The dev server's origin (`VITE_DEV_SERVER`, or
    /// [`Builder::vite_dev_server`](crate::serve::Builder::vite_dev_server)) is not an origin.
    #[cfg(all(feature = "dev", debug_assertions))]
    #[error("VITE_DEV_SERVER: {origin:?} is {reason}")]
    DevServer {
        /// The origin as given.
        origin: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An alias that can never be asked for: not a catalog path.
    #[error("alias: {alias:?} is not a catalog path (no `..`, `.` or empty segments, `\\`, NUL)")]
    BadAlias {
        /// The alias as given.
        alias: String,
    },
}

/// ` (did you mean "a"?)` for the paths near a missing one, or nothing when none is.
pub(crate) fn suggestion(near: &[String]) -> String {
    match near {
        [] => String::new(),
        [one] => format!(" (did you mean {one:?}?)"),
        more => format!(
            " (did you mean one of {}?)",
            more.iter()
                .map(|path| format!("{path:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
