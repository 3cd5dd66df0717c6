//! Tokens from a [`Manifest`]: the one emitter behind both the macro and the generated modules.
//!
//! Asset bytes always enter through `include_bytes!` of a file on disk, never as byte-array
//! literals: rustc parses a literal byte by byte and needs gigabytes of memory for megabytes of
//! data, while `include_bytes!` hands it the file as one blob.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::{Encoding, Entry, Manifest, Mode, Rules, Stored};

/// How generated code reaches the files it includes.
#[derive(Debug, Clone)]
pub enum Locator {
    /// For the macro: every file is named as `concat!(env!("CARGO_MANIFEST_DIR"), "/…")` with a
    /// path relative to the crate's manifest folder (absolute here), so the expansion holds no
    /// machine-specific path.
    ManifestDir(PathBuf),
    /// For a generated module: every file by a path relative to the module's own folder. Gzip blobs
    /// are expected in `blob_dir`, under the same file name as in the cache. With `dev` and the
    /// crate's manifest folder known, the catalog reads the source folder in dev mode.
    Module {
        /// The folder of the generated `.rs` file (absolute).
        module_dir: PathBuf,
        /// Where the blobs are copied to (absolute).
        blob_dir: PathBuf,
        /// The manifest folder of the crate the module belongs to (absolute), if known.
        manifest_dir: Option<PathBuf>,
        /// Whether the module's catalog reads its folder from disk in dev mode (the generator's
        /// `--dev`, go-bindata's `-debug`); needs `manifest_dir`.
        dev: bool,
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

    fn manifest_dir(&self) -> Option<&Path> {
        match self {
            Locator::ManifestDir(manifest_dir) => Some(manifest_dir),
            Locator::Module { manifest_dir, .. } => manifest_dir.as_deref(),
        }
    }

    /// The manifest folder dev mode names the folder from: always for the macro, only when asked
    /// for (and known) for a generated module.
    fn dev_manifest_dir(&self) -> Option<&Path> {
        match self {
            Locator::ManifestDir(manifest_dir) => Some(manifest_dir),
            Locator::Module {
                manifest_dir,
                dev: true,
                ..
            } => manifest_dir.as_deref(),
            Locator::Module { dev: false, .. } => None,
        }
    }

    /// The expression for the catalog's dev source: `__bindery_dev!` with the folder (named from
    /// `CARGO_MANIFEST_DIR`, never by a machine path) and the build's rules. That macro expands
    /// to `None`, dropping the path, unless bindery's `dev` feature is on in a debug build.
    fn dev_source(&self, manifest: &Manifest) -> TokenStream {
        let Some(root) = self
            .dev_manifest_dir()
            .and_then(|dir| under_manifest_dir(dir, &manifest.root))
        else {
            return quote!(::core::option::Option::None);
        };
        let Rules {
            include,
            exclude,
            include_hidden,
            modified,
        } = &manifest.rules;
        quote!(::bindery::__bindery_dev!(
            #root,
            [#(#include),*],
            [#(#exclude),*],
            #include_hidden,
            #modified
        ))
    }
}

/// Appends `text` as a Rust string literal. Plain ASCII is copied as it is (the common case, and
/// fast even in the unoptimised builds proc macros get); anything else is escaped as `{:?}`
/// would.
fn push_string_literal(out: &mut String, text: &str) {
    out.push('"');
    for (index, byte) in text.bytes().enumerate() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(byte)),
            _ => {
                // The rest, from the first byte that is not plain ASCII, the standard way.
                let debug = format!("{:?}", &text[index..]);
                out.push_str(&debug[1..]);
                return;
            }
        }
    }
    out.push('"');
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

/// Whether the assembler can take this path inside `.incbin "…"` within a `global_asm!` template:
/// printable ASCII without quotes, backslashes or the template's braces. Anything else falls back
/// to `include_bytes!`.
fn is_assembler_safe(path: &str) -> bool {
    path.bytes()
        .all(|byte| (0x20..0x7f).contains(&byte) && !matches!(byte, b'"' | b'\\' | b'{' | b'}'))
}

/// One stored blob of an entry: its own bytes (raw or gzip) or a precompressed variant.
struct Blob<'a> {
    /// The file on disk that holds the bytes.
    path: &'a Path,
    /// Whether `path` is a cached blob (copied beside a generated module) or the source file.
    is_cached: bool,
    /// Its length.
    len: u64,
    /// Tells apart an entry's blobs in assembler symbol names.
    kind: &'static str,
}

