//! One catalog entry as generated code: a compact reference into the pack, or a file described
//! on its own, its stored bytes and variants included with `include_bytes!` or the assembler.

use std::fmt::Write as _;
use std::path::Path;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::Locator;
use super::text::{is_assembler_safe, manifest_suffix, push_digest_literal, push_string_literal};
use crate::{Encoding, Entry, Manifest, Stored};

/// An entry's name as the runtime reads it: the path, then the ETag.
fn name(entry: &Entry) -> String {
    format!("{}{}", entry.path, entry.etag)
}

/// A packed entry: its name, where its bytes lie in the pack, and the shared description of its
/// media type (`info`, a `static` of the catalog). Written as text: in a proc macro every token
/// made one by one is a call into the compiler.
pub(super) fn packed(out: &mut String, runtime: &str, entry: &Entry, start: u64, info: &str) {
    out.push_str(runtime);
    out.push_str("::EmbeddedFile { __name: ");
    push_string_literal(out, &name(entry));
    let _ = write!(
        out,
        ", __start: {start}, __len: {}, __info: &{info}",
        entry.len
    );
    push_digests(out, entry);
    out.push_str(" }");
}

/// `, __sha256: Some(b"…"), __integrity: Some("sha384-…")` (or `None`s): the digests computed
/// at build time.
fn push_digests(out: &mut String, entry: &Entry) {
    const SOME: &str = "::core::option::Option::Some(";
    const NONE: &str = "::core::option::Option::None";
    out.push_str(", __sha256: ");
    match &entry.sha256 {
        Some(sha256) => {
            out.push_str(SOME);
            push_digest_literal(out, sha256);
            out.push(')');
        }
        None => out.push_str(NONE),
    }
    out.push_str(", __integrity: ");
    match &entry.integrity {
        Some(integrity) => {
            out.push_str(SOME);
            push_string_literal(out, integrity);
            out.push(')');
        }
        None => out.push_str(NONE),
    }
}

