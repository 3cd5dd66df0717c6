//! The `embed!` proc-macro of bindery. Use it as `bindery::embed!`; the reference with examples
//! is on the re-export in the `bindery` crate.
#![forbid(unsafe_code)]

mod expand;
mod input;
mod validate;

/// Embeds a folder as a `bindery::Catalog`. See `bindery::embed!` for the options and examples.
#[proc_macro]
pub fn embed(tokens: proc_macro::TokenStream) -> proc_macro::TokenStream {
    match expand::expand_text(tokens.into()) {
        // The compiler lexes the whole expansion at once.
        Ok(text) => text.parse().unwrap_or_else(|error: proc_macro::LexError| {
            let message = format!("bindery: internal error: the expansion does not parse: {error}");
            quote::quote!(::core::compile_error!(#message)).into()
        }),
        Err(tokens) => tokens.into(),
    }
}

// A proc-macro crate exports only macros, so the README's examples hang on a private item.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
#[allow(dead_code)]
struct ReadmeDoctests;
