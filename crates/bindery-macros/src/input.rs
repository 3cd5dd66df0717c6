//! Parsing the macro's arguments: `"folder", key = value, ...`, and any further folders of the
//! catalog as `folder("other", key = value, ...)`.

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitBool, LitInt, LitStr, Token, bracketed, parenthesized};

/// The arguments as written: the folder, then named options and further folders.
pub(crate) struct Input {
    pub folder: LitStr,
    /// The named options, each with its place among the arguments (the folder is 0).
    pub args: Vec<(usize, Arg)>,
    /// The further folders, `folder("…", …)`, each with its place among the arguments.
    pub folders: Vec<(usize, FolderArg)>,
}

/// A further folder: `folder("path", key = value, ...)`, with the settings each folder has its
/// own of.
pub(crate) struct FolderArg {
    /// The word `folder`.
    pub keyword: Ident,
    pub folder: LitStr,
    pub args: Vec<(usize, Arg)>,
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
        let given = self.args.iter().find_map(|(_, arg)| match &arg.value {
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
        let mut folders = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let argument = args.len() + folders.len() + 1;
            if input.peek(Ident) && input.peek2(syn::token::Paren) {
                folders.push((argument, input.parse()?));
            } else {
                args.push((argument, input.parse()?));
            }
        }
        Ok(Input {
            folder,
            args,
            folders,
        })
    }
}

impl Parse for FolderArg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let keyword: Ident = input.parse()?;
        if keyword != "folder" {
            return Err(syn::Error::new(
                keyword.span(),
                format!("expected `key = value` or `folder(\"…\", …)`, not `{keyword}(…)`"),
            ));
        }
        let content;
        parenthesized!(content in input);
        let inner: Input = content.parse()?;
        if let Some((_, nested)) = inner.folders.first() {
            return Err(syn::Error::new(
                nested.keyword.span(),
                "a further folder is given beside the first, not inside another `folder(…)`",
            ));
        }
        Ok(FolderArg {
            keyword,
            folder: inner.folder,
            args: inner.args,
        })
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