/// `::bindery::__bindery_incbin!(symbol, path, len)` for a large blob, when the file can be
/// named for the assembler; `None` sends it through `include_bytes!`.
fn incbin(entry: &Entry, blob: &Blob<'_>, locator: &Locator, salt: &str) -> Option<TokenStream> {
    let manifest_dir = locator.manifest_dir()?;
    let manifest_text = manifest_dir.to_str()?;
    // For the macro, the manifest folder is this machine's and must be quotable too; a generated
    // module cannot know its users' folders (a bad one is an assembler error, never unsound).
    if matches!(locator, Locator::ManifestDir(_)) && !is_assembler_safe(manifest_text) {
        return None;
    }
    let relative = pathdiff::diff_paths(blob.path, manifest_dir)?;
    let suffix = format!("/{}", slash_path(&relative));
    if !is_assembler_safe(&suffix) {
        return None;
    }
    // Unique per catalog (salt), file, blob and content, and per crate (CARGO_CRATE_NAME, added
    // when the user's crate compiles): two catalogs or two crates never define the same symbol,
    // and a content change changes the assembly text, so incremental builds cannot reuse stale
    // bytes.
    let mut hasher = blake3::Hasher::new();
    for part in [salt, "\0", &entry.path, "\0", &entry.hash, "\0", blob.kind] {
        hasher.update(part.as_bytes());
    }
    let tag = format!("_{}", &hasher.finalize().to_hex()[..24]);
    let len = Literal::u64_unsuffixed(blob.len);
    Some(quote! {
        ::bindery::__bindery_incbin!(
            ::core::concat!("__bindery_", ::core::env!("CARGO_CRATE_NAME"), #tag),
            ::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix),
            #len
        )
    })
}

