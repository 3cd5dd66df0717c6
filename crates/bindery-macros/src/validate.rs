//! Checking the parsed arguments: each key and the kind of its value here, every other rule in
//! `Options::validate` (bindery-codegen), whose problems are spanned on the argument they concern.

use std::collections::HashSet;
use std::path::Path;

use bindery_codegen::{Concern, Encoding, Error, Mode, Options};
use proc_macro2::Span;
use syn::LitStr;

use crate::input::{Input, Value};

const KEYS: &str = "mode, include, exclude, prefix, hidden, modified, level, allow_missing, large, \
                    precompress, crate_path, integrity, fingerprint, max_file_size, max_total_size, gitignore, precompressed";

/// Checked arguments: the codegen options plus the spans errors found later should point at.
pub(crate) struct Settings {
    pub options: Options,
    pub folder: LitStr,
    /// The environment variables the folder argument named, for rebuild tracking.
    pub variables: Vec<String>,
    /// Where the options whose errors only the build finds were written.
    pub spans: BuildSpans,
}

/// The spans of the options that errors found while building concern.
#[derive(Default, Clone, Copy)]
pub(crate) struct BuildSpans {
    pub max_file_size: Option<Span>,
    pub max_total_size: Option<Span>,
    pub fingerprint: Option<Span>,
    pub modified: Option<Span>,
}

/// Where each option was written (the argument's place among the arguments, and the span of
/// the literal), so that a problem points at its argument.
#[derive(Default)]
struct Spans {
    /// The argument being applied.
    argument: usize,
    include: Vec<(usize, Span)>,
    exclude: Vec<(usize, Span)>,
    prefix: Option<(usize, Span)>,
    level: Option<(usize, Span)>,
    precompress: Vec<(usize, Span)>,
    crate_path: Option<(usize, Span)>,
    build: BuildSpans,
}

/// All errors of one expansion, each with the place of its argument, shown in argument order.
#[derive(Default)]
struct Errors(Vec<(usize, syn::Error)>);

impl Errors {
    fn push(&mut self, argument: usize, error: syn::Error) {
        self.0.push((argument, error));
    }

    /// One `syn::Error` holding them all, in argument order.
    fn combined(mut self) -> Option<syn::Error> {
        self.0.sort_by_key(|(argument, _)| *argument);
        self.0
            .into_iter()
            .map(|(_, error)| error)
            .reduce(|mut all, error| {
                all.combine(error);
                all
            })
    }
}

/// Validates every argument, collecting all errors rather than stopping at the first.
pub(crate) fn validate(input: Input, manifest_dir: &Path) -> Result<Settings, syn::Error> {
    let mut errors = Errors::default();
    // `$OUT_DIR/dist`: variables are replaced before the path is joined to the crate's folder
    // (an absolute result stays absolute).
    let expanded = match bindery_codegen::expand_folder(&input.folder.value()) {
        Ok(expanded) => expanded,
        Err(error) => return Err(syn::Error::new(input.folder.span(), error.to_string())),
    };
    let mut options =
        Options::new(manifest_dir.join(&expanded.path)).crate_dir(manifest_dir.to_path_buf());
    let mut spans = Spans::default();
    let mut seen = HashSet::new();
    for (argument, arg) in input.args.into_iter().enumerate() {
        let argument = argument + 1;
        spans.argument = argument;
        let key = arg.key.to_string();
        let key_span = Some(arg.key.span());
        match key.as_str() {
            "max_file_size" => spans.build.max_file_size = key_span,
            "max_total_size" => spans.build.max_total_size = key_span,
            "fingerprint" => spans.build.fingerprint = key_span,
            "modified" => spans.build.modified = key_span,
            _ => {}
        }
        if !seen.insert(key.clone()) {
            let error = syn::Error::new(arg.key.span(), format!("`{key}` is given twice"));
            errors.push(argument, error);
            continue;
        }
        options = match apply(options.clone(), &key, arg.value, &mut spans) {
            Ok(applied) => applied,
            Err(None) => {
                let message = format!("unknown option `{key}` (expected one of: {KEYS})");
                errors.push(argument, syn::Error::new(arg.key.span(), message));
                options
            }
            Err(Some(error)) => {
                errors.push(argument, error);
                options
            }
        };
    }
    if let Err(problems) = options.validate() {
        let is_argument_wrong = !errors.0.is_empty()
            || problems
                .iter()
                .any(|problem| problem.concern != Concern::Folder);
        for problem in problems {
            let place = match problem.concern {
                Concern::Include(index) => spans.include.get(index).copied(),
                Concern::Exclude(index) => spans.exclude.get(index).copied(),
                Concern::Prefix => spans.prefix,
                Concern::Level => spans.level,
                Concern::Precompress(index) => spans.precompress.get(index).copied(),
                Concern::CratePath => spans.crate_path,
                // The folder is looked at once the arguments are right.
                _ if is_argument_wrong => continue,
                _ => None,
            };
            let (argument, span) = place.unwrap_or((0, input.folder.span()));
            let error = syn::Error::new(span, message(&problem.error, manifest_dir));
            errors.push(argument, error);
        }
    }
    match errors.combined() {
        Some(errors) => Err(errors),
        None => Ok(Settings {
            options,
            folder: input.folder,
            variables: expanded.variables,
            spans: spans.build,
        }),
    }
}

