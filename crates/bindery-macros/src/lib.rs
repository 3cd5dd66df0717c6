//! The `embed!` proc-macro of bindery. Use it as `bindery::embed!`; the reference with examples
//! is on the re-export in the `bindery` crate.

mod expand;
mod input;
mod validate;

/// Embeds a folder as a `bindery::Catalog`. See `bindery::embed!` for the options and examples.
#[proc_macro]
pub fn embed(tokens: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::expand(tokens.into()).into()
}
