//! Every embedding option, defined once: its name (the macro's key; with dashes, the generator's
//! flag), what value it takes, its line of documentation, its default, and how it is set on and
//! read from [`Options`]. The macro's parser and its error texts, the generator's flags and the
//! command line it records, and the options table of the docs all come from [`SETTINGS`]; which
//! files a folder gives (the scan key) and what dev mode reads come from [`Rules`], which the
//! rule settings fill.
//!
//! ```
//! use bindery_codegen::options::{Given, setting};
//! let hidden = setting("hidden").unwrap();
//! assert_eq!(hidden.flag(), "--hidden");
//! let options = hidden.set(bindery_codegen::Options::new("assets"), &Given::Bool(true)).unwrap();
//! assert!(options.rules().hidden);
//! ```

use std::str::FromStr;

use bindery_core::rules::Modified;

use crate::options::Options;
use crate::{Bundler, Encoding, Integrity, Mode, parse_large_threshold, parse_size};

/// What kind of value an option takes, as both doors write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// `true` or `false` (the generator's flag takes no value).
    Bool,
    /// One of these words.
    Word(&'static [&'static str]),
    /// A string (a path).
    Text,
    /// A glob or a list of globs (the generator's flag repeats).
    Globs,
    /// A string or a list of them, each what the name says (`NAME`, `GLOB=TYPE`; the
    /// generator's flag repeats).
    Texts(&'static str),
    /// A list of these words (the generator's flag takes them comma-separated).
    Words(&'static [&'static str]),
    /// A whole number up to this.
    Number(u64),
    /// A size: a number of bytes, or one with a unit (`"10 MiB"`).
    Size,
    /// A number of bytes, or `"off"`.
    Threshold,
}

impl Takes {
    /// What the option takes, as an error says it.
    ///
    /// ```
    /// use bindery_codegen::options::Takes;
    /// assert_eq!(Takes::Word(&["a", "b"]).expected(), r#""a" or "b""#);
    /// ```
    pub fn expected(self) -> String {
        // `true` and `false` are literals; every other word is a string.
        let quoted = |words: &[&str]| {
            let quoted: Vec<String> = words
                .iter()
                .map(|word| match *word {
                    "true" | "false" => format!("`{word}`"),
                    word => format!("{word:?}"),
                })
                .collect();
            match quoted.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            }
        };
        match self {
            Takes::Bool => "`true` or `false`".to_owned(),
            Takes::Word(words) => quoted(words),
            Takes::Text => "a string".to_owned(),
            Takes::Globs => "a glob string or a list of them".to_owned(),
            Takes::Texts(what) => format!("a string ({what}) or a list of them"),
            Takes::Words(words) => format!("a list of {}", quoted(words)),
            Takes::Number(max) => format!("an integer from 0 to {max}"),
            Takes::Size => "a number of bytes or a size such as \"10 MiB\"".to_owned(),
            Takes::Threshold => "a number of bytes or \"off\"".to_owned(),
        }
    }
}

/// A value as an option was given it, whichever door: what a literal or a flag's text said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Given {
    /// `true` or `false`; a flag given.
    Bool(bool),
    /// A string, or a flag's one value.
    Text(String),
    /// A list, or a repeated (or comma-separated) flag's values.
    List(Vec<String>),
    /// An integer.
    Number(u64),
}

/// One option.
#[derive(Debug)]
pub struct Setting {
    /// The macro's key (`max_file_size`); the generator's flag is [`flag`](Self::flag).
    pub name: &'static str,
    /// What value it takes.
    pub takes: Takes,
    /// What it does, in one line.
    pub doc: &'static str,
    /// Its default, as the docs show it.
    pub default: &'static str,
    /// Whether each folder of a catalog of several has its own (which files it gives and under
    /// which prefix); the others hold for the whole catalog and are given with the first.
    pub per_folder: bool,
    set: fn(Options, &Given) -> Result<Options, String>,
    get: fn(&Options) -> Given,
}

