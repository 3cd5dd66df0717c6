//! Tokens from a [`Manifest`]: the one emitter behind both the macro and the generated modules.
//!
//! Asset bytes always enter through `include_bytes!` of a file on disk, never as byte-array
//! literals: rustc parses a literal byte by byte and needs gigabytes of memory for megabytes of
//! data, while `include_bytes!` hands it the file as one blob.

use std::path::{Component, Path, PathBuf};

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::{Manifest, Mode, Stored};

/// How generated code reaches the files it includes.
#[derive(Debug, Clone)]
pub enum Locator {
    /// For the macro: every file is named as `concat!(env!("CARGO_MANIFEST_DIR"), "/…")` with a
    /// path relative to the crate's manifest folder (absolute here), so the expansion holds no
    /// machine-specific path.
    ManifestDir(PathBuf),
    /// For a generated module: every file by a path relative to the module's own folder. Gzip blobs
    /// are expected in `blob_dir`, under the same file name as in the cache. When the crate's
    /// manifest folder is known, dev mode can read the source folder.
    Module {
        /// The folder of the generated `.rs` file (absolute).
        module_dir: PathBuf,
        /// Where the blobs are copied to (absolute).
        blob_dir: PathBuf,
        /// The manifest folder of the crate the module belongs to (absolute), if known.
        manifest_dir: Option<PathBuf>,
    },
}

impl Locator {
    /// The expression naming a source file or blob for `include_bytes!`.
    fn file(&self, path: &Path, is_blob: bool) -> TokenStream {
        match self {
            Locator::ManifestDir(manifest_dir) => under_manifest_dir(manifest_dir, path)
                .unwrap_or_else(|| {
                    let absolute = slash_path(path);
                    quote!(#absolute)
                }),
            Locator::Module {
                module_dir,
                blob_dir,
                ..
            } => {
                let target = if is_blob {
                    blob_dir.join(path.file_name().unwrap_or_default())
                } else {
                    path.to_path_buf()
                };
                let relative = pathdiff::diff_paths(&target, module_dir).unwrap_or(target);
                let relative = slash_path(&relative);
                quote!(#relative)
            }
        }
    }

    /// The expression for the dev-mode root: a path when it can be named without a machine path.
    fn dev_root(&self, root: &Path) -> TokenStream {
        let manifest_dir = match self {
            Locator::ManifestDir(manifest_dir) => Some(manifest_dir),
            Locator::Module { manifest_dir, .. } => manifest_dir.as_ref(),
        };
        match manifest_dir.and_then(|dir| under_manifest_dir(dir, root)) {
            Some(root) => quote!(::bindery::__bindery_dev_root!(#root)),
            None => quote!(::core::option::Option::None),
        }
    }
}

/// `concat!(env!("CARGO_MANIFEST_DIR"), "/<relative>")` for any absolute path: files outside the
/// crate (a shared assets folder, the blob cache under `target/`) are reached through `..`, so
/// no path of the building machine appears in the expansion.
fn under_manifest_dir(manifest_dir: &Path, path: &Path) -> Option<TokenStream> {
    let relative = pathdiff::diff_paths(path, manifest_dir)?;
    let suffix = format!("/{}", slash_path(&relative));
    Some(quote!(
        ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix)
    ))
}

/// A path with `/` separators, as `include_bytes!` accepts on every host.
fn slash_path(path: &Path) -> String {
    let mut text = String::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => text.push_str(&prefix.as_os_str().to_string_lossy()),
            Component::RootDir => text.push('/'),
            other => {
                if !text.is_empty() && !text.ends_with('/') {
                    text.push('/');
                }
                text.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    text
}

/// The expression `::bindery::__private::catalog(…)` of type `bindery::Catalog`, usable as the
/// initialiser of a `static` or a `const`.
///
/// ```
/// use bindery_codegen::{Options, emit::{Locator, catalog}};
/// let root = std::path::absolute("../../assets/fixtures").unwrap();
/// let manifest = Options::new(&root).build().unwrap();
/// let tokens = catalog(&manifest, &Locator::ManifestDir(std::path::absolute("../..").unwrap()));
/// assert!(tokens.to_string().contains("include_bytes"));
/// ```
pub fn catalog(manifest: &Manifest, locator: &Locator) -> TokenStream {
    let mode = match manifest.mode {
        Mode::Static => quote!(Static),
        Mode::Gzip => quote!(Gzip),
        Mode::Copy => quote!(Copy),
    };
    let prefix = &manifest.prefix;
    let dev_root = locator.dev_root(&manifest.root);
    let files = manifest.entries.iter().map(|entry| {
        let path = &entry.path;
        let bytes = match &entry.stored {
            Stored::Raw => locator.file(&entry.source, false),
            Stored::Gzip { blob, .. } => locator.file(blob, true),
        };
        let len = Literal::u64_unsuffixed(entry.len);
        let etag = &entry.etag;
        let gzip_etag = match &entry.stored {
            Stored::Raw => quote!(::core::option::Option::None),
            Stored::Gzip { etag, .. } => quote!(::core::option::Option::Some(#etag)),
        };
        let mime = &entry.mime;
        let content_type = &entry.content_type;
        let modified = match entry.modified {
            None => quote!(::core::option::Option::None),
            Some(seconds) => {
                let seconds = Literal::u64_unsuffixed(seconds);
                quote!(::core::option::Option::Some(#seconds))
            }
        };
        quote! {
            ::bindery::__private::file(::bindery::__private::FileSpec {
                path: #path,
                bytes: ::core::include_bytes!(#bytes),
                len: #len,
                etag: #etag,
                gzip_etag: #gzip_etag,
                mime: #mime,
                content_type: #content_type,
                modified: #modified,
            })
        }
    });
    quote! {
        ::bindery::__private::catalog(
            ::bindery::Mode::#mode,
            #prefix,
            #dev_root,
            &[#(#files),*],
        )
    }
}
