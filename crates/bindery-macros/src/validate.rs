//! Checking the parsed arguments against the one list of options (bindery-codegen's
//! `SETTINGS`): each key, the kind of its value, then the option's own parsing and every other
//! rule in `Options::validate`, each problem spanned on the argument it concerns.

use std::collections::HashMap;
use std::path::Path;

use bindery_codegen::options::{Given, Setting, Takes, folder_names, names, setting};
use bindery_codegen::{Concern, Error, Options};
use proc_macro2::Span;
use syn::LitStr;

use crate::input::{Input, Value};

/// Checked arguments: the codegen options plus the spans errors found later should point at.
pub(crate) struct Settings {
    pub options: Options,
    pub folder: LitStr,
    /// The environment variables the folder argument named, for rebuild tracking.
    pub variables: Vec<String>,
    /// Where each option was written.
    pub spans: Spans,
    /// The further folders, in the order given.
    pub further: Vec<Further>,
}

/// Where each option was written: its argument's place among the arguments (errors are shown
/// in argument order), its key, and its value (each item of a list).
#[derive(Default)]
pub(crate) struct Spans {
    written: HashMap<&'static str, Written>,
}

struct Written {
    argument: usize,
    key: Span,
    items: Vec<Span>,
}

impl Spans {
    /// The key of the option `name`, when it was given: where an error the build finds about
    /// it points.
    pub(crate) fn key(&self, name: &str) -> Option<Span> {
        self.written.get(name).map(|written| written.key)
    }

