//! Embed a folder of assets in your binary at build time and read it back without copies.
//!
//! `bindery` is the runtime half: the [`Catalog`] a build produced, its [`EmbeddedFile`]s and
//! the three [`Mode`]s they are read in. The build half lives in `bindery-codegen` and is reached
//! through the [`embed!`] macro or the `bindery embed` generator (bindery-cli); both produce the same
//! catalog, file for file and byte for byte.
//!
//! ```
//! use std::borrow::Cow;
//!
//! // Paths are relative to the crate's `Cargo.toml`.
//! static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "static");
//!
//! let hello = FIXTURES.get("hello.txt").unwrap();
//! assert!(matches!(hello, Cow::Borrowed(_))); // zero copy in `static` mode
//! assert_eq!(&*hello, b"Hello, bindery!\n");
//!
//! let file = FIXTURES.file("/hello.txt").unwrap(); // a leading slash is accepted
//! assert_eq!(file.mime(), "text/plain");
//! ```
//!
//! # Modes
//!
//! | mode | stored as | `get` returns |
//! | --- | --- | --- |
//! | [`Mode::Static`] | the file's bytes | `Cow::Borrowed`, no copy, no allocation |
//! | [`Mode::Gzip`] | gzip, compressed once at build time | an owned decompressed copy (borrowed when compression did not pay and the file was stored raw); [`EmbeddedFile::gzip`] hands out the stored bytes for clients that accept gzip |
//! | [`Mode::Copy`] | the file's bytes | an owned copy on every call, like Go's `embed.FS.ReadFile`; kept to show what that costs |
//!
//! # Rebuilds
//!
//! `rustc` re-runs the macro only when the crate itself is rebuilt. Files read through
//! `include_bytes!` are tracked, but new and deleted files (and, in `gzip` mode, edits) are not.
//! Add a build script that calls `bindery_codegen::track("assets/spa")` so that any change under
//! the folder rebuilds the crate. It also makes large catalogs cheaper to rebuild: the macro
//! puts small files into one blob either way, but without the build script it must still name
//! each file to rustc for cargo to notice its edits, which the build script makes unneeded
//! (BENCHMARKS.md, "Build cost").
//!
//! # Feature flags
//!
//! With none, `embed!` and the [`Catalog`] work: the macro walks the folder, hashes each file
//! (XXH3, for ETags) and guesses its media type. An option whose work needs a feature is a
//! compile error naming it until it is on.
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `gzip` | `mode = "gzip"` and `precompress = ["gzip"]`: compressed in the macro, inflated on read (flate2) |
//! | `integrity` | `integrity = true`: each file's SHA-256 and SRI string, made in the macro |
//! | `gitignore` | `gitignore = true`: what `.gitignore` and `.ignore` files leave out (the `ignore` crate) |
//! | `dev` | dev mode: in debug builds, each catalog reads its folder on disk as it is now |
//! | `overlay` | `bindery::overlay`: a folder on disk laid over a catalog, in release builds too |
//! | `livereload` | with `dev`: `serve::LiveReload` reloads open pages on an edit (debug builds only) |
//! | `serve` | `bindery::serve`: `ServeCatalog`, a tower service with static-server semantics |
//! | `server` | `bindery::serve::Server`: a hardened HTTP/1 and HTTP/2 server for any tower service |
//! | `zerocopy` | `bindery::zerocopy` (Linux): embedded bytes sent by `sendfile(2)` from the executable |
//! | `axum` | with `zerocopy`, `ZeroCopyListener` for `axum::serve` |
//! | `actix` | a `ServeCatalog` is an actix-web 4 service |
//! | `rocket` | a `ServeCatalog` is a rocket 0.5 handler; `bindery::rocket::mount` |
//! | `minijinja` | `bindery::minijinja`: templates read from a catalog, with `url()` and `integrity()` |
//! | `rust-embed` | `bindery::rust_embed`: rust-embed 8's `RustEmbed` trait over a catalog |
//! | `tower-http` | `bindery::tower_http`: a catalog as tower-http 0.7's `ServeDir` backend |
//! | `br` | `precompress = ["br"]`: brotli variants made in the macro (the runtime links no brotli) |
//! | `zstd` | `precompress = ["zstd"]`, `dictionaries = true`: zstd variants and deltas, made in the macro |
//! | `csp` | `script_hashes = true`: each inline `<script>`'s CSP hash, parsed as browsers do |
//! | `vite` | `manifest = "vite"`: entry tags and an import map with every chunk's integrity |
//! | `releases` | `releases = "…"`: earlier releases' hashed files served beside this build's, verified |
//!
//! What each adds to a cold build, in crates: the README, "What each feature adds".
#![cfg_attr(docsrs, feature(doc_cfg))]

