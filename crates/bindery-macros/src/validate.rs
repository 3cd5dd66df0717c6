//! Checking the parsed arguments and turning them into codegen options, every error spanned on
//! the argument at fault.

use std::collections::HashSet;
use std::path::Path;

use bindery_codegen::{Encoding, Mode, Options, normalise_prefix, scan::compile_glob};
use proc_macro2::Span;
use syn::LitStr;

use crate::input::{Input, Value};

const KEYS: &str =
    "mode, include, exclude, prefix, hidden, modified, level, allow_missing, large, precompress";

/// Checked arguments: the codegen options plus the spans errors found later should point at.
pub(crate) struct Settings {
    pub options: Options,
    pub folder: LitStr,
    pub globs: Vec<LitStr>,
    pub prefix: Option<LitStr>,
    /// The `large` argument, when given explicitly.
    pub large: Option<Span>,
}

/// Validates every argument, collecting all errors rather than stopping at the first.
pub(crate) fn validate(input: Input, manifest_dir: &Path) -> Result<Settings, syn::Error> {
    let mut errors: Option<syn::Error> = None;
    let mut push = |error: syn::Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    let mut options = Options::new(manifest_dir.join(input.folder.value()));
    let mut globs = Vec::new();
    let mut prefix = None;
    let mut large = None;
    let mut seen = HashSet::new();
    for arg in input.args {
        let key = arg.key.to_string();
        if !seen.insert(key.clone()) {
            push(syn::Error::new(
                arg.key.span(),
                format!("`{key}` is given twice"),
            ));
            continue;
        }
        match (key.as_str(), arg.value) {
            ("mode", Value::Str(mode)) => match mode.value().parse::<Mode>() {
                Ok(parsed) => options = options.mode(parsed),
                Err(error) => push(syn::Error::new(mode.span(), error.to_string())),
            },
            ("include" | "exclude", Value::Str(glob)) => {
                add_glob(&mut options, &key, &glob, &mut push);
                globs.push(glob);
            }
            ("include" | "exclude", Value::List(list)) => {
                for glob in list {
                    add_glob(&mut options, &key, &glob, &mut push);
                    globs.push(glob);
                }
            }
            ("prefix", Value::Str(value)) => {
                match normalise_prefix(&value.value()) {
                    Ok(_) => options = options.prefix(value.value()),
                    Err(error) => push(syn::Error::new(value.span(), error.to_string())),
                }
                prefix = Some(value);
            }
            ("level", Value::Int(level)) => match level.base10_parse::<u32>() {
                Ok(parsed @ 0..=9) => options = options.level(parsed),
                _ => push(syn::Error::new(level.span(), "`level` must be 0 to 9")),
            },
            ("large", Value::Int(bytes)) => match bytes.base10_parse::<u64>() {
                Ok(threshold) => {
                    options = options.large_threshold(Some(threshold));
                    large = Some(bytes.span());
                }
                Err(_) => push(syn::Error::new(
                    bytes.span(),
                    "`large` must be a number of bytes",
                )),
            },
            ("large", Value::Str(text)) if text.value() == "off" => {
                options = options.large_threshold(None);
                large = Some(text.span());
            }
            ("large", value) => push(wrong_kind(&key, "a number of bytes or \"off\"", &value)),
            ("precompress", Value::List(names)) => {
                options = options.precompress(encodings(&names, &mut push));
            }
            ("precompress", Value::Str(name)) => {
                options = options.precompress(encodings(&[name], &mut push));
            }
            ("precompress", value) => push(wrong_kind(
                &key,
                "a list of encodings, e.g. [\"br\", \"zstd\", \"gzip\"]",
                &value,
            )),
            ("hidden", Value::Bool(flag)) => options = options.include_hidden(flag.value),
            ("modified", Value::Bool(flag)) => options = options.modified(flag.value),
            ("allow_missing", Value::Bool(flag)) => options = options.allow_missing(flag.value),
            ("mode" | "prefix", value) => push(wrong_kind(&key, "a string", &value)),
            ("include" | "exclude", value) => {
                push(wrong_kind(&key, "a glob string or a list of them", &value))
            }
            ("level", value) => push(wrong_kind(&key, "an integer from 0 to 9", &value)),
            ("hidden" | "modified" | "allow_missing", value) => {
                push(wrong_kind(&key, "`true` or `false`", &value))
            }
            _ => push(syn::Error::new(
                arg.key.span(),
                format!("unknown option `{key}` (expected one of: {KEYS})"),
            )),
        }
    }
    match errors {
        Some(errors) => Err(errors),
        None => Ok(Settings {
            options,
            folder: input.folder,
            globs,
            prefix,
            large,
        }),
    }
}

/// The encodings named in `precompress`, each error spanned on its name: unknown, given twice,
/// or needing a feature that is off.
fn encodings(names: &[LitStr], push: &mut impl FnMut(syn::Error)) -> Vec<Encoding> {
    let mut chosen = Vec::new();
    for name in names {
        match name.value().parse::<Encoding>() {
            Err(error) => push(syn::Error::new(name.span(), error.to_string())),
            Ok(encoding) if chosen.contains(&encoding) => push(syn::Error::new(
                name.span(),
                format!("`{encoding}` is given twice in `precompress`"),
            )),
            Ok(encoding) if !encoding.is_available() => {
                let feature = encoding.feature().unwrap_or_default();
                push(syn::Error::new(
                    name.span(),
                    format!(
                        "precompress `{encoding}` needs the `{feature}` feature of bindery: \
                         bindery = {{ version = \"…\", features = [\"{feature}\"] }}"
                    ),
                ));
            }
            Ok(encoding) => chosen.push(encoding),
        }
    }
    chosen
}

fn add_glob(options: &mut Options, key: &str, glob: &LitStr, push: &mut impl FnMut(syn::Error)) {
    if let Err(error) = compile_glob(&glob.value()) {
        push(syn::Error::new(glob.span(), error.to_string()));
        return;
    }
    let taken = std::mem::replace(options, Options::new(""));
    *options = if key == "include" {
        taken.include(glob.value())
    } else {
        taken.exclude(glob.value())
    };
}

fn wrong_kind(key: &str, expected: &str, value: &Value) -> syn::Error {
    syn::Error::new(value_span(value), format!("`{key}` takes {expected}"))
}

fn value_span(value: &Value) -> Span {
    match value {
        Value::Str(literal) => literal.span(),
        Value::Int(literal) => literal.span(),
        Value::Bool(literal) => literal.span,
        Value::List(items) => items.first().map_or_else(Span::call_site, LitStr::span),
    }
}
