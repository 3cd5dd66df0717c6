//! Building the manifest and expanding to a `Catalog` expression, or to one `compile_error!`.

use std::path::{Path, PathBuf};

use bindery_codegen::Error;
use bindery_codegen::emit::{self, Locator};
use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::input::Input;
use crate::validate::{Settings, validate};

/// The whole expansion; errors become `compile_error!` next to an empty catalog, so a mistake
/// gives one error and not a cascade of type errors.
pub(crate) fn expand(tokens: TokenStream) -> TokenStream {
    match syn::parse2::<Input>(tokens).and_then(try_expand) {
        Ok(tokens) => tokens,
        Err(error) => {
            let error = error.to_compile_error();
            quote! {{
                #error
                ::bindery::Catalog::empty(::bindery::Mode::Static)
            }}
        }
    }
}

fn try_expand(input: Input) -> syn::Result<TokenStream> {
    let manifest_dir = manifest_dir()?;
    let settings = validate(input, &manifest_dir)?;
    let manifest = settings
        .options
        .build()
        .map_err(|error| spanned(&settings, &manifest_dir, &error))?;
    let catalog = emit::catalog(&manifest, &Locator::ManifestDir(manifest_dir));
    // A const item gives the nested slices a 'static lifetime in any expression position, so the
    // macro works in a `static`, a `const` or a `let` alike.
    Ok(quote! {{
        const __BINDERY_CATALOG: ::bindery::Catalog = #catalog;
        __BINDERY_CATALOG
    }})
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

/// Points a codegen error at the argument it is about, with paths shown relative to the crate.
fn spanned(settings: &Settings, manifest_dir: &Path, error: &Error) -> syn::Error {
    let span = match error {
        Error::Glob { glob, .. } => settings
            .globs
            .iter()
            .find(|literal| literal.value() == *glob)
            .map(|literal| literal.span()),
        Error::Prefix { .. } => settings.prefix.as_ref().map(|literal| literal.span()),
        _ => None,
    }
    .unwrap_or_else(|| settings.folder.span());
    let message = match error {
        Error::MissingFolder { .. } => format!(
            "folder `{}` does not exist (paths are relative to the crate's Cargo.toml; \
             add `allow_missing = true` if it is built later)",
            settings.folder.value()
        ),
        other => {
            let base = format!("{}/", manifest_dir.display());
            other.to_string().replace(&base, "")
        }
    };
    syn::Error::new(span, message)
}