impl Setting {
    /// The generator's flag: `--` and the name with dashes (`--max-file-size`).
    pub fn flag(&self) -> String {
        format!("--{}", self.name.replace('_', "-"))
    }

    /// `options` with this option set to `value`, or what is wrong with the value.
    pub fn set(&self, options: Options, value: &Given) -> Result<Options, String> {
        (self.set)(options, value)
    }

    /// The option's value in `options`; [`set`](Self::set) takes it back unchanged (a list
    /// replaces the one set before), which is how a further folder's own settings reach it.
    pub fn get(&self, options: &Options) -> Given {
        (self.get)(options)
    }
}

/// The option named `name` (a macro key), if there is one.
pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|setting| setting.name == name)
}

/// The names of the options each folder of a catalog has its own of, for the error that meets
/// another in a further folder's settings.
pub fn folder_names() -> String {
    SETTINGS
        .iter()
        .filter(|setting| setting.per_folder)
        .map(|setting| setting.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every option's name, for the error that meets an unknown one.
pub fn names() -> String {
    SETTINGS
        .iter()
        .map(|setting| setting.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The options table of the docs (the `embed!` macro's and the generator's): name, value,
/// what it does, default.
pub fn markdown() -> String {
    let mut table =
        String::from("| option | value | what it does | default |\n| --- | --- | --- | --- |\n");
    for setting in SETTINGS {
        let scope = if setting.per_folder {
            " (each folder its own)"
        } else {
            ""
        };
        table.push_str(&format!(
            "| `{}` | {} | {}{scope} | {} |\n",
            setting.name,
            setting.takes.expected(),
            setting.doc,
            setting.default
        ));
    }
    table
}

fn wrong(takes: Takes) -> String {
    format!("takes {}", takes.expected())
}

fn as_bool(value: &Given) -> Result<bool, String> {
    match value {
        Given::Bool(flag) => Ok(*flag),
        _ => Err(wrong(Takes::Bool)),
    }
}

fn as_text(value: &Given) -> Result<&str, String> {
    match value {
        Given::Text(text) => Ok(text),
        _ => Err(wrong(Takes::Text)),
    }
}

fn as_list(value: &Given) -> Result<Vec<String>, String> {
    match value {
        Given::Text(one) => Ok(vec![one.clone()]),
        Given::List(all) => Ok(all.clone()),
        _ => Err(wrong(Takes::Globs)),
    }
}

/// A word of `T`'s, parsed.
fn word<T: FromStr>(value: &Given, takes: Takes) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    let text = match value {
        Given::Text(text) => text.as_str(),
        Given::Bool(true) => "true",
        Given::Bool(false) => "false",
        _ => return Err(wrong(takes)),
    };
    text.parse::<T>().map_err(|error| error.to_string())
}

fn size(value: &Given) -> Result<u64, String> {
    match value {
        Given::Number(bytes) => Ok(*bytes),
        Given::Text(text) => parse_size(text),
        _ => Err(wrong(Takes::Size)),
    }
}

fn optional_size(bytes: Option<u64>) -> Given {
    bytes.map_or(Given::Text(String::new()), Given::Number)
}

/// What `integrity` takes.
const INTEGRITY_WORDS: [&str; 5] = ["true", "false", "sha256", "sha384", "sha512"];

/// Every option, in the order the docs list them.
pub static SETTINGS: &[Setting] = &[
    Setting {
        name: "mode",
        takes: Takes::Word(&["static", "gzip", "copy"]),
        doc: "how files are stored and what `get` returns (see `Mode`); `\"gzip\"` needs the `gzip` feature",
        default: "`\"static\"`",
        per_folder: false,
        set: |options, value| Ok(options.mode(word::<Mode>(value, Takes::Word(&[]))?)),
        get: |options| Given::Text(options.mode.to_string()),
    },
    Setting {
        name: "include",
        takes: Takes::Globs,
        doc: "embed only paths matching one of these (relative to the folder; `*` crosses `/`)",
        default: "every file",
        per_folder: true,
        set: |mut options, value| {
            options.rules.include = as_list(value)?;
            Ok(options)
        },
        get: |options| Given::List(options.rules.include.clone()),
    },
    Setting {
        name: "exclude",
        takes: Takes::Globs,
        doc: "leave out paths matching one of these; exclude wins over include",
        default: "none",
        per_folder: true,
        set: |mut options, value| {
            options.rules.exclude = as_list(value)?;
            Ok(options)
        },
        get: |options| Given::List(options.rules.exclude.clone()),
    },
    Setting {
        name: "prefix",
        takes: Takes::Text,
        doc: "a relative path put before every catalog path",
        default: "none",
        per_folder: true,
        set: |options, value| Ok(options.prefix(as_text(value)?)),
        get: |options| Given::Text(options.prefix.clone()),
    },
    Setting {
        name: "hidden",
        takes: Takes::Bool,
        doc: "embed names starting with `.`",
        default: "`false`",
        per_folder: true,
        set: |options, value| Ok(options.hidden(as_bool(value)?)),
        get: |options| Given::Bool(options.rules.hidden),
    },
    Setting {
        name: "dotfiles",
        takes: Takes::Texts("NAME"),
        doc: "names starting with `.` to embed without `hidden` (a file or folder of that name at any depth: `\".well-known\"`); every other dotfile stays out",
        default: "none",
        per_folder: true,
        set: |mut options, value| {
            let names = as_list(value)?;
            if let Some(name) = names
                .iter()
                .find(|name| !name.starts_with('.') || name.contains('/'))
            {
                return Err(format!(
                    "`dotfiles` takes names starting with `.` and holding no `/`, not {name:?}"
                ));
            }
            options.rules.dotfiles = names;
            Ok(options)
        },
        get: |options| Given::List(options.rules.dotfiles.clone()),
    },
    Setting {
        name: "types",
        takes: Takes::Texts("GLOB=TYPE"),
        doc: "media types by path, `\"glob=type\"` (`\".well-known/apple-app-site-association=application/json\"`); the first rule that matches wins over the extension's; dev mode and overlays follow them",
        default: "by extension",
        per_folder: false,
        set: |mut options, value| {
            options.rules.types = as_list(value)?;
            Ok(options)
        },
        get: |options| Given::List(options.rules.types.clone()),
    },
    Setting {
        name: "unknown_types",
        takes: Takes::Word(&["octet-stream", "deny"]),
        doc: "what a file whose media type is unknown (no `types` rule, an extension no table knows) gets: `\"octet-stream\"`, or `\"deny\"`: a build error naming each such file",
        default: "`\"octet-stream\"`",
        per_folder: false,
        set: |options, value| {
            let deny = match as_text(value)? {
                "octet-stream" => false,
                "deny" => true,
                other => {
                    return Err(format!(
                        "`unknown_types` takes \"octet-stream\" or \"deny\", not {other:?}"
                    ));
                }
            };
            Ok(options.deny_unknown_types(deny))
        },
        get: |options| {
            Given::Text(
                if options.deny_unknown_types {
                    "deny"
                } else {
                    "octet-stream"
                }
                .to_owned(),
            )
        },
    },
    Setting {
        name: "gitignore",
        takes: Takes::Bool,
        doc: "leave out what the folder's `.gitignore` and `.ignore` files ignore, as ripgrep does (the folders above count up to the work tree's top; no global rules); dev mode applies the same rules; needs the `gitignore` feature",
        default: "`false`",
        per_folder: true,
        set: |options, value| Ok(options.gitignore(as_bool(value)?)),
        get: |options| Given::Bool(options.rules.gitignore),
    },
    Setting {
        name: "modified",
        takes: Takes::Word(&Modified::WORDS),
        doc: "record modification times: `true` each file's (builds are then not reproducible), `\"source-date-epoch\"` one date for every build of a commit (`SOURCE_DATE_EPOCH`, else the last commit that touched the folder, else the crate's)",
        default: "`false`",
        per_folder: false,
        set: |options, value| {
            Ok(options.modified(word::<Modified>(value, Takes::Word(&Modified::WORDS))?))
        },
        get: |options| Given::Text(options.rules.modified.as_str().to_owned()),
    },
    Setting {
        name: "fingerprint",
        takes: Takes::Bool,
        doc: "serve each file also under a content-hashed name (`app.css` → `app.3f2a9c1d4e5b.css`), marked `immutable`; `Catalog::url` gives it",
        default: "`false`",
        per_folder: false,
        set: |options, value| Ok(options.fingerprint(as_bool(value)?)),
        get: |options| Given::Bool(options.fingerprint),
    },
    Setting {
        name: "manifest",
        takes: Takes::Word(&Bundler::WORDS),
        doc: "read the bundler's manifest in the folder at build time (`\"vite\"`: `.vite/manifest.json`): each entry's script, stylesheets and preloads with their integrity (`Catalog::entry`, `ServeCatalog::entry_tags`), an import map with the integrity of every chunk, and the files it names served `immutable` under their own hashed names; a file it names that the catalog lacks fails the build; needs the `vite` feature",
        default: "none",
        per_folder: false,
        set: |options, value| {
            Ok(options.manifest(Some(word::<Bundler>(value, Takes::Word(&Bundler::WORDS))?)))
        },
        get: |options| {
            Given::Text(
                options
                    .manifest
                    .map_or(String::new(), |bundler| bundler.as_str().to_owned()),
            )
        },
    },
    Setting {
        name: "script_hashes",
        takes: Takes::Bool,
        doc: "record the CSP hash (`'sha256-…'`) of every inline `<script>` of each HTML file, as a browser parses it (`Catalog::script_hashes`, `serve::Csp`); needs the `csp` feature",
        default: "`false`",
        per_folder: false,
        set: |options, value| Ok(options.script_hashes(as_bool(value)?)),
        get: |options| Given::Bool(options.script_hashes),
    },
    Setting {
        name: "releases",
        takes: Takes::Text,
        doc: "a folder of earlier releases (`bindery release <dir> --into <folder>` writes them): their hashed files are served beside this build's, `immutable`, so that a page loaded before a deploy keeps working; each release's record is verified, a file that differs from it fails the build; needs the `releases` feature",
        default: "none",
        per_folder: false,
        set: |options, value| {
            let text = as_text(value)?;
            Ok(options.releases((!text.is_empty()).then(|| text.into())))
        },
        get: |options| {
            Given::Text(
                options
                    .releases
                    .as_ref()
                    .map_or(String::new(), |path| path.to_string_lossy().into_owned()),
            )
        },
    },
    Setting {
        name: "keep_releases",
        takes: Takes::Number(crate::release::MAX_KEEP),
        doc: "how many of the newest releases in `releases` are kept",
        default: "`3`",
        per_folder: false,
        set: |options, value| match value {
            Given::Number(count) if *count <= crate::release::MAX_KEEP => {
                Ok(options.keep_releases(*count))
            }
            _ => Err(wrong(Takes::Number(crate::release::MAX_KEEP))),
        },
        get: |options| Given::Number(options.keep_releases),
    },
    Setting {
        name: "dictionaries",
        takes: Takes::Bool,
        doc: "compression dictionary transport (RFC 9842): each hashed file is sent with `Use-As-Dictionary` for its next versions, and a `dcz` delta against each earlier version kept in `releases` is made at build time for browsers that hold it; needs the `zstd` feature",
        default: "`false`",
        per_folder: false,
        set: |options, value| Ok(options.dictionaries(as_bool(value)?)),
        get: |options| Given::Bool(options.dictionaries),
    },
    Setting {
        name: "integrity",
        takes: Takes::Word(&INTEGRITY_WORDS),
        doc: "record each file's SHA-256 and Subresource Integrity string (`EmbeddedFile::sha256`, `EmbeddedFile::integrity`), in this algorithm (`true`: sha384); on by itself with `manifest`, `releases` and `dictionaries`, which compare or name files by SHA-256; needs the `integrity` feature (on with `vite` and `releases`)",
        default: "`false`",
        per_folder: false,
        set: |options, value| {
            let integrity = match value {
                Given::Bool(true) => Some(Integrity::default()),
                Given::Bool(false) => None,
                value => Some(word::<Integrity>(value, Takes::Word(&INTEGRITY_WORDS))?),
            };
            Ok(options.integrity(integrity))
        },
        get: |options| match options.rules.integrity {
            Some(integrity) => Given::Text(integrity.as_str().to_owned()),
            None => Given::Bool(false),
        },
    },
    Setting {
        name: "precompress",
        takes: Takes::Words(&["br", "zstd", "gzip"]),
        doc: "wire variants made at build time and sent as-is to clients that accept them (br and zstd need bindery's features of those names)",
        default: "none",
        per_folder: false,
        set: |options, value| {
            let encodings = as_list(value)?
                .iter()
                .map(|name| name.parse::<Encoding>().map_err(|error| error.to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(options.precompress(encodings))
        },
        get: |options| {
            Given::List(
                options
                    .precompress
                    .iter()
                    .map(|encoding| encoding.as_str().to_owned())
                    .collect(),
            )
        },
    },
    Setting {
        name: "siblings",
        takes: Takes::Bool,
        doc: "the `.br`, `.gz` and `.zst` files beside a file (a front-end pipeline's) become its variants, checked at build time to decode to exactly it, instead of compressing again; they are not listed",
        default: "`false`",
        per_folder: true,
        set: |options, value| Ok(options.siblings(as_bool(value)?)),
        get: |options| Given::Bool(options.rules.siblings),
    },
    Setting {
        name: "level",
        takes: Takes::Number(9),
        doc: "the gzip level",
        default: "`9`",
        per_folder: false,
        set: |options, value| match value {
            Given::Number(level) => Ok(options.level(u32::try_from(*level).unwrap_or(u32::MAX))),
            _ => Err(wrong(Takes::Number(9))),
        },
        get: |options| Given::Number(u64::from(options.level)),
    },
    Setting {
        name: "max_file_size",
        takes: Takes::Size,
        doc: "refuse any file larger than this, naming the largest",
        default: "none",
        per_folder: false,
        set: |options, value| Ok(options.max_file_size(Some(size(value)?))),
        get: |options| optional_size(options.max_file_size),
    },
    Setting {
        name: "max_total_size",
        takes: Takes::Size,
        doc: "refuse a catalog whose files (every folder's together) add up to more than this, naming the largest",
        default: "none",
        per_folder: false,
        set: |options, value| Ok(options.max_total_size(Some(size(value)?))),
        get: |options| optional_size(options.max_total_size),
    },
    Setting {
        name: "large",
        takes: Takes::Threshold,
        doc: "stored size from which a file enters through the assembler instead of `include_bytes!` (`0`: every file); such files are never packed",
        default: "1 MiB",
        per_folder: false,
        set: |options, value| match value {
            Given::Number(bytes) => Ok(options.large_threshold(Some(*bytes))),
            Given::Text(text) => Ok(options.large_threshold(parse_large_threshold(text)?)),
            _ => Err(wrong(Takes::Threshold)),
        },
        get: |options| {
            options
                .large_threshold
                .map_or(Given::Text("off".to_owned()), Given::Number)
        },
    },
    Setting {
        name: "allow_missing",
        takes: Takes::Bool,
        doc: "an empty catalog when the folder does not exist (yet)",
        default: "`false`",
        per_folder: true,
        set: |options, value| Ok(options.allow_missing(as_bool(value)?)),
        get: |options| Given::Bool(options.allow_missing),
    },
    Setting {
        name: "hint",
        takes: Takes::Text,
        doc: "what the error for a missing folder tells the user to do, such as `\"run npm run build in web/\"`",
        default: "bindery's advice",
        per_folder: true,
        set: |options, value| Ok(options.hint(as_text(value)?)),
        get: |options| Given::Text(options.hint.clone()),
    },
    Setting {
        name: "crate_path",
        takes: Takes::Text,
        doc: "the path generated code names the runtime by, for a crate that re-exports bindery (`\"my_crate::bindery\"`)",
        default: "`\"::bindery\"`",
        per_folder: false,
        set: |options, value| Ok(options.crate_path(as_text(value)?)),
        get: |options| Given::Text(options.crate_path.clone()),
    },
];

#[cfg(test)]
mod tests {
    use super::{Given, SETTINGS, Setting, Takes};
    use crate::Options;

    /// A value of each kind that differs from every option's default.
    fn given(takes: Takes) -> Given {
        match takes {
            Takes::Bool => Given::Bool(true),
            Takes::Word(words) => Given::Text(words[words.len() - 1].to_owned()),
            Takes::Text => Given::Text("my_crate::bindery".to_owned()),
            Takes::Globs => Given::List(vec!["**/*.js".to_owned()]),
            Takes::Texts(_) => Given::List(vec![".well-known".to_owned()]),
            Takes::Words(words) => Given::List(vec![words[2].to_owned()]),
            Takes::Number(max) => Given::Number(max - 1),
            Takes::Size | Takes::Threshold => Given::Number(4096),
        }
    }

    #[test]
    fn every_option_reads_back_what_was_set() {
        for setting in SETTINGS {
            let value = given(setting.takes);
            let options = setting
                .set(Options::new("assets"), &value)
                .expect(setting.name);
            assert_eq!(setting.get(&options), value, "{}", setting.name);
            // A list set over a list replaces it (what `Options::parts` relies on to give a
            // further folder its own): the value before is not kept.
            if let Given::List(items) = &value {
                let other = Given::List(vec![items[0].clone()]);
                let twice = setting.set(options, &other).expect(setting.name);
                let twice = setting.set(twice, &other).expect(setting.name);
                assert_eq!(setting.get(&twice), other, "{} replaces", setting.name);
            }
            assert_ne!(
                setting.get(&Options::new("assets")),
                value,
                "{}: the default differs",
                setting.name
            );
        }
    }

    /// Each folder's own settings reach its part and only its part; the whole catalog's reach
    /// every part: `Options::parts` and the table's marks tell one story.
    #[test]
    fn every_setting_reaches_the_folders_its_mark_says() {
        let default_of = |setting: &Setting| setting.get(&Options::new("assets"));
        for setting in SETTINGS {
            let value = given(setting.takes);
            let (first, further) = if setting.per_folder {
                let folder = setting
                    .set(Options::new("web"), &value)
                    .expect(setting.name);
                (Options::new("assets"), folder)
            } else {
                let first = setting
                    .set(Options::new("assets"), &value)
                    .expect(setting.name);
                (first, Options::new("web"))
            };
            let parts = first.folder(further).parts();
            let [own, other] = &parts[..] else {
                panic!("two folders, two parts")
            };
            assert_eq!(other.root(), std::path::Path::new("web"));
            if setting.per_folder {
                assert_eq!(
                    setting.get(other),
                    value,
                    "{} reaches its folder",
                    setting.name
                );
                assert_eq!(
                    setting.get(own),
                    default_of(setting),
                    "{} stays there",
                    setting.name
                );
            } else {
                assert_eq!(setting.get(own), value, "{}", setting.name);
                assert_eq!(
                    setting.get(other),
                    value,
                    "{} holds for every folder",
                    setting.name
                );
            }
        }
    }
}