    /// The argument and span a problem of option `name` (its list item `index`) points at.
    fn place(&self, name: &str, index: Option<usize>) -> Option<(usize, Span)> {
        let written = self.written.get(name)?;
        let span = index
            .and_then(|index| written.items.get(index))
            .or(written.items.first())
            .copied()
            .unwrap_or(written.key);
        Some((written.argument, span))
    }
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

/// A further folder as checked: its place among the arguments, its literal and where its
/// options were written.
pub(crate) struct Further {
    pub argument: usize,
    pub folder: LitStr,
    pub spans: Spans,
}

/// Validates every argument, collecting all errors rather than stopping at the first.
pub(crate) fn validate(input: Input, manifest_dir: &Path) -> Result<Settings, syn::Error> {
    let mut errors = Errors::default();
    let Input {
        folder,
        args,
        folders,
    } = input;
    let (mut options, mut variables) = start(&folder, manifest_dir)?;
    let spans = apply_all(&mut options, args, None, &mut errors);
    let mut further = Vec::with_capacity(folders.len());
    for (argument, given) in folders {
        let (mut extra, named) = match start(&given.folder, manifest_dir) {
            Ok(started) => started,
            Err(error) => {
                errors.push(argument, error);
                continue;
            }
        };
        variables.extend(named);
        let spans = apply_all(&mut extra, given.args, Some(argument), &mut errors);
        options = options.folder(extra);
        further.push(Further {
            argument,
            folder: given.folder,
            spans,
        });
    }
    if further.len() == options.folders().len()
        && let Err(problems) = options.validate()
    {
        let is_argument_wrong = !errors.0.is_empty()
            || problems
                .iter()
                .any(|problem| problem.concern != Concern::Folder);
        for problem in problems {
            let (spans, literal, base) = match problem.folder.checked_sub(1) {
                None => (&spans, &folder, 0),
                Some(index) => {
                    let given = &further[index];
                    (&given.spans, &given.folder, given.argument)
                }
            };
            let place = match problem.concern {
                Concern::Setting { name, index } => spans.place(name, index),
                // The folder is looked at once the arguments are right.
                _ if is_argument_wrong => continue,
                _ => None,
            };
            let (argument, span) = place.unwrap_or((base, literal.span()));
            let error = syn::Error::new(
                span,
                message(&problem.error, &literal.value(), manifest_dir),
            );
            errors.push(argument, error);
        }
    }
    match errors.combined() {
        Some(errors) => Err(errors),
        None => Ok(Settings {
            options,
            folder,
            variables,
            spans,
            further,
        }),
    }
}

/// The options of one folder before its settings: the folder joined to the crate's (after
/// `$OUT_DIR/dist`'s variables are replaced; an absolute result stays absolute), and the
/// variables it named.
fn start(folder: &LitStr, manifest_dir: &Path) -> syn::Result<(Options, Vec<String>)> {
    let expanded = bindery_codegen::expand_folder(&folder.value())
        .map_err(|error| syn::Error::new(folder.span(), error.to_string()))?;
    let options =
        Options::new(manifest_dir.join(&expanded.path)).crate_dir(manifest_dir.to_path_buf());
    Ok((options, expanded.variables))
}

/// Applies one folder's `key = value` arguments to `options`, each error kept with its
/// argument's place; `within` is the place of a further folder's `folder(…)`, whose arguments
/// take only the settings each folder has its own of.
fn apply_all(
    options: &mut Options,
    args: Vec<(usize, crate::input::Arg)>,
    within: Option<usize>,
    errors: &mut Errors,
) -> Spans {
    let mut spans = Spans::default();
    for (argument, arg) in args {
        let argument = within.unwrap_or(argument);
        let key = arg.key.to_string();
        let Some(setting) = setting(&key) else {
            let expected = if within.is_some() {
                folder_names()
            } else {
                names()
            };
            let message = format!("unknown option `{key}` (expected one of: {expected})");
            errors.push(argument, syn::Error::new(arg.key.span(), message));
            continue;
        };
        if within.is_some() && !setting.per_folder {
            let message = format!(
                "`{key}` applies to the whole catalog: give it beside the first folder, not in \
                 `folder(…)` (which takes {})",
                folder_names()
            );
            errors.push(argument, syn::Error::new(arg.key.span(), message));
            continue;
        }
        if spans.written.contains_key(setting.name) {
            let error = syn::Error::new(arg.key.span(), format!("`{key}` is given twice"));
            errors.push(argument, error);
            continue;
        }
        spans.written.insert(
            setting.name,
            Written {
                argument,
                key: arg.key.span(),
                items: item_spans(&arg.value),
            },
        );
        match apply(options.clone(), setting, &arg.value) {
            Ok(applied) => *options = applied,
            Err(error) => errors.push(argument, error),
        }
    }
    spans
}

/// A codegen error as the macro shows it: paths relative to the crate; a missing folder says
/// how it was written, where it was looked for and from what, and what to do.
/// `written` is the folder argument the error is about, as the user wrote it.
pub(crate) fn message(error: &Error, written: &str, manifest_dir: &Path) -> String {
    if let Error::MissingFolder { path, hint } = error {
        return missing_folder(path, hint.as_deref(), written, manifest_dir);
    }
    let base = format!("{}/", manifest_dir.display());
    error.to_string().replace(&base, "")
}

/// "folder `web/dist` does not exist: looked for `/home/me/app/web/dist` (relative to …);
/// run …": the folder as written, the path it resolved to and from where (the crate's folder,
/// or the variables it named and their values), then the crate's `hint` or bindery's advice.
fn missing_folder(path: &Path, hint: Option<&str>, written: &str, manifest_dir: &Path) -> String {
    let variables: Vec<String> = bindery_codegen::expand_folder(written)
        .map(|expanded| expanded.variables)
        .unwrap_or_default()
        .iter()
        .map(|name| {
            let value = std::env::var(name).unwrap_or_default();
            format!("${name} is `{value}`")
        })
        .collect();
    let from = if !variables.is_empty() {
        format!(" ({})", variables.join(", "))
    } else if Path::new(written).is_relative() {
        format!(
            " (relative to the crate's folder, CARGO_MANIFEST_DIR: `{}`)",
            manifest_dir.display()
        )
    } else {
        String::new()
    };
    let advice = hint.map_or_else(
        || {
            "if a step makes it (a front-end build, a build script), run that step first; or \
             add `allow_missing = true`, or `hint = \"…\"` to say here how it is made"
                .to_owned()
        },
        str::to_owned,
    );
    format!(
        "folder `{written}` does not exist: looked for `{}`{from}; {advice}",
        path.display()
    )
}

/// `options` with one argument applied, or the error: a value of the wrong kind, a word the
/// option does not take (each bad item of a list, on its span), or what the option's parsing
/// says.
fn apply(options: Options, setting: &Setting, value: &Value) -> Result<Options, syn::Error> {
    let wrong = || {
        let message = format!("`{}` takes {}", setting.name, setting.takes.expected());
        syn::Error::new(value_span(value), message)
    };
    let given = given(setting.takes, value).ok_or_else(wrong)?;
    if let (Takes::Word(words), Value::Str(word)) = (setting.takes, value)
        && !words.contains(&word.value().as_str())
    {
        let message = format!(
            "`{}` takes {}, not {:?}",
            setting.name,
            setting.takes.expected(),
            word.value()
        );
        return Err(syn::Error::new(word.span(), message));
    }
    if let (Takes::Words(words), Value::List(items)) = (setting.takes, value) {
        let bad = items
            .iter()
            .filter(|item| !words.contains(&item.value().as_str()));
        let errors = bad.map(|item| {
            let message = format!(
                "`{}` takes {}, not {:?}",
                setting.name,
                Takes::Word(words).expected(),
                item.value()
            );
            syn::Error::new(item.span(), message)
        });
        if let Some(all) = errors.reduce(|mut all, error| {
            all.combine(error);
            all
        }) {
            return Err(all);
        }
    }
    setting.set(options, &given).map_err(|message| {
        syn::Error::new(value_span(value), format!("`{}`: {message}", setting.name))
    })
}

/// The value as the option's kind takes it from a literal, or `None` for the wrong kind.
fn given(takes: Takes, value: &Value) -> Option<Given> {
    let number = |literal: &syn::LitInt| literal.base10_parse::<u64>().ok().map(Given::Number);
    let list = |items: &[LitStr]| Given::List(items.iter().map(LitStr::value).collect());
    match (takes, value) {
        (Takes::Bool, Value::Bool(flag)) => Some(Given::Bool(flag.value)),
        (Takes::Word(words), Value::Bool(flag)) if words.contains(&"true") => {
            Some(Given::Bool(flag.value))
        }
        (Takes::Word(_) | Takes::Text, Value::Str(text)) => Some(Given::Text(text.value())),
        (Takes::Globs | Takes::Texts(_) | Takes::Words(_), Value::Str(text)) => {
            Some(Given::List(vec![text.value()]))
        }
        (Takes::Globs | Takes::Texts(_) | Takes::Words(_), Value::List(items)) => Some(list(items)),
        (Takes::Number(_) | Takes::Size | Takes::Threshold, Value::Int(literal)) => number(literal),
        (Takes::Size | Takes::Threshold, Value::Str(text)) => Some(Given::Text(text.value())),
        _ => None,
    }
}

/// The spans of a value: each item of a list, else the value itself.
fn item_spans(value: &Value) -> Vec<Span> {
    match value {
        Value::List(items) => items.iter().map(LitStr::span).collect(),
        other => vec![value_span(other)],
    }
}

fn value_span(value: &Value) -> Span {
    match value {
        Value::Str(literal) => literal.span(),
        Value::Int(literal) => literal.span(),
        Value::Bool(literal) => literal.span,
        Value::List(items) => items.first().map_or_else(Span::call_site, LitStr::span),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::missing_folder;

    /// A folder named through a variable says the variable's value; a relative one says the
    /// crate's folder; the crate's hint replaces bindery's advice.
    #[test]
    fn a_missing_folder_says_where_it_looked_and_from_what() {
        let manifest_dir = Path::new("/home/me/app");
        let value = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it for tests");
        let through_variable = missing_folder(
            &Path::new(&value).join("dist"),
            None,
            "$CARGO_MANIFEST_DIR/dist",
            manifest_dir,
        );
        assert!(
            through_variable
                .starts_with("folder `$CARGO_MANIFEST_DIR/dist` does not exist: looked for `")
                && through_variable.contains(&format!("($CARGO_MANIFEST_DIR is `{value}`)"))
                && through_variable.contains("allow_missing = true"),
            "{through_variable}"
        );
        let relative = missing_folder(
            &manifest_dir.join("web/dist"),
            Some("run `npm run build` in web/"),
            "web/dist",
            manifest_dir,
        );
        assert_eq!(
            relative,
            "folder `web/dist` does not exist: looked for `/home/me/app/web/dist` (relative to \
             the crate's folder, CARGO_MANIFEST_DIR: `/home/me/app`); run `npm run build` in web/"
        );
    }
}