/// A codegen error as the macro shows it: paths relative to the crate, and for a missing folder
/// the two things a user most often needs to know.
pub(crate) fn message(error: &Error, manifest_dir: &Path) -> String {
    let base = format!("{}/", manifest_dir.display());
    let text = error.to_string().replace(&base, "");
    match error {
        Error::MissingFolder { .. } => format!(
            "{text} (paths are relative to the crate's Cargo.toml; add `allow_missing = true` \
             if it is built later)"
        ),
        _ => text,
    }
}

/// `options` with one argument applied; `Err(None)` for an unknown key, `Err(Some(_))` for a
/// value of the wrong kind or that does not parse.
fn apply(
    options: Options,
    key: &str,
    value: Value,
    spans: &mut Spans,
) -> Result<Options, Option<syn::Error>> {
    Ok(match (key, value) {
        ("mode", Value::Str(mode)) => match mode.value().parse::<Mode>() {
            Ok(parsed) => options.mode(parsed),
            Err(error) => return Err(Some(syn::Error::new(mode.span(), error.to_string()))),
        },
        ("include", Value::Str(glob)) => include(options, spans, &[glob]),
        ("include", Value::List(globs)) => include(options, spans, &globs),
        ("exclude", Value::Str(glob)) => exclude(options, spans, &[glob]),
        ("exclude", Value::List(globs)) => exclude(options, spans, &globs),
        ("prefix", Value::Str(prefix)) => {
            spans.prefix = Some((spans.argument, prefix.span()));
            options.prefix(prefix.value())
        }
        ("level", Value::Int(level)) => {
            spans.level = Some((spans.argument, level.span()));
            match level.base10_parse::<u32>() {
                Ok(parsed) => options.level(parsed),
                Err(_) => {
                    return Err(Some(wrong_kind(
                        key,
                        "an integer from 0 to 9",
                        &Value::Int(level),
                    )));
                }
            }
        }
        ("large", Value::Int(bytes)) => match bytes.base10_parse::<u64>() {
            Ok(threshold) => options.large_threshold(Some(threshold)),
            Err(_) => {
                return Err(Some(syn::Error::new(
                    bytes.span(),
                    "`large` must be a number of bytes",
                )));
            }
        },
        ("large", Value::Str(text)) if text.value() == "off" => options.large_threshold(None),
        ("precompress", Value::List(names)) => precompress(options, spans, &names)?,
        ("precompress", Value::Str(name)) => precompress(options, spans, &[name])?,
        ("crate_path", Value::Str(path)) => {
            spans.crate_path = Some((spans.argument, path.span()));
            options.crate_path(path.value())
        }
        ("hidden", Value::Bool(flag)) => options.include_hidden(flag.value),
        ("modified", Value::Bool(flag)) => options.modified(flag.value),
        ("modified", Value::Str(text)) if text.value() == "source-date-epoch" => {
            options.source_date(true)
        }
        ("fingerprint", Value::Bool(flag)) => options.fingerprint(flag.value),
        ("gitignore", Value::Bool(flag)) => options.gitignore(flag.value),
        ("precompressed", Value::Str(text)) if text.value() == "siblings" => options.siblings(true),
        ("integrity", Value::Str(name)) => match name.value().parse::<bindery_codegen::Integrity>()
        {
            Ok(integrity) => options.integrity(integrity),
            Err(error) => return Err(Some(syn::Error::new(name.span(), error.to_string()))),
        },
        ("max_file_size", value) => {
            let bytes = size(key, &value)?;
            options.max_file_size(Some(bytes))
        }
        ("max_total_size", value) => {
            let bytes = size(key, &value)?;
            options.max_total_size(Some(bytes))
        }
        ("allow_missing", Value::Bool(flag)) => options.allow_missing(flag.value),
        (key, value) => {
            return Err(expected(key).map(|expected| wrong_kind(key, expected, &value)));
        }
    })
}