#[doc(hidden)]
#[allow(missing_docs)]
pub mod __private_v8;
#[cfg(feature = "actix")]
#[cfg_attr(docsrs, doc(cfg(feature = "actix")))]
pub mod actix;
mod asset;
#[cfg(all(unix, feature = "overlay"))]
mod beneath;
mod bundle;
mod catalog;
mod contract;
mod dir;
mod error;
mod facts;
mod file;
mod layout;
#[cfg(any(all(feature = "dev", debug_assertions), feature = "overlay"))]
mod live;
mod lookup;
mod macros;
#[cfg(feature = "minijinja")]
#[cfg_attr(docsrs, doc(cfg(feature = "minijinja")))]
pub mod minijinja;
#[cfg(feature = "overlay")]
#[cfg_attr(docsrs, doc(cfg(feature = "overlay")))]
pub mod overlay;
#[cfg(feature = "rocket")]
#[cfg_attr(docsrs, doc(cfg(feature = "rocket")))]
pub mod rocket;
#[cfg(feature = "rust-embed")]
#[cfg_attr(docsrs, doc(cfg(feature = "rust-embed")))]
pub mod rust_embed;
#[cfg(feature = "serve")]
#[cfg_attr(docsrs, doc(cfg(feature = "serve")))]
pub mod serve;
#[cfg(feature = "tower-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower-http")))]
pub mod tower_http;
#[cfg(feature = "zerocopy")]
#[cfg_attr(docsrs, doc(cfg(feature = "zerocopy")))]
pub mod zerocopy;

pub use asset::Asset;
/// Embeds a folder as a [`Catalog`] at compile time.
///
/// `embed!("folder", option = value, ...)`: the folder is relative to the crate's `Cargo.toml`.
/// `$VAR` and `${VAR}` in it are environment variables read at build time, so
/// `embed!("$OUT_DIR/dist")` embeds what the crate's build script wrote (`$$` is a `$`; an unset
/// variable is a compile error naming it; cargo rebuilds when one changes). In dev mode the
/// catalog reads the folder the variable named at build time: `OUT_DIR` is not set when the
/// program runs. The expansion is a constant expression, so it can initialise a `static`, a
/// `const` or a local.
///
/// The options, the same for the generator (`bindery embed`, each as a flag: `--max-file-size`),
/// from the one list both doors read:
///
#[doc = include_str!("options.md")]
///
/// Every mistake is a compile error pointing at the argument at fault: a missing folder, a path
/// that is not a folder, an unknown mode, option or encoding, a bad glob, an unreadable file, a
/// symlink loop, `precompress = ["br"]` without the `br` feature.
///
/// `precompress` works in every mode: the mode still decides what [`Catalog::get`] returns and
/// what is stored as the file's own bytes; variants are only ever sent as they are, so the
/// runtime holds no brotli or zstd decoder. Brotli (quality 11) and zstd (level 19, window at most
/// 8 MiB) need bindery's `br` and `zstd` features, which compile the encoders into the macro
/// only. Each variant is kept where it saves at least 5%, and cached by content hash, so a
/// rebuild never compresses an unchanged file again.
///
/// File bytes enter the binary through `include_bytes!` of a file the build cache holds, written
/// from the bytes that were hashed (a compressed blob; the pack: small files stored as they are,
/// end to end in one blob; a private copy of any other file), or, for files of at least `large`
/// bytes on ELF targets, through the assembler's `.incbin` of that file; never as literal arrays.
/// A file that changes while the crate compiles is a compile error naming it, never bytes that
/// differ from their ETag. Add `bindery_codegen::track("folder")` to a build script so that
/// adding or deleting files rebuilds the crate (see the crate docs).
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!(
///     "../../assets/fixtures",
///     mode = "gzip",
///     include = ["**/*.html", "**/*.css", "**/*.js"],
///     exclude = "deep/**",
///     prefix = "static",
/// );
///
/// assert!(SITE.iter().all(|file| file.path().starts_with("static/")));
/// let page = SITE.file("static/index.html").unwrap();
/// assert!(page.gzip().is_some()); // sent as-is to clients that accept gzip
/// assert!(SITE.get("static/index.html").unwrap().starts_with(b"<!doctype html>"));
/// ```
///
/// Further folders join the same catalog as `folder("path", …)` arguments, each with the options
/// marked "each folder its own" above; the other options are the whole catalog's and are given
/// once, beside the first folder. A path that two folders give is a compile error naming both.
///
/// ```
/// static BOTH: bindery::Catalog = bindery::embed!(
///     "../../assets/fixtures",
///     include = "*.txt",
///     mode = "gzip",
///     folder("../../assets/spa", prefix = "app", exclude = "*.svg"),
/// );
///
/// assert!(BOTH.get("hello.txt").is_some());
/// assert!(BOTH.get("app/index.html").is_some());
/// assert!(BOTH.get("app/favicon.svg").is_none());
/// assert!(BOTH.get("index.html").is_none(), "the first folder keeps its own include");
/// let paths: Vec<&str> = BOTH.iter().map(|file| file.path()).collect();
/// assert!(paths.is_sorted());
/// ```
pub use bindery_macros::embed;
pub use bundle::EntryPoint;
pub use catalog::Catalog;
pub use dir::{Dir, DirEntry};
pub use error::Error;
#[doc(hidden)]
pub use facts::contract::CONTRACT as __CONTRACT;
/// A content coding of an embedded file's wire variant; see [`EmbeddedFile::encoded`].
pub use facts::encoding::Encoding;
/// The algorithm of an embedded file's [`integrity`](EmbeddedFile::integrity) string.
pub use facts::integrity::{Integrity, ParseIntegrityError};
/// How a catalog stores its files and what [`Catalog::get`] returns.
pub use facts::mode::{Mode, ParseModeError};
pub use file::EmbeddedFile;

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
