//! The flags of `bindery embed`: the generator's own (the folder, `--out`, `--name`, `--dev`,
//! `--check`, `--force`), and one per embedding option, made from bindery-codegen's one list
//! (`SETTINGS`: each option's flag, value, help line and default), so that the macro and the
//! generator take the same options with the same names; and the command line that regenerates a
//! module, recorded in its header.

use std::path::PathBuf;

use bindery_codegen::Options;
use bindery_codegen::options::{Given, SETTINGS, Setting, Takes, setting};
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, ArgMatches, Command};

const EXAMPLES: &str = "Examples:
  bindery embed assets/spa
      writes ./bindata.rs defining `pub static ASSETS: bindery::Catalog` (static mode)
  bindery embed assets/spa --mode gzip --out src/spa.rs --name SPA --exclude '**/*.map'
      writes src/spa.rs and its compressed blobs in src/spa/
  bindery embed assets/spa --mode gzip --out src/spa.rs --name SPA --exclude '**/*.map' --check
      exits 1, naming each stale file, if regenerating would change anything (for CI)
  bindery embed assets/spa --folder assets/docs --prefix docs --include '*.md'
      one catalog of two folders: the flags after a --folder that each folder has its own of
      (--folder's help lists them) are that folder's

Use the module with `mod spa;` (or `include!`) and a dependency on `bindery`.
Exit status: 0 done or up to date, 1 stale (--check) or a failure, 2 bad arguments or input.";

/// Flags of `bindery embed` (and of `cargo xtask embed` in a project whose xtask calls
/// [`run`](crate::run)).
///
/// ```
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Command {
///     #[command(flatten)]
///     embed: bindery_cli::EmbedArgs,
/// }
///
/// let command = Command::parse_from(["embed", "assets/spa", "--mode", "gzip", "--name", "SPA"]);
/// assert_eq!(command.embed.name, "SPA");
/// assert_eq!(command.embed.out, std::path::Path::new("bindata.rs"));
/// assert_eq!(command.embed.given("mode"), Some(&bindery_codegen::options::Given::Text("gzip".into())));
/// ```
#[derive(Debug, Clone)]
pub struct EmbedArgs {
    /// The folder to embed, e.g. `assets/spa`.
    pub dir: PathBuf,
    /// The module to write (`bindata.rs` by default); blobs go in a folder named after it.
    pub out: PathBuf,
    /// The name of the generated `pub static` (`ASSETS` by default).
    pub name: String,
    /// Dev mode: debug builds with bindery's `dev` feature read the folder now.
    pub dev: bool,
    /// Write nothing; fail, naming each stale file, if regenerating would change anything.
    pub check: bool,
    /// Replace `--out` even when it is not a module `bindery embed` wrote.
    pub force: bool,
    /// The embedding options given, in [`SETTINGS`] order: the whole catalog's, and the first
    /// folder's own (those before any `--folder`).
    pub options: Vec<(&'static Setting, Given)>,
    /// The further folders of the catalog (`--folder DIR`, repeatable), each with the
    /// per-folder options written after it.
    pub folders: Vec<FolderArgs>,
}

/// A further folder of the catalog: `--folder DIR` and the options each folder has its own of
/// ([`Setting::per_folder`]) written after it, before the next `--folder`.
///
/// ```
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Command {
///     #[command(flatten)]
///     embed: bindery_cli::EmbedArgs,
/// }
///
/// let command = Command::parse_from([
///     "embed", "assets/spa", "--prefix", "app", "--folder", "assets/docs", "--prefix", "docs",
///     "--include", "*.md", "--mode", "gzip",
/// ]);
/// let docs = &command.embed.folders[0];
/// assert_eq!(docs.dir, std::path::Path::new("assets/docs"));
/// assert_eq!(docs.given("prefix"), Some(&bindery_codegen::options::Given::Text("docs".into())));
/// assert_eq!(command.embed.given("prefix"), Some(&bindery_codegen::options::Given::Text("app".into())));
/// assert_eq!(command.embed.given("mode"), Some(&bindery_codegen::options::Given::Text("gzip".into())));
/// ```
#[derive(Debug, Clone)]
pub struct FolderArgs {
    /// The folder, as given.
    pub dir: PathBuf,
    /// Its own options, in [`SETTINGS`] order.
    pub options: Vec<(&'static Setting, Given)>,
}

impl FolderArgs {
    /// The value given for the option `name` after this folder's `--folder`, if any.
    pub fn given(&self, name: &str) -> Option<&Given> {
        self.options
            .iter()
            .find(|(setting, _)| setting.name == name)
            .map(|(_, value)| value)
    }
}

impl EmbedArgs {
    /// The value given for the option `name`, if any.
    pub fn given(&self, name: &str) -> Option<&Given> {
        self.options
            .iter()
            .find(|(setting, _)| setting.name == name)
            .map(|(_, value)| value)
    }

    /// `options` with every given option set, or the flag and what is wrong with its value.
    pub(crate) fn apply(&self, options: Options) -> Result<Options, (String, String)> {
        apply(&self.options, options)
    }
}

impl FolderArgs {
    /// `options` (the folder's own) with its options set, or the flag and what is wrong.
    pub(crate) fn apply(&self, options: Options) -> Result<Options, (String, String)> {
        apply(&self.options, options).map_err(|(flag, message)| {
            (
                format!("{flag} of --folder {}", self.dir.display()),
                message,
            )
        })
    }
}

fn apply(
    given: &[(&'static Setting, Given)],
    mut options: Options,
) -> Result<Options, (String, String)> {
    for (setting, value) in given {
        options = setting
            .set(options, value)
            .map_err(|message| (setting.flag(), message))?;
    }
    Ok(options)
}

/// The generator's own flags and positional argument.
fn own_args() -> [Arg; 7] {
    [
        Arg::new("folder")
            .long("folder")
            .value_name("DIR")
            .action(ArgAction::Append)
            .value_parser(clap::value_parser!(PathBuf))
            .help(format!(
                "A further folder of the same catalog (repeatable). The options each folder has \
                 its own of ({}) written after it are its own; the others are the whole \
                 catalog's. A path two folders give fails the run, naming both.",
                bindery_codegen::options::SETTINGS
                    .iter()
                    .filter(|setting| setting.per_folder)
                    .map(bindery_codegen::options::Setting::flag)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        Arg::new("dir")
            .required(true)
            .value_name("DIR")
            .value_parser(clap::value_parser!(PathBuf))
            .help(
                "The folder to embed, e.g. `assets/spa`. `$VAR` and `${VAR}` are replaced by \
                 environment variables when the shell left them (single quotes), e.g. \
                 `'$OUT_DIR/dist'`; `$$` is a `$`.",
            ),
        Arg::new("out")
            .long("out")
            .default_value("bindata.rs")
            .value_parser(clap::value_parser!(PathBuf))
            .help("The module to write, e.g. `src/spa.rs`; blobs go in a folder named after it (`src/spa/`)."),
        Arg::new("name")
            .long("name")
            .default_value("ASSETS")
            .help("The name of the generated `pub static`, e.g. `SPA`."),
        Arg::new("dev").long("dev").action(ArgAction::SetTrue).help(
            "Dev mode (go-bindata's `-debug`): in debug builds with bindery's `dev` feature, the \
             catalog reads the folder from disk as it is now, with the same rules; release builds \
             always embed. The module must be inside a crate (a `Cargo.toml` above `--out`).",
        ),
        Arg::new("check").long("check").action(ArgAction::SetTrue).help(
            "Write nothing; exit 1, naming each stale file, if regenerating would change anything.",
        ),
        Arg::new("force").long("force").action(ArgAction::SetTrue).help(
            "Replace `--out` even when it exists and is not a module `bindery embed` wrote (its \
             header tells); without it, such a file is left alone and the run fails.",
        ),
    ]
}

/// The flag of one embedding option: its name with dashes, its help and default from the
/// list, the value its kind takes.
fn option_arg(setting: &'static Setting) -> Arg {
    let help = format!(
        "{} [default: {}]",
        setting.doc,
        setting.default.replace('`', "")
    );
    let arg = Arg::new(setting.name)
        .long(setting.name.replace('_', "-"))
        .help(help);
    // A per-folder option may come once per folder: every occurrence is kept, with its place.
    let repeated = if setting.per_folder {
        ArgAction::Append
    } else {
        ArgAction::Set
    };
    match setting.takes {
        Takes::Bool if setting.per_folder => arg.action(ArgAction::Count),
        Takes::Bool => arg.action(ArgAction::SetTrue),
        Takes::Word(words) => arg
            .value_name("WORD")
            .value_parser(PossibleValuesParser::new(words)),
        Takes::Text => arg.value_name("TEXT").action(repeated),
        Takes::Globs => arg.value_name("GLOB").action(ArgAction::Append),
        Takes::Texts(what) => arg.value_name(what).action(ArgAction::Append),
        Takes::Words(words) => arg
            .value_name("WORDS")
            .action(ArgAction::Append)
            .value_delimiter(',')
            .value_parser(PossibleValuesParser::new(words)),
        Takes::Number(max) => arg
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(0..=max)),
        Takes::Size => arg
            .value_name("SIZE")
            .value_parser(|text: &str| bindery_codegen::parse_size(text).map(|_| text.to_owned())),
        Takes::Threshold => arg.value_name("BYTES|off").value_parser(|text: &str| {
            bindery_codegen::parse_large_threshold(text).map(|_| text.to_owned())
        }),
    }
}

/// The value of one embedding option for each folder (0: the first, `n`: the `n`th
/// `--folder`), when the command line gave it: a per-folder option's occurrences go to the
/// folder whose `--folder` they follow; any other is the first's. Giving a per-folder text
/// option twice to one folder is an error.
fn given(
    setting: &Setting,
    matches: &ArgMatches,
    folders: &[usize],
) -> Result<Vec<(usize, Given)>, clap::Error> {
    let is_given =
        matches.value_source(setting.name) == Some(clap::parser::ValueSource::CommandLine);
    if !is_given {
        return Ok(Vec::new());
    }
    let folder_of = |index: usize| {
        if setting.per_folder {
            folders.partition_point(|&start| start < index)
        } else {
            0
        }
    };
    let indices: Vec<usize> = matches
        .indices_of(setting.name)
        .map(Iterator::collect)
        .unwrap_or_default();
    let mut by_folder: Vec<(usize, Given)> = Vec::new();
    let mut add = |folder: usize, value: Given| -> Result<(), clap::Error> {
        match (by_folder.last_mut(), value) {
            (Some((last, Given::List(items))), Given::List(more)) if *last == folder => {
                items.extend(more);
            }
            (Some((last, Given::Bool(_))), Given::Bool(_)) if *last == folder => {}
            (Some((last, _)), _) if *last == folder => {
                return Err(clap::Error::raw(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("{} is given twice for one folder\n", setting.flag()),
                ));
            }
            (_, value) => by_folder.push((folder, value)),
        }
        Ok(())
    };
    match setting.takes {
        Takes::Bool if setting.per_folder => {
            for index in indices {
                add(folder_of(index), Given::Bool(true))?;
            }
        }
        Takes::Bool => add(0, Given::Bool(matches.get_flag(setting.name)))?,
        Takes::Word(_) | Takes::Text | Takes::Size | Takes::Threshold => {
            let values = matches
                .get_many::<String>(setting.name)
                .into_iter()
                .flatten();
            for (index, value) in indices.into_iter().zip(values) {
                add(folder_of(index), Given::Text(value.clone()))?;
            }
        }
        Takes::Globs | Takes::Texts(_) | Takes::Words(_) => {
            let values = matches
                .get_many::<String>(setting.name)
                .into_iter()
                .flatten();
            for (index, value) in indices.into_iter().zip(values) {
                add(folder_of(index), Given::List(vec![value.clone()]))?;
            }
        }
        Takes::Number(_) => {
            if let Some(number) = matches.get_one::<u64>(setting.name) {
                add(0, Given::Number(*number))?;
            }
        }
    }
    Ok(by_folder)
}

impl clap::Args for EmbedArgs {
    fn augment_args(command: Command) -> Command {
        let command = command.after_help(EXAMPLES).args(own_args());
        SETTINGS.iter().map(option_arg).fold(command, Command::arg)
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for EmbedArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let missing = || clap::Error::new(clap::error::ErrorKind::MissingRequiredArgument);
        let starts: Vec<usize> = matches
            .indices_of("folder")
            .map(Iterator::collect)
            .unwrap_or_default();
        let mut first = Vec::new();
        let mut folders: Vec<FolderArgs> = matches
            .get_many::<PathBuf>("folder")
            .into_iter()
            .flatten()
            .map(|dir| FolderArgs {
                dir: dir.clone(),
                options: Vec::new(),
            })
            .collect();
        for setting in SETTINGS {
            for (folder, value) in given(setting, matches, &starts)? {
                match folder.checked_sub(1) {
                    None => first.push((setting, value)),
                    Some(index) => folders[index].options.push((setting, value)),
                }
            }
        }
        Ok(EmbedArgs {
            dir: matches
                .get_one::<PathBuf>("dir")
                .ok_or_else(missing)?
                .clone(),
            out: matches
                .get_one::<PathBuf>("out")
                .ok_or_else(missing)?
                .clone(),
            name: matches
                .get_one::<String>("name")
                .ok_or_else(missing)?
                .clone(),
            dev: matches.get_flag("dev"),
            check: matches.get_flag("check"),
            force: matches.get_flag("force"),
            options: first,
            folders,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl EmbedArgs {
    /// The arguments that regenerate the module, as recorded in its header: deterministic, with
    /// the paths as they were given, the mode always, other options only where they differ from
    /// their defaults, shell-quoted where needed.
    pub(crate) fn command_line(&self) -> String {
        let mut words = vec![self.dir.display().to_string()];
        let default = Options::new(".");
        let mode = setting("mode").map(|mode| (mode, self.given("mode").cloned()));
        if let Some((mode, given)) = mode {
            // The mode always, then where the module goes.
            let value = given.unwrap_or_else(|| mode.get(&default));
            push_option(&mut words, mode, value);
            words.extend([
                "--out".to_owned(),
                self.out.display().to_string(),
                "--name".to_owned(),
                self.name.clone(),
            ]);
        }
        let rest: Vec<_> = self
            .options
            .iter()
            .filter(|(setting, _)| setting.name != "mode")
            .cloned()
            .collect();
        push_options(&mut words, &rest);
        if self.dev {
            words.push("--dev".into());
        }
        for folder in &self.folders {
            words.extend(["--folder".to_owned(), folder.dir.display().to_string()]);
            push_options(&mut words, &folder.options);
        }
        words
            .iter()
            .map(|word| shell_quote(word))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The flags of these options where they differ from their defaults, in [`SETTINGS`] order.
fn push_options(words: &mut Vec<String>, given: &[(&'static Setting, Given)]) {
    let default = Options::new(".");
    for setting in SETTINGS {
        let Some((_, value)) = given.iter().find(|(found, _)| found.name == setting.name) else {
            continue;
        };
        let is_default = setting
            .set(Options::new("."), value)
            .is_ok_and(|set| setting.get(&set) == setting.get(&default));
        if !is_default {
            push_option(words, setting, value.clone());
        }
    }
}

/// One option's flag and value as words.
fn push_option(words: &mut Vec<String>, setting: &Setting, value: Given) {
    let flag = setting.flag();
    match (setting.takes, value) {
        (_, Given::Bool(true)) => words.push(flag),
        (_, Given::Bool(false)) => {}
        (Takes::Words(_), Given::List(items)) => words.extend([flag, items.join(",")]),
        (_, Given::List(items)) => {
            for item in items {
                words.extend([flag.clone(), item]);
            }
        }
        (_, Given::Text(text)) => words.extend([flag, text]),
        (_, Given::Number(number)) => words.extend([flag, number.to_string()]),
    }
}

/// `word` as one shell word: as it is when it holds only safe characters, else single-quoted.
fn shell_quote(word: &str) -> String {
    let is_safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    if is_safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    #[test]
    fn shell_quote_leaves_safe_words_and_quotes_the_rest() {
        assert_eq!(shell_quote("assets/spa"), "assets/spa");
        assert_eq!(shell_quote("**/*.map"), "'**/*.map'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
