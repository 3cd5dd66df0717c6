//! Tokens from a [`Manifest`]: the one emitter behind both the macro and the generated modules.
//!
//! Asset bytes always enter through `include_bytes!` of a file on disk (or the assembler's
//! `.incbin` of one), never as byte-array literals: rustc parses a literal byte by byte and
//! needs gigabytes of memory for megabytes of data, while `include_bytes!` hands it the file as
//! one blob. The expression is built in three parts: each entry (`entry.rs`), the catalog around
//! them (here), and, for the generator, the module around the catalog (`render.rs`).

mod bundle;
mod entry;
mod text;

pub use text::push_string_literal as push_literal;

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use crate::{Manifest, Mode};
use text::{manifest_suffix, push_string_literal, slash_path, under_manifest_dir};

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
            Locator::Module { module_dir, .. } => {
                let target = self.module_blob(path, is_blob);
                let relative = pathdiff::diff_paths(&target, module_dir).unwrap_or(target);
                let relative = slash_path(&relative);
                quote!(#relative)
            }
        }
    }

    /// Where a generated module finds a file: a cached blob in its blob folder (under the same
    /// name), anything else where it is.
    fn module_blob(&self, path: &Path, is_blob: bool) -> PathBuf {
        match self {
            Locator::Module { blob_dir, .. } if is_blob => {
                blob_dir.join(path.file_name().unwrap_or_default())
            }
            _ => path.to_path_buf(),
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

    /// The expression for the catalog's dev sources: `__bindery_dev!` with each folder (named
    /// from `CARGO_MANIFEST_DIR`, never by a machine path), its prefix and the build's rules as
    /// one text. That macro expands to an empty slice, dropping them, unless bindery's `dev`
    /// feature is on in a debug build; so does a catalog with a folder outside the crate.
    fn dev_source(&self, manifest: &Manifest) -> TokenStream {
        let folders = std::iter::once((&manifest.root, &manifest.prefix, &manifest.rules)).chain(
            manifest
                .more_folders
                .iter()
                .map(|folder| (&folder.root, &folder.prefix, &folder.rules)),
        );
        let mut sources = Vec::new();
        for (root, prefix, rules) in folders {
            let Some(root) = self
                .dev_manifest_dir()
                .and_then(|dir| under_manifest_dir(dir, root))
            else {
                return quote!(&[]);
            };
            let rules = rules.to_text();
            sources.push(quote!({ root = #root, prefix = #prefix, rules = #rules }));
        }
        let runtime = crate::runtime(&manifest.crate_path);
        quote!(#runtime::__bindery_dev!(#(#sources),*))
    }
}

/// `Some(n)` or `None` as tokens.
fn option_u64(value: Option<u64>) -> TokenStream {
    match value {
        Some(value) => {
            let value = proc_macro2::Literal::u64_unsuffixed(value);
            quote!(::core::option::Option::Some(#value))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// `const URLS: &[&str] = &[…]; const BY_URL: &[u32] = &[…];`: each file's URL path in file
/// order (its fingerprinted name; a file the bundler hashed keeps its own), and the indices of
/// the fingerprinted ones in the order of those names (lookups by URL are a binary search).
/// Both empty without fingerprints.
fn url_tables(manifest: &Manifest) -> String {
    if !manifest.fingerprint {
        return " const URLS: &[&str] = &[]; const BY_URL: &[u32] = &[];".to_owned();
    }
    let urls: Vec<&str> = manifest
        .entries
        .iter()
        .map(|entry| entry.fingerprinted.as_deref().unwrap_or(&entry.path))
        .collect();
    let mut text = String::from(" const URLS: &[&str] = &[");
    push_list(&mut text, &urls);
    let mut order: Vec<usize> = (0..urls.len())
        .filter(|&index| manifest.entries[index].fingerprinted.is_some())
        .collect();
    order.sort_by_key(|&index| urls[index]);
    text.push_str("]; const BY_URL: &[u32] = &[");
    let order: Vec<String> = order.iter().map(usize::to_string).collect();
    text.push_str(&order.join(", "));
    text.push_str("];");
    text
}

/// String literals separated by commas.
pub(super) fn push_list<S: AsRef<str>>(text: &mut String, items: &[S]) {
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        push_string_literal(text, item.as_ref());
    }
}

/// `const SCRIPTS: &[ScriptHashes] = &[…];`: the inline scripts' CSP hashes of each HTML file
/// that has any (`script_hashes = true`), in path order.
fn script_table(manifest: &Manifest, private: &str) -> String {
    let mut text = format!(" const SCRIPTS: &[{private}::ScriptHashes] = &[");
    let mut first = true;
    for entry in manifest
        .entries
        .iter()
        .filter(|entry| !entry.script_hashes.is_empty())
    {
        if !first {
            text.push_str(", ");
        }
        first = false;
        text.push_str(&format!("{private}::ScriptHashes {{ path: "));
        push_string_literal(&mut text, &entry.path);
        text.push_str(", hashes: &[");
        push_list(&mut text, &entry.script_hashes);
        text.push_str("] }");
    }
    text.push_str("];");
    text
}

/// The macro's pack: the blob's path as the catalog names it, and each entry's offset in it.
struct PackLayout<'a> {
    pack: &'a crate::pack::Pack,
    suffix: String,
    /// The media types of the packed files, each described once by a shared `static`.
    shared: Vec<(&'a str, &'a str)>,
}

impl<'a> PackLayout<'a> {
    /// The layout for the macro; a generated module includes each file and has none.
    fn new(manifest: &'a Manifest, locator: &Locator) -> Option<PackLayout<'a>> {
        let Locator::ManifestDir(manifest_dir) = locator else {
            return None;
        };
        let pack = manifest.pack.as_ref()?;
        let suffix = manifest_suffix(manifest_dir, &pack.blob)?;
        let mut shared: Vec<(&str, &str)> = Vec::new();
        for (index, entry) in manifest.entries.iter().enumerate() {
            let pair = (entry.mime.as_str(), entry.content_type.as_str());
            if pack.offsets[index].is_some() && !shared.contains(&pair) {
                shared.push(pair);
            }
        }
        Some(PackLayout {
            pack,
            suffix,
            shared,
        })
    }

    fn offset(&self, index: usize) -> Option<u64> {
        self.pack.offsets.get(index).copied().flatten()
    }

    /// The `static` describing packed files of this media type.
    fn info(&self, mime: &str, content_type: &str) -> String {
        let index = self
            .shared
            .iter()
            .position(|known| *known == (mime, content_type))
            .unwrap_or_default();
        format!("__INFO_{index}")
    }

    /// One `include_bytes!` of the pack, and a description per media type that its files share
    /// (with the catalog's one date, if it has one).
    fn items(&self, crate_path: &str, date: Option<u64>) -> String {
        let date = option_u64(date);
        let private = crate::private_module(crate_path);
        let suffix = &self.suffix;
        let infos = self
            .shared
            .iter()
            .enumerate()
            .map(|(index, (mime, content_type))| {
                let name = proc_macro2::Ident::new(
                    &format!("__INFO_{index}"),
                    proc_macro2::Span::call_site(),
                );
                quote! {
                    static #name: #private::Info =
                        #private::Info::dated(__PACK, #mime, #content_type, #date);
                }
            });
        // No compile-time check of the pack's length: the const validator would read the whole
        // pack for it (BENCHMARKS.md, "Build cost"). The cache's seal vouches for the pack, and
        // the server answers an entry whose bytes do not match its length with a 500.
        quote! {
            const __PACK: &[u8] = __bindery_bytes!(#suffix);
            #(#infos)*
        }
        .to_string()
    }
}

/// A function never called that names each source the catalog holds through a copy (the pack,
/// snapshots), so that cargo rebuilds the crate when one changes; without a build script
/// tracking the folder, only `include_bytes!` tells cargo which files a crate depends on. Absolute
/// paths: one builtin macro per file. Neither the paths nor the bytes reach the binary.
///
/// The kept releases' records and their index are named even when a build script tracks the
/// folder (`name_sources` false): that script watches the folder, not the releases.
fn source_tracking(manifest: &Manifest) -> String {
    let mut text = String::from("#[allow(dead_code)] fn __bindery_track() { ");
    let empty = text.len();
    let sources = if manifest.name_sources {
        manifest.entries.as_slice()
    } else {
        &[]
    };
    for (index, entry) in sources.iter().enumerate() {
        let is_packed = manifest
            .pack
            .as_ref()
            .is_some_and(|pack| pack.offsets[index].is_some());
        if is_packed || entry.snapshot.is_some() {
            text.push_str("let _ = ::core::include_bytes!(");
            push_string_literal(&mut text, &slash_path(&entry.source));
            text.push_str(");");
        }
    }
    if let Some(bundle) = manifest.bundle.as_ref().filter(|_| manifest.name_sources) {
        // Not embedded (hidden), but what `Catalog::entry` says comes from it.
        text.push_str("let _ = ::core::include_bytes!(");
        push_string_literal(&mut text, &slash_path(&bundle.manifest));
        text.push_str(");");
    }
    for record in &manifest.release_records {
        // A release saved or removed changes what the catalog serves.
        text.push_str("let _ = ::core::include_bytes!(");
        push_string_literal(&mut text, &slash_path(record));
        text.push_str(");");
    }
    if text.len() == empty {
        return String::new();
    }
    text.push_str(" }");
    text
}

/// The catalog expression (see [`catalog`]) as Rust source text. The macro hands this to the
/// compiler in one piece: its lexer reads a large table far faster than the proc-macro bridge
/// takes it token by token (BENCHMARKS.md, "Build cost").
///
/// ```
/// use bindery_codegen::{Options, emit::{Locator, catalog_text}};
/// let root = std::path::absolute("../../assets/fixtures").unwrap();
/// let manifest = Options::new(&root).pack(true).build().unwrap();
/// let text = catalog_text(&manifest, &Locator::ManifestDir(std::path::absolute("../..").unwrap()));
/// assert!(text.contains("__PACK"));
/// ```
pub fn catalog_text(manifest: &Manifest, locator: &Locator) -> String {
    let runtime = crate::runtime(&manifest.crate_path);
    let runtime_text = runtime.to_string().replace(' ', "");
    let private = crate::private_module(&manifest.crate_path);
    let is_macro = matches!(locator, Locator::ManifestDir(_));
    let pack = PackLayout::new(manifest, locator);
    let mut text = String::from("{ ");
    text.push_str(&requirements(manifest, &runtime_text));
    if is_macro {
        text.push_str(
            "#[allow(unused_macros)] macro_rules! __bindery_bytes { ($path:literal) => { \
             ::core::include_bytes!(::core::concat!(::core::env!(\"CARGO_MANIFEST_DIR\"), $path)) }; } ",
        );
    }
    if let Some(pack) = &pack {
        text.push_str(&pack.items(&manifest.crate_path, manifest.rules.date));
    }
    if is_macro {
        text.push_str(&source_tracking(manifest));
    }
    // The table is a `const` item of its own: its outermost borrow is 'static by the rules for
    // constant initialisers, whatever its elements hold (a block reading an extern static is not
    // promotable, so `&[...]` passed straight to a call would be a temporary).
    text.push_str(&format!(
        " const FILES: &[{runtime_text}::EmbeddedFile] = &["
    ));
    for (index, entry) in manifest.entries.iter().enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        match pack.as_ref().and_then(|pack| pack.offset(index)) {
            Some(start) => {
                let info = pack
                    .as_ref()
                    .map(|pack| pack.info(&entry.mime, &entry.content_type))
                    .unwrap_or_default();
                entry::packed(&mut text, &runtime_text, entry, start, &info);
            }
            None => entry::own(&mut text, manifest, entry, locator),
        }
    }
    let mode = mode_name(manifest.mode);
    let prefix = manifest.catalog_prefix();
    let dev_source = locator.dev_source(manifest);
    // The macro sorted the paths itself; a generated module may have been edited by hand, so its
    // order is checked while compiling.
    let build = if is_macro {
        quote!(#private::sorted_catalog)
    } else {
        quote!(#private::catalog)
    };
    let catalog =
        quote!(#build(#runtime::Mode::#mode, #prefix, DEV, FILES, URLS, BY_URL, BUNDLE, SCRIPTS));
    let catalog = noting_missing(manifest, catalog, &private);
    let tail = quote! {
        const DEV: &[#private::DevSource] = #dev_source;
        #catalog
    };
    text.push_str("];");
    text.push_str(&url_tables(manifest));
    let private_text = private.to_string().replace(' ', "");
    text.push_str(&bundle::table(manifest, &private_text, locator));
    text.push_str(&script_table(manifest, &private_text));
    text.push_str(&format!(" {tail} }}"));
    text
}

/// The `Mode` variant's name.
fn mode_name(mode: Mode) -> TokenStream {
    match mode {
        Mode::Static => quote!(Static),
        Mode::Gzip => quote!(Gzip),
        Mode::Copy => quote!(Copy),
    }
}

/// `catalog`, for a folder missing under `allow_missing`, with what its error says: debug
/// builds serve it for every miss, release builds fail with it.
fn noting_missing(manifest: &Manifest, catalog: TokenStream, private: &TokenStream) -> TokenStream {
    if manifest.missing.is_empty() {
        return catalog;
    }
    let note = manifest.missing.join("\n");
    let refusal =
        format!("bindery: {note} (`allow_missing` gives an empty catalog in debug builds only)");
    quote! {
        #[cfg(not(debug_assertions))]
        ::core::compile_error!(#refusal);
        #private::missing(#catalog, #note)
    }
}

/// What the catalog needs of the runtime's features, asked of it (`__bindery_requires!`): a
/// compile error naming the feature when it is off. A `gzip` catalog is decompressed on read;
/// one with a bundler's manifest has an import map whose CSP hash the runtime makes.
fn requirements(manifest: &Manifest, runtime_text: &str) -> String {
    let needs = [
        (manifest.mode == Mode::Gzip, "gzip"),
        (manifest.bundle.is_some(), "vite"),
    ];
    needs
        .into_iter()
        .filter(|(is_needed, _)| *is_needed)
        .map(|(_, feature)| format!("{runtime_text}::__bindery_requires!({feature}); "))
        .collect()
}

/// [`catalog_text`] as tokens: the expression `::bindery::__private_v{CONTRACT}::catalog(…)` of type
/// `bindery::Catalog`, usable as the initialiser of a `static` or a `const`.
///
/// ```
/// use bindery_codegen::{Options, emit::{Locator, catalog}};
/// let root = std::path::absolute("../../assets/fixtures").unwrap();
/// let manifest = Options::new(&root).build().unwrap();
/// let tokens = catalog(&manifest, &Locator::ManifestDir(std::path::absolute("../..").unwrap()));
/// assert!(tokens.to_string().contains("include_bytes"));
/// ```
pub fn catalog(manifest: &Manifest, locator: &Locator) -> TokenStream {
    catalog_text(manifest, locator).parse().unwrap_or_else(|_| {
        quote!(::core::compile_error!(
            "bindery: internal error: the generated catalog does not parse"
        ))
    })
}