/// An entry described on its own: its blob, media type, lengths, ETags, variants and time.
pub(super) fn own(out: &mut String, manifest: &Manifest, entry: &Entry, locator: &Locator) {
    let runtime = crate::runtime(&manifest.crate_path);
    let private = crate::private_module(&manifest.crate_path);
    let own = Blob::of_entry(entry);
    let bytes = bytes(manifest, &own, locator);
    let variants = variants(manifest, entry, locator);
    let stored_len = Literal::u64_unsuffixed(entry.stored_len());
    let (len, gzip_etag) = match &entry.stored {
        Stored::Raw => (
            quote!(::core::option::Option::None),
            quote!(::core::option::Option::None),
        ),
        Stored::Gzip { etag, .. } => {
            let len = Literal::u64_unsuffixed(entry.len);
            (
                quote!(::core::option::Option::Some(#len)),
                quote!(::core::option::Option::Some(#etag)),
            )
        }
    };
    let name = name(entry);
    let mime = &entry.mime;
    let content_type = &entry.content_type;
    let modified = match entry.modified {
        None => quote!(::core::option::Option::None),
        Some(seconds) => {
            let seconds = Literal::u64_unsuffixed(seconds);
            quote!(::core::option::Option::Some(#seconds))
        }
    };
    // A byte string is one literal of type `&'static [u8; 32]`.
    let sha256 = match &entry.sha256 {
        Some(sha256) => {
            let sha256 = Literal::byte_string(sha256);
            quote!(::core::option::Option::Some(#sha256))
        }
        None => quote!(::core::option::Option::None),
    };
    let integrity = match &entry.integrity {
        Some(integrity) => quote!(::core::option::Option::Some(#integrity)),
        None => quote!(::core::option::Option::None),
    };
    let tokens = quote! {
        #runtime::EmbeddedFile {
            __name: #name,
            __start: 0,
            __len: #stored_len,
            __info: &#private::Info {
                data: #bytes,
                mime: #mime,
                content_type: #content_type,
                len: #len,
                gzip_etag: #gzip_etag,
                variants: #variants,
                modified: #modified,
            },
            __sha256: #sha256,
            __integrity: #integrity,
        }
    };
    let _ = write!(out, "{tokens}");
}

/// The expression for the bytes of a cached blob (a variant, a delta).
pub(super) fn cached_bytes(
    manifest: &Manifest,
    path: &Path,
    len: u64,
    locator: &Locator,
) -> TokenStream {
    let blob = Blob {
        path,
        is_cached: true,
        len,
        key: file_name(path),
    };
    bytes(manifest, &blob, locator)
}

/// One stored blob of an entry: its own bytes (raw or gzip) or a precompressed variant.
struct Blob<'a> {
    /// The file on disk that holds the bytes.
    path: &'a Path,
    /// Whether `path` is a cached blob (copied beside a generated module) or a source file.
    is_cached: bool,
    /// Its length.
    len: u64,
    /// Names its bytes: the same key for the same bytes, so that two catalogs of one crate that
    /// hold one large file share one assembler symbol.
    key: String,
}

impl<'a> Blob<'a> {
    fn of_entry(entry: &'a Entry) -> Blob<'a> {
        let path = entry.stored_path();
        let key = match entry.stored {
            Stored::Raw => format!("{}.raw", entry.hash),
            Stored::Gzip { .. } => file_name(path),
        };
        Blob {
            path,
            is_cached: matches!(entry.stored, Stored::Gzip { .. }),
            len: entry.stored_len(),
            key,
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The expression for a blob's bytes: the assembler path at or above the large threshold where
/// possible, else `include_bytes!` (for the macro through the catalog's local
/// `__bindery_bytes!`, which spells `concat!(env!("CARGO_MANIFEST_DIR"), …)` once).
fn bytes(manifest: &Manifest, blob: &Blob<'_>, locator: &Locator) -> TokenStream {
    let is_large = manifest
        .large_threshold
        .is_some_and(|threshold| blob.len >= threshold);
    if let Some(incbin) = is_large.then(|| incbin(manifest, blob, locator)).flatten() {
        return incbin;
    }
    if let Locator::ManifestDir(manifest_dir) = locator
        && let Some(suffix) = manifest_suffix(manifest_dir, blob.path)
    {
        return quote!(__bindery_bytes!(#suffix));
    }
    let path = locator.file(blob.path, blob.is_cached);
    quote!(::core::include_bytes!(#path))
}

/// `::bindery::__bindery_incbin!(symbol = …, path = …, len = …)` for a large blob, when the file can be
/// named for the assembler; `None` sends it through `include_bytes!`.
fn incbin(manifest: &Manifest, blob: &Blob<'_>, locator: &Locator) -> Option<TokenStream> {
    let manifest_dir = locator.manifest_dir()?;
    let manifest_text = manifest_dir.to_str()?;
    // For the macro, the manifest folder is this machine's and must be quotable too; a generated
    // module cannot know its users' folders (a bad one is an assembler error, never unsound).
    if matches!(locator, Locator::ManifestDir(_)) && !is_assembler_safe(manifest_text) {
        return None;
    }
    let path = match locator {
        Locator::ManifestDir(_) => blob.path.to_path_buf(),
        Locator::Module { .. } => locator.module_blob(blob.path, blob.is_cached),
    };
    let suffix = manifest_suffix(manifest_dir, &path)?;
    if !is_assembler_safe(&suffix) {
        return None;
    }
    // Named by the bytes (and, when the user's crate compiles, by CARGO_CRATE_NAME): the same
    // bytes give the same symbol in every catalog of a crate, defined once; different bytes, or
    // another crate, never share one. A content change changes the assembly text, so
    // incremental builds cannot reuse stale bytes.
    let mut hasher = crate::describe::Digester::new(None);
    hasher.update(blob.key.as_bytes());
    hasher.update(&blob.len.to_le_bytes());
    let tag = format!("_{}", &hasher.finish().hash[..24]);
    let len = Literal::u64_unsuffixed(blob.len);
    let runtime = crate::runtime(&manifest.crate_path);
    Some(quote! {
        #runtime::__bindery_incbin!(
            symbol = ::core::concat!("__bindery_", ::core::env!("CARGO_CRATE_NAME"), #tag),
            path = ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix),
            len = #len
        )
    })
}

/// `&[Variant, …]` for an entry's precompressed variants, as a `const` item of its own so the
/// slice is `'static` whatever its bytes expressions are.
fn variants(manifest: &Manifest, entry: &Entry, locator: &Locator) -> TokenStream {
    if entry.variants.is_empty() {
        return quote!(&[]);
    }
    let runtime = crate::runtime(&manifest.crate_path);
    let private = crate::private_module(&manifest.crate_path);
    let items = entry.variants.iter().map(|variant| {
        let encoding = match variant.encoding {
            Encoding::Br => quote!(Br),
            Encoding::Zstd => quote!(Zstd),
            Encoding::Gzip => quote!(Gzip),
        };
        let blob = Blob {
            path: &variant.blob,
            is_cached: true,
            len: variant.len,
            key: file_name(&variant.blob),
        };
        let bytes = bytes(manifest, &blob, locator);
        let etag = &variant.etag;
        quote! {
            #private::Encoded {
                encoding: #runtime::Encoding::#encoding,
                bytes: #bytes,
                etag: #etag,
            }
        }
    });
    quote! {{
        const VARIANTS: &[#private::Encoded] = &[#(#items),*];
        VARIANTS
    }}
}
