//! What the benches read: the same files through bindery's three modes, rust-embed and include_dir.
//!
//! Web files (a 1 KiB text, Vue 2.7.16 minified, MIT, see `assets/LICENSE-vue`) come from
//! `assets/web` through `embed!`; the 17 MiB incompressible file is written by `build.rs` into
//! `OUT_DIR` and embedded through modules `build.rs` renders with bindery-codegen.
//!
//! ```
//! assert_eq!(bindery_benches::WEB_STATIC.get("vue.min.js").unwrap().len(), 107_679);
//! assert_eq!(bindery_benches::LARGE_STATIC.get("noise.bin").unwrap().len(), 17 << 20);
//! ```

#![allow(missing_docs)] // generated statics

use bindery::Catalog;

pub static WEB_STATIC: Catalog = bindery::embed!("assets/web", mode = "static");
pub static WEB_GZIP: Catalog = bindery::embed!("assets/web", mode = "gzip");
pub static WEB_COPY: Catalog = bindery::embed!("assets/web", mode = "copy");
/// The web files in `static` mode with brotli, zstd and gzip variants made at build time.
pub static WEB_PRECOMPRESSED: Catalog = bindery::embed!(
    "assets/web",
    mode = "static",
    precompress = ["br", "zstd", "gzip"]
);

include!(concat!(env!("OUT_DIR"), "/large_static.rs"));
include!(concat!(env!("OUT_DIR"), "/large_gzip.rs"));
include!(concat!(env!("OUT_DIR"), "/large_copy.rs"));
include!(concat!(env!("OUT_DIR"), "/text_gzip.rs"));

/// The 17 MiB file gzip-compressed, as go-bindata stores every file whatever it saves.
pub static NOISE_GZIP: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/noise.bin.gz"));

/// rust-embed over the same web files (borrowed `Cow` in release builds).
#[derive(rust_embed::Embed)]
#[folder = "assets/web"]
pub struct RustEmbedWeb;

/// rust-embed over the 17 MiB file.
#[derive(rust_embed::Embed)]
#[folder = "$OUT_DIR/large"]
pub struct RustEmbedLarge;

/// include_dir over the web files and the 17 MiB file.
pub static INCLUDE_DIR_WEB: include_dir::Dir<'static> =
    include_dir::include_dir!("$CARGO_MANIFEST_DIR/assets/web");
/// include_dir over the 17 MiB file.
pub static INCLUDE_DIR_LARGE: include_dir::Dir<'static> =
    include_dir::include_dir!("$OUT_DIR/large");

/// The bare axum route `bench-bare` and `bench-plain`'s floor answer with: `bytes` and a media
/// type, nothing else (no validators, ranges or negotiation).
///
/// ```
/// let route = bindery_benches::bare_route("text/plain", b"hello");
/// let _app: axum::Router = axum::Router::new().route("/hello", route);
/// ```
pub fn bare_route(content_type: &'static str, bytes: &'static [u8]) -> axum::routing::MethodRouter {
    axum::routing::get(move || async move {
        (
            [(http::header::CONTENT_TYPE, content_type)],
            bytes::Bytes::from_static(bytes),
        )
    })
}

/// The embedded bytes of `name` in a `static` catalog, empty if the catalog has none (a bench
/// then answers less, never something else).
///
/// ```
/// let noise = bindery_benches::embedded(&bindery_benches::LARGE_STATIC, "noise.bin");
/// assert_eq!(noise.len(), 17 << 20);
/// assert!(bindery_benches::embedded(&bindery_benches::LARGE_STATIC, "missing").is_empty());
/// ```
pub fn embedded(catalog: &'static Catalog, name: &str) -> &'static [u8] {
    catalog
        .file(name)
        .and_then(bindery::EmbeddedFile::raw)
        .unwrap_or_default()
}