/// The expression for a blob's bytes: the assembler path at or above the large threshold where
/// possible, else `include_bytes!` (for the macro through the catalog's local
/// `__bindery_bytes!`, which spells `concat!(env!("CARGO_MANIFEST_DIR"), …)` once).
fn bytes(
    manifest: &Manifest,
    entry: &Entry,
    blob: &Blob<'_>,
    locator: &Locator,
    salt: &str,
) -> TokenStream {
    let is_large = manifest
        .large_threshold
        .is_some_and(|threshold| blob.len >= threshold);
    if let Some(incbin) = is_large
        .then(|| incbin(entry, blob, locator, salt))
        .flatten()
    {
        return incbin;
    }
    if let Locator::ManifestDir(manifest_dir) = locator
        && let Some(relative) = pathdiff::diff_paths(blob.path, manifest_dir)
    {
        let suffix = format!("/{}", slash_path(&relative));
        return quote!(__bindery_bytes!(#suffix));
    }
    let path = locator.file(blob.path, blob.is_cached);
    quote!(::core::include_bytes!(#path))
}

/// `&[Variant, …]` for an entry's precompressed variants, as a `const` item of its own so the
/// slice is `'static` whatever its bytes expressions are.
fn variants(manifest: &Manifest, entry: &Entry, locator: &Locator, salt: &str) -> TokenStream {
    if entry.variants.is_empty() {
        return quote!(&[]);
    }
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
            kind: variant.encoding.extension(),
        };
        let bytes = bytes(manifest, entry, &blob, locator, salt);
        let etag = &variant.etag;
        quote! {
            ::bindery::__private::Variant {
                encoding: ::bindery::Encoding::#encoding,
                bytes: #bytes,
                etag: #etag,
            }
        }
    });
    quote! {{
        const VARIANTS: &[::bindery::__private::Variant] = &[#(#items),*];
        VARIANTS
    }}
}

/// The catalog expression (see [`catalog`]) as Rust source text. The macro hands this to the
/// compiler in one piece: its lexer reads megabytes in milliseconds, where building a
/// 5,000-file table token by token through the proc-macro bridge took 60 ms.
///
/// ```
/// use bindery_codegen::{Options, emit::{Locator, catalog_text}};
/// let root = std::path::absolute("../../assets/fixtures").unwrap();
/// let manifest = Options::new(&root).pack(true).build().unwrap();
/// let text = catalog_text(&manifest, &Locator::ManifestDir(std::path::absolute("../..").unwrap()), "doc");
/// assert!(text.contains("__PACK"));
/// ```
pub fn catalog_text(manifest: &Manifest, locator: &Locator, salt: &str) -> String {
    let mode = match manifest.mode {
        Mode::Static => quote!(Static),
        Mode::Gzip => quote!(Gzip),
        Mode::Copy => quote!(Copy),
    };
    let prefix = &manifest.prefix;
    let dev_source = locator.dev_source(manifest);
    // The pack, for the macro: one `include_bytes!`, and a description per media type that its
    // files share. Unless a build script tracks the folder, each packed file is still named in a
    // function that is never called, so that cargo rebuilds the crate when one changes.
    let pack = match locator {
        Locator::ManifestDir(manifest_dir) => manifest.pack.as_ref().and_then(|pack| {
            let relative = pathdiff::diff_paths(&pack.blob, manifest_dir)?;
            Some((pack, format!("/{}", slash_path(&relative))))
        }),
        Locator::Module { .. } => None,
    };
    let offset = |index: usize| {
        pack.as_ref()
            .and_then(|(pack, _)| pack.offsets.get(index).copied().flatten())
    };
    let mut shared: Vec<(&str, &str)> = Vec::new();
    for (index, entry) in manifest.entries.iter().enumerate() {
        let pair = (entry.mime.as_str(), entry.content_type.as_str());
        if offset(index).is_some() && !shared.contains(&pair) {
            shared.push(pair);
        }
    }
    let info_ident = |index: usize| {
        proc_macro2::Ident::new(&format!("__INFO_{index}"), proc_macro2::Span::call_site())
    };
    let pack_items = pack.as_ref().map(|(pack, suffix)| {
        let infos = shared
            .iter()
            .enumerate()
            .map(|(index, (mime, content_type))| {
                let name = info_ident(index);
                quote! {
                    static #name: ::bindery::__private::Info =
                        ::bindery::__private::Info::plain(__PACK, #mime, #content_type);
                }
            });
        // Absolute paths: one builtin macro per file instead of three and a `macro_rules!`.
        // The function is never called, so neither the paths nor the bytes reach the binary.
        let tracked = || {
            let mut text = String::new();
            for (index, entry) in manifest.entries.iter().enumerate() {
                if offset(index).is_some() {
                    text.push_str("let _ = ::core::include_bytes!(");
                    push_string_literal(&mut text, &slash_path(&entry.source));
                    text.push_str(");");
                }
            }
            text
        };
        let head = quote! {
            const __PACK: &[u8] = __bindery_bytes!(#suffix);
            #(#infos)*
        };
        if pack.name_each_file {
            format!(
                "{head} #[allow(dead_code)] fn __bindery_track() {{ {} }}",
                tracked()
            )
        } else {
            head.to_string()
        }
    });
    let files = manifest.entries.iter().enumerate().map(|(index, entry)| {
        let name = format!("{}{}", entry.path, entry.etag);
        if let Some(start) = offset(index) {
            let pair = (entry.mime.as_str(), entry.content_type.as_str());
            let info = info_ident(
                shared
                    .iter()
                    .position(|known| *known == pair)
                    .unwrap_or_default(),
            );
            // Written as text and lexed once with the rest: in a proc macro every token made
            // one by one is a call into the compiler (measured: 60 ms for 5,000 files).
            let mut text = String::with_capacity(name.len() + 96);
            text.push_str("::bindery::EmbeddedFile { __name: ");
            push_string_literal(&mut text, &name);
            let _ = write!(
                text,
                ", __start: {start}, __len: {}, __info: &{info} }}",
                entry.len
            );
            return text;
        }
        let own = Blob {
            path: entry.stored_path(),
            is_cached: matches!(entry.stored, Stored::Gzip { .. }),
            len: entry.stored_len(),
            kind: match entry.stored {
                Stored::Raw => "raw",
                Stored::Gzip { .. } => "stored-gz",
            },
        };
        let bytes = bytes(manifest, entry, &own, locator, salt);
        let variants = variants(manifest, entry, locator, salt);
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
            ::bindery::EmbeddedFile {
                __name: #name,
                __start: 0,
                __len: #stored_len,
                __info: &::bindery::__private::Info {
                    data: #bytes,
                    mime: #mime,
                    content_type: #content_type,
                    len: #len,
                    gzip_etag: #gzip_etag,
                    variants: #variants,
                    modified: #modified,
                },
            }
        }
        .to_string()
    });
    // The table is a `const` item of its own: its outermost borrow is 'static by the rules for
    // constant initialisers, whatever its elements hold (a block reading an extern static is not
    // promotable, so `&[...]` passed straight to a call would be a temporary).
    let files: String = files.collect::<Vec<String>>().join(", ");
    // The macro sorted the paths itself; a generated module may have been edited by hand, so its
    // order is checked while compiling.
    let (bytes_macro, build) = match locator {
        Locator::ManifestDir(_) => (
            quote! {
                #[allow(unused_macros)]
            macro_rules! __bindery_bytes {
                    ($path:literal) => {
                        ::core::include_bytes!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), $path))
                    };
                }
            },
            quote!(::bindery::__private::sorted_catalog),
        ),
        Locator::Module { .. } => (quote!(), quote!(::bindery::__private::catalog)),
    };
    let pack_items = pack_items.unwrap_or_default();
    let tail = quote! {
        const DEV: ::core::option::Option<&::bindery::__private::DevSource> = #dev_source;
        #build(::bindery::Mode::#mode, #prefix, DEV, FILES)
    };
    format!(
        "{{ {bytes_macro} {pack_items} const FILES: &[::bindery::EmbeddedFile] = &[{files}]; {tail} }}"
    )
}