/// What an option takes, for its error when it is given something else; `None` for a key
/// that is no option.
fn expected(key: &str) -> Option<&'static str> {
    Some(match key {
        "mode" | "prefix" => "a string",
        "include" | "exclude" => "a glob string or a list of them",
        "level" => "an integer from 0 to 9",
        "large" => "a number of bytes or \"off\"",
        "precompress" => "a list of encodings, e.g. [\"br\", \"zstd\", \"gzip\"]",
        "hidden" | "allow_missing" | "fingerprint" | "gitignore" => "`true` or `false`",
        "modified" => "`true`, `false` or \"source-date-epoch\"",
        "precompressed" => "\"siblings\" (use the .br, .gz and .zst files beside each file)",
        "integrity" => "\"sha256\", \"sha384\" or \"sha512\"",
        "crate_path" => "a path as a string, e.g. \"my_crate::bindery\"",
        _ => return None,
    })
}

/// A size limit: a number of bytes, or a string with a unit (`"10 MiB"`).
fn size(key: &str, value: &Value) -> Result<u64, Option<syn::Error>> {
    let parsed = match value {
        Value::Int(bytes) => bytes
            .base10_parse::<u64>()
            .map_err(|error| error.to_string()),
        Value::Str(text) => bindery_codegen::parse_size(&text.value()),
        _ => Err(String::new()),
    };
    parsed.map_err(|message| {
        let message = if message.is_empty() {
            format!("`{key}` takes a number of bytes or a size such as \"10 MiB\"")
        } else {
            format!("`{key}`: {message}")
        };
        Some(syn::Error::new(value_span(value), message))
    })
}

fn include(mut options: Options, spans: &mut Spans, globs: &[LitStr]) -> Options {
    for glob in globs {
        spans.include.push((spans.argument, glob.span()));
        options = options.include(glob.value());
    }
    options
}

fn exclude(mut options: Options, spans: &mut Spans, globs: &[LitStr]) -> Options {
    for glob in globs {
        spans.exclude.push((spans.argument, glob.span()));
        options = options.exclude(glob.value());
    }
    options
}

/// `precompress`: names parsed here, every other rule (twice, a feature that is off) checked by
/// `Options::validate` with the names' spans.
fn precompress(
    options: Options,
    spans: &mut Spans,
    names: &[LitStr],
) -> Result<Options, Option<syn::Error>> {
    let mut encodings = Vec::new();
    let mut error: Option<syn::Error> = None;
    for name in names {
        match name.value().parse::<Encoding>() {
            Ok(encoding) => {
                encodings.push(encoding);
                spans.precompress.push((spans.argument, name.span()));
            }
            Err(parse) => {
                let new = syn::Error::new(name.span(), parse.to_string());
                match &mut error {
                    Some(all) => all.combine(new),
                    None => error = Some(new),
                }
            }
        }
    }
    match error {
        Some(error) => Err(Some(error)),
        None => Ok(options.precompress(encodings)),
    }
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
