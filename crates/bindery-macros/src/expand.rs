//! Building the manifest and expanding to a `Catalog` expression, or to one `compile_error!`.

use std::path::{Path, PathBuf};

use bindery_codegen::emit::{self, Locator};
use bindery_codegen::{Error, Progress, is_tracked};
use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::input::Input;
use crate::validate::{Settings, validate};

/// The whole expansion; errors become `compile_error!` next to an empty catalog, so a mistake
/// gives one error and not a cascade of type errors.
#[cfg(test)]
pub(crate) fn expand(tokens: TokenStream) -> TokenStream {
    match expand_text(tokens) {
        Ok(text) => text.parse().unwrap_or_else(|error| {
            let message = format!("bindery: internal error: the expansion does not parse: {error}");
            quote!(::core::compile_error!(#message))
        }),
        Err(tokens) => tokens,
    }
}

/// The expansion as source text for the compiler to lex in one piece (see
/// `bindery_codegen::emit::catalog_text`), or, on an error, its tokens: `compile_error!` at the
/// offending argument next to an empty catalog.
pub(crate) fn expand_text(tokens: TokenStream) -> Result<String, TokenStream> {
    expand_text_with(tokens, &mut |_| {})
}

/// [`expand_text`], reporting each file as it is stored (tests use it to change a file during
/// the expansion).
pub(crate) fn expand_text_with(
    tokens: TokenStream,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<String, TokenStream> {
    let input = match syn::parse2::<Input>(tokens) {
        Ok(input) => input,
        Err(error) => return Err(fallback(&error, &quote!(::bindery))),
    };
    let runtime = input.runtime();
    try_expand(input, progress).map_err(|error| fallback(&error, &runtime))
}

/// One `compile_error!` next to an empty catalog, so that a mistake gives one error and not a
/// cascade of type errors.
fn fallback(error: &syn::Error, runtime: &TokenStream) -> TokenStream {
    let error = error.to_compile_error();
    quote! {{
        #error
        #runtime::Catalog::empty(#runtime::Mode::Static)
    }}
}

fn try_expand(input: Input, progress: &mut dyn FnMut(Progress<'_>)) -> syn::Result<String> {
    let manifest_dir = manifest_dir()?;
    let settings = validate(input, &manifest_dir)?;
    // Without a build script tracking the folder, the expansion names each source it holds
    // through a copy (the pack, snapshots read by `include_bytes!` or the assembler), the only
    // way cargo learns of files on stable Rust; with one, cargo watches the folder itself.
    let tracked = std::iter::once(&settings.options)
        .chain(settings.options.folders())
        .all(|folder| is_tracked(folder.root()));
    // Small raw files go into one blob: one `include_bytes!` for rustc instead of thousands.
    // Every other raw file is included through a private copy made from the bytes that were
    // hashed, so the compiler reads exactly what the ETag names.
    let mut manifest = settings
        .options
        .clone()
        .pack(true)
        .snapshots(true)
        .build_with_progress(progress)
        .map_err(|error| spanned(&settings, &manifest_dir, &error))?;
    // A build script tracking the folder makes cargo rebuild on any change in it (added files
    // too); without one, each source included through a copy must be named to rustc for cargo
    // to see it.
    manifest.name_sources = !tracked;
    // Built in proc-macro2's own token types (pure Rust) and written out as text: made token by
    // token through the compiler's bridge, a large table costs the macro most of its run.
    let catalog = {
        let _fallback = Fallback::force();
        emit::catalog_text(&manifest, &Locator::ManifestDir(manifest_dir))
    };
    // A const item gives the nested slices a 'static lifetime in any expression position, so the
    // macro works in a `static`, a `const` or a `let` alike.
    let runtime = manifest.crate_path.replace(' ', "");
    let tracking = tracking(&settings.variables, &manifest);
    Ok(format!(
        "{{ {tracking}const __BINDERY_CATALOG: {runtime}::Catalog = {catalog}; __BINDERY_CATALOG }}"
    ))
}

/// Items that tell cargo what else the expansion depends on, none of which reaches the binary:
/// each variable the folder argument named (`env!` records it, so a new `OUT_DIR` rebuilds),
/// `SOURCE_DATE_EPOCH` for a catalog dated by it or by git (set or unset later, it rebuilds),
/// and git's `HEAD` and ref files when the date is a commit's (a new commit rebuilds).
fn tracking(variables: &[String], manifest: &bindery_codegen::Manifest) -> String {
    let mut text = String::new();
    for variable in variables {
        text.push_str("const _: &str = ::core::env!(");
        emit::push_literal(&mut text, variable);
        text.push_str("); ");
    }
    if let Some(date) = &manifest.source_date {
        text.push_str(
            "const _: ::core::option::Option<&str> = ::core::option_env!(\"SOURCE_DATE_EPOCH\"); ",
        );
        if let bindery_codegen::DateOrigin::Commit { tracked, .. } = &date.origin {
            for file in tracked {
                text.push_str("const _: &[u8] = ::core::include_bytes!(");
                emit::push_literal(&mut text, &file.to_string_lossy().replace('\\', "/"));
                text.push_str("); ");
            }
        }
    }
    text
}

/// proc-macro2's fallback tokens while alive; the compiler's again when dropped, even on a panic.
struct Fallback;

impl Fallback {
    fn force() -> Fallback {
        proc_macro2::fallback::force();
        Fallback
    }
}

impl Drop for Fallback {
    fn drop(&mut self) {
        proc_macro2::fallback::unforce();
    }
}

fn manifest_dir() -> syn::Result<PathBuf> {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "CARGO_MANIFEST_DIR is not set: bindery::embed! must be built by cargo",
            )
        })
}

/// Points a build error at the folder argument (validation problems were spanned before), with
/// paths shown relative to the crate.
fn spanned(settings: &Settings, manifest_dir: &Path, error: &Error) -> syn::Error {
    // An error of one option points at it; the rest at the folder.
    let option = match error {
        Error::FileTooLarge { .. } => settings.spans.key("max_file_size"),
        Error::TotalTooLarge { .. } => settings.spans.key("max_total_size"),
        Error::FingerprintCollision { .. } => settings.spans.key("fingerprint"),
        Error::BundleManifest { .. } | Error::BundleMissingFile { .. } => {
            settings.spans.key("manifest")
        }
        Error::Release { .. } => settings.spans.key("releases"),
        Error::MediaType { .. } => settings.spans.key("types"),
        Error::UnknownMediaTypes { .. } => settings.spans.key("unknown_types"),
        Error::NoSourceDate { .. } | Error::SourceDateEpoch { .. } => {
            settings.spans.key("modified")
        }
        // The later of the two folders (the first is named in the message).
        Error::FolderOverlap { folders, .. } => settings
            .further
            .iter()
            .zip(settings.options.folders())
            .find(|(_, folder)| folder.root() == folders[1])
            .map(|(further, _)| further.folder.span()),
        _ => None,
    };
    syn::Error::new(
        option.unwrap_or_else(|| settings.folder.span()),
        crate::validate::message(error, &settings.folder.value(), manifest_dir),
    )
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenTree;
    use quote::quote;

    use super::expand;

    fn literals(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for token in tokens {
            match token {
                TokenTree::Literal(literal) => out.push(literal.to_string()),
                TokenTree::Group(group) => literals(group.stream(), out),
                _ => {}
            }
        }
    }

    #[test]
    fn expansion_includes_files_and_holds_no_byte_array() {
        for mode in ["static", "gzip", "copy"] {
            let tokens = expand(quote!("../../assets/fixtures", mode = #mode, integrity = true));
            let text = tokens.to_string();
            // Built without the features that compute them (`cargo test -p bindery-macros`),
            // gzip and integrity are refused, naming the feature; with them (the workspace's
            // tests turn them on), expanded.
            if !cfg!(all(feature = "gzip", feature = "integrity")) {
                assert!(text.contains("compile_error"), "{text}");
                assert!(text.contains("feature of bindery"), "{text}");
                continue;
            }
            assert!(!text.contains("compile_error"), "{text}");
            assert!(text.contains("include_bytes"), "{mode}");
            let mut found = Vec::new();
            literals(tokens, &mut found);
            // Byte strings are the files' SHA-256 digests only (`integrity = true`): one of 32
            // bytes per file.
            let byte_strings: Vec<usize> = found
                .iter()
                .filter(|literal| literal.starts_with('b'))
                .map(|literal| {
                    syn::parse_str::<syn::LitByteStr>(literal)
                        .map_or(usize::MAX, |digest| digest.value().len())
                })
                .collect();
            assert_eq!(byte_strings, [32; 20], "{mode}");
            let numbers = found
                .iter()
                .filter(|literal| literal.chars().all(|c| c.is_ascii_digit()))
                .count();
            // A start and a length per file (20 files) and nothing else numeric: no bytes
            // spelled out, which would be thousands.
            assert!(numbers <= 2 * 20 + 4, "{mode}: {numbers} integer literals");
        }
    }

    #[test]
    fn expansion_is_deterministic() {
        let first = expand(quote!("../../assets/fixtures", mode = "gzip")).to_string();
        let second = expand(quote!("../../assets/fixtures", mode = "gzip")).to_string();
        assert_eq!(first, second);
    }

    #[test]
    fn an_unreadable_file_gives_one_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("fine.txt"), b"ok").expect("write");
        std::os::unix::fs::symlink("nowhere", dir.path().join("broken.txt")).expect("symlink");
        let folder = dir.path().to_str().expect("UTF-8 temp path");
        let text = expand(quote!(#folder)).to_string();
        assert_eq!(text.matches("compile_error").count(), 1, "{text}");
        assert!(text.contains("broken.txt"), "{text}");
        assert!(
            text.contains("Catalog :: empty"),
            "falls back to an empty catalog: {text}"
        );
    }

    #[test]
    fn a_file_rewritten_between_the_scan_and_the_emit_is_a_compile_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["a.txt", "b.txt", "large.bin"] {
            std::fs::write(dir.path().join(name), b"before").expect("write");
        }
        std::fs::write(dir.path().join("large.bin"), vec![1u8; 2 << 20]).expect("write");
        let folder = dir.path().to_str().expect("UTF-8 temp path");
        for rewritten in ["a.txt", "large.bin"] {
            let path = dir.path().join(rewritten);
            // A front-end watcher rewrites the file once the macro has read it.
            let expanded = super::expand_text_with(quote!(#folder), &mut |progress| {
                if progress.path == rewritten {
                    std::fs::write(&path, b"after, and longer").expect("rewrite");
                }
            });
            let text = expanded.expect_err("a compile error").to_string();
            assert_eq!(text.matches("compile_error").count(), 1, "{text}");
            assert!(
                text.contains(&format!(
                    "{rewritten}` changed during the build; build again"
                )),
                "{text}"
            );
        }
    }

    #[test]
    fn a_symlink_loop_gives_one_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::os::unix::fs::symlink("..", dir.path().join("sub/loop")).expect("symlink");
        let folder = dir.path().to_str().expect("UTF-8 temp path");
        let text = expand(quote!(#folder)).to_string();
        assert_eq!(text.matches("compile_error").count(), 1, "{text}");
        assert!(text.contains("symlink loop"), "{text}");
    }
}
