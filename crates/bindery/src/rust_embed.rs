//! rust-embed's trait over a bindery catalog (feature `rust-embed`): code written against
//! [`rust_embed::RustEmbed`](::rust_embed::RustEmbed) (poem's `EmbeddedFilesEndpoint`, salvo's
//! `static_embed`, axum-embed's `ServeEmbed`, handlebars' `register_embed_templates`, your own
//! handlers) takes a bindery type unchanged. A catalog with `integrity = true` hands out the
//! SHA-256 rust-embed's metadata carries as recorded at build time; others hash on each `get`.
//!
//! [`rust_embed!`](crate::rust_embed!) declares the type, over a catalog of either door (the
//! macro's or a generated module's), in any mode:
//!
//! ```
//! use rust_embed::RustEmbed as _; // the trait, as the crates above name it
//!
//! static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", integrity = true);
//! bindery::rust_embed! {
//!     /// The fixtures, for code that takes a `RustEmbed`.
//!     pub struct Assets(ASSETS);
//! }
//!
//! let file = Assets::get("hello.txt").expect("embedded");
//! assert_eq!(file.data, ASSETS.get("hello.txt").unwrap());
//! assert_eq!(Some(&file.metadata.sha256_hash()), ASSETS.file("hello.txt").unwrap().sha256());
//! assert!(Assets::iter().any(|name| name == "hello.txt"));
//! // A catalog's key rules: one leading `/` is taken, a backslash is no separator.
//! assert!(Assets::get("/hello.txt").is_some());
//! assert!(Assets::get("images\\logo.svg").is_none());
//! ```
//!
//! What differs from `#[derive(RustEmbed)]` (docs/embedding.md, "From rust-embed", has the
//! whole table): `last_modified` is `None` unless the catalog records times (`modified = true`
//! or `"source-date-epoch"`), so that builds are reproducible; `created` is always `None`;
//! `mimetype` is bindery's media type (the same `mime_guess` table; the feature turns on
//! rust-embed's `mime-guess`); hidden files are left out unless `hidden = true`. rust-embed's `compression`
//! feature changes the trait (a `compressed` method) and is not supported: a bindery catalog
//! in `gzip` mode is the way to store files compressed.

use std::borrow::Cow;
use std::time::UNIX_EPOCH;

use crate::Catalog;

/// The trait and the file type, as [`rust_embed!`](crate::rust_embed!) names them.
pub use ::rust_embed::{EmbeddedFile, Metadata, RustEmbed};

/// The file at `path` of `catalog`, as rust-embed gives it: the bytes (borrowed in `static`
/// mode, decompressed in `gzip` mode, copied in `copy` mode) and the metadata. What
/// [`rust_embed!`](crate::rust_embed!)'s `get` calls.
///
/// ```
/// static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
/// let file = bindery::rust_embed::file(&ASSETS, "hello.txt").unwrap();
/// assert_eq!(file.metadata.mimetype(), "text/plain");
/// assert!(bindery::rust_embed::file(&ASSETS, "missing.txt").is_none());
/// ```
pub fn file(catalog: &Catalog, path: &str) -> Option<EmbeddedFile> {
    let entry = catalog.file(path)?;
    let data = entry.contents().ok()?;
    let modified = entry
        .modified()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map(|since| since.as_secs());
    // Recorded by the build when the catalog says `integrity = true` (nothing hashed here);
    // else made from the bytes, as rust-embed's own debug builds do.
    let sha256 = entry.sha256().copied().unwrap_or_else(|| {
        use sha2::Digest as _;
        sha2::Sha256::digest(&data).into()
    });
    let metadata =
        ::rust_embed::utils::__rust_embed_metadata!(sha256, modified, None, entry.mime());
    Some(EmbeddedFile { data, metadata })
}

/// Every path of `catalog`, sorted, as rust-embed's `iter` gives them. What
/// [`rust_embed!`](crate::rust_embed!)'s `iter` calls.
pub fn names(catalog: &'static Catalog) -> impl Iterator<Item = Cow<'static, str>> + 'static {
    catalog.iter().map(|file| Cow::Borrowed(file.path()))
}

/// Declares a unit type that implements [`rust_embed::RustEmbed`](::rust_embed::RustEmbed) over
/// a `static` [`Catalog`]: `bindery::rust_embed! { pub struct Assets(ASSETS); }`, where
/// `ASSETS` is made by `bindery::embed!` or by a generated module (`spa::SPA`). The type also
/// gets `catalog()`, to serve the same files with [`serve::ServeCatalog`](crate::serve).
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/spa", mode = "gzip");
/// bindery::rust_embed! { struct Site(SITE); }
/// use rust_embed::RustEmbed as _;
/// assert_eq!(Site::iter().count(), SITE.len());
/// assert!(std::ptr::eq(Site::catalog(), &SITE));
/// ```
#[macro_export]
macro_rules! rust_embed {
    ($(#[$meta:meta])* $vis:vis struct $name:ident($catalog:path);) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default)]
        $vis struct $name;

        impl $name {
            /// The catalog behind this type.
            #[allow(dead_code)]
            $vis fn catalog() -> &'static $crate::Catalog {
                &$catalog
            }
        }

        impl $crate::rust_embed::RustEmbed for $name {
            fn get(file_path: &str) -> ::core::option::Option<$crate::rust_embed::EmbeddedFile> {
                $crate::rust_embed::file(&$catalog, file_path)
            }

            fn iter() -> impl ::core::iter::Iterator<Item = ::std::borrow::Cow<'static, str>> + 'static {
                $crate::rust_embed::names(&$catalog)
            }
        }
    };
}