/// [`catalog_text`] as tokens: the expression `::bindery::__private::catalog(…)` of type
/// `bindery::Catalog`, usable as the initialiser of a `static` or a `const`. `salt` tells apart
/// catalogs in one crate (it only feeds the names of assembler symbols of large files).
///
/// ```
/// use bindery_codegen::{Options, emit::{Locator, catalog}};
/// let root = std::path::absolute("../../assets/fixtures").unwrap();
/// let manifest = Options::new(&root).build().unwrap();
/// let tokens = catalog(&manifest, &Locator::ManifestDir(std::path::absolute("../..").unwrap()), "doc");
/// assert!(tokens.to_string().contains("include_bytes"));
/// ```
pub fn catalog(manifest: &Manifest, locator: &Locator, salt: &str) -> TokenStream {
    catalog_text(manifest, locator, salt)
        .parse()
        .unwrap_or_else(|_| {
            quote!(::core::compile_error!(
                "bindery: internal error: the generated catalog does not parse"
            ))
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn string_literals_are_written_as_debug_writes_them() {
        for text in [
            "plain/path.txt\"0123456789abcdef0123456789abcdef\"",
            "",
            "quote\"and\\backslash",
            "tab\tnewline\ncontrol\u{1}del\u{7f}",
            "unicodé-日本.txt",
            "a\u{301}combining",
            "emoji 😀 then \"quotes\"",
        ] {
            let mut out = String::new();
            super::push_string_literal(&mut out, text);
            assert_eq!(out, format!("{text:?}"), "{text}");
        }
    }
}
