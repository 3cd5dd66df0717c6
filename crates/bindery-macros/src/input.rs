//! Parsing the macro's arguments: `"folder", key = value, ...`.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitBool, LitInt, LitStr, Token, bracketed};

/// The arguments as written: the folder, then named options.
pub(crate) struct Input {
    pub folder: LitStr,
    pub args: Vec<Arg>,
}

/// One `key = value` option.
pub(crate) struct Arg {
    pub key: Ident,
    pub value: Value,
}

/// An option's value; which kind each key takes is checked in `validate`.
pub(crate) enum Value {
    Str(LitStr),
    Int(LitInt),
    Bool(LitBool),
    List(Vec<LitStr>),
}

impl Input {
    /// The runtime's path as the arguments name it (`crate_path = "…"`), for the expansion and
    /// its error fallback; `::bindery` when none is given or it is no path.
    pub(crate) fn runtime(&self) -> proc_macro2::TokenStream {
        let given = self.args.iter().find_map(|arg| match &arg.value {
            Value::Str(path) if arg.key == "crate_path" => {
                syn::parse_str::<syn::Path>(&path.value()).ok()
            }
            _ => None,
        });
        match given {
            Some(path) => quote::quote!(#path),
            None => quote::quote!(::bindery),
        }
    }
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error(
                "expected the folder to embed, relative to Cargo.toml: `embed!(\"assets\")`",
            ));
        }
        let folder: LitStr = input.parse().map_err(|error| {
            syn::Error::new(error.span(), "expected the folder as a string literal")
        })?;
        let mut args = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            args.push(input.parse()?);
        }
        Ok(Input { folder, args })
    }
}

impl Parse for Arg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        Ok(Arg {
            key,
            value: input.parse()?,
        })
    }
}

impl Parse for Value {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let lookahead = input.lookahead1();
        if lookahead.peek(LitStr) {
            input.parse().map(Value::Str)
        } else if lookahead.peek(LitInt) {
            input.parse().map(Value::Int)
        } else if lookahead.peek(LitBool) {
            input.parse().map(Value::Bool)
        } else if lookahead.peek(syn::token::Bracket) {
            let content;
            bracketed!(content in input);
            let items = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
            Ok(Value::List(items.into_iter().collect()))
        } else {
            Err(lookahead.error())
        }
    }
}
