//! Build-time half of bindery: scan a folder, hash, compress and emit a `Catalog`.
//!
//! One implementation serves every front door: the `bindery::embed!` proc-macro turns a
//! [`Manifest`] into tokens with [`emit::catalog`], the `bindery embed` generator (bindery-cli) into a
//! readable module with `render::module` (feature `render`), and build scripts call [`track`] so that cargo
//! rebuilds when the folder changes.
//!
//! ```
//! use bindery_codegen::{Mode, Options, Stored};
//!
//! let manifest = Options::new("../../assets/fixtures").mode(Mode::Gzip).build().unwrap();
//! let page = manifest.entries.iter().find(|entry| entry.path == "index.html").unwrap();
//! assert!(matches!(page.stored, Stored::Gzip { .. }));
//! ```
#![forbid(unsafe_code)]

mod build;
mod bundle;
mod cache;
mod compress;
mod delta;
#[cfg(feature = "frontend")]
mod dev_entries;
pub mod emit;
mod encoding;
#[cfg(feature = "frontend")]
mod frontend;
mod identity;
mod manifest;
pub mod options;
pub mod pack;
pub mod release;
#[cfg(feature = "render")]
pub mod render;
mod script_hashes;
mod source_date;
mod track;
mod validate;

pub use bindery_core::folder::{Expanded, expand_env as expand_folder};
pub use bindery_core::key::{FINGERPRINT_LEN, normalise_prefix};
pub use bindery_core::{
    Encoding, Error, Integrity, Mode, ParseEncodingError, ParseIntegrityError, ParseModeError,
    describe, scan,
};

pub use bundle::{Bundle, Bundler, Chunk};
pub use cache::default_cache_dir;
pub use compress::MIN_SAVING_PERCENT;
pub use delta::{DCZ_MAGIC, MAX_DICTIONARY, delta_window_log};
pub use encoding::{
    BROTLI_QUALITY, BROTLI_WINDOW_LOG, ZSTD_LEVEL, ZSTD_WINDOW_LOG, check_precompress,
    is_compiled_in,
};
#[cfg(feature = "frontend")]
pub use frontend::{Frontend, FrontendError, PackageManager};
pub use manifest::{Delta, Dictionary, Entry, Folder, Manifest, Stored, Variant};
pub use options::{
    DEFAULT_CRATE_PATH, DEFAULT_LARGE_THRESHOLD, DEFAULT_LEVEL, Modified, Options, Progress, Rules,
    parse_large_threshold, parse_size,
};
pub use source_date::{DateOrigin, SOURCE_DATE_EPOCH, SourceDate};
pub use track::{TRACKED_ENV, is_tracked, track};
pub use validate::{Concern, Problem};

/// The version of the contract between generated code and the `bindery` runtime
/// (`bindery_core::CONTRACT`): code this crate emits names `::bindery::__private_v{CONTRACT}`.
pub use bindery_core::CONTRACT;
/// The length of the content hash in hex (`bindery_core::HASH_LEN`): file records and blob names.
pub use bindery_core::HASH_LEN;

/// The runtime's path in generated code: `crate_path` as tokens (`::bindery` when it is not a
/// path, which validation refused before).
pub(crate) fn runtime(crate_path: &str) -> proc_macro2::TokenStream {
    match syn::parse_str::<syn::Path>(crate_path) {
        Ok(path) => quote::quote!(#path),
        Err(_) => quote::quote!(::bindery),
    }
}

/// The path of the runtime's private module for [`CONTRACT`].
pub(crate) fn private_module(crate_path: &str) -> proc_macro2::TokenStream {
    let runtime = runtime(crate_path);
    let module = quote::format_ident!("__private_v{}", CONTRACT);
    quote::quote!(#runtime::#module)
}

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
