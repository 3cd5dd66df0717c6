//! The `embed!` proc-macro of bindery. Use it as `bindery::embed!`; the reference with examples
//! is on the re-export in the `bindery` crate.
#![forbid(unsafe_code)]

mod expand;
mod input;
mod validate;

/// Embeds a folder as a `bindery::Catalog`. See `bindery::embed!` for the options and examples.
#[proc_macro]
pub fn embed(tokens: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::expand(tokens.into()).into()
}

// A proc-macro crate exports only macros, so the README's examples hang on a private item.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
#[allow(dead_code)]
struct ReadmeDoctests;
