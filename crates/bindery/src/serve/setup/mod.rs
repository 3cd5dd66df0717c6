//! Setting a service up, once: the [`Builder`](super::Builder) and what it resolves (the site's
//! files, their header values computed once, per-path headers, entry tags, the CSP), and why it
//! refuses a setup.

pub(crate) mod build_error;
pub(crate) mod builder;
pub(crate) mod config;
pub(crate) mod csp;
#[cfg(all(feature = "dev", debug_assertions))]
pub(crate) mod dev_server;
mod entry_csp;
pub(crate) mod inline_scripts;
pub(crate) mod path_headers;
pub(crate) mod prepared;
pub(crate) mod site;
pub(crate) mod tags;
