//! The rules that choose a catalog's files and what they record, shared by the build and the
//! runtime's dev mode: made by codegen from the options, written into generated code as one
//! text ([`Rules::to_text`]), read back by dev mode ([`Rules::parse`]), so that an option added
//! to them reaches dev mode without another argument anywhere.

use crate::Integrity;

/// Whether and how files carry a modification time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Modified {
    /// No time: builds are reproducible (the default).
    #[default]
    Off,
    /// Each file's own modification time (builds are then not reproducible).
    Files,
    /// One date for every file, the same for every build of a commit: `SOURCE_DATE_EPOCH`, else
    /// the last commit that touched the folder.
    SourceDateEpoch,
}

impl Modified {
    /// Every value, as the options spell them.
    pub const WORDS: [&'static str; 3] = ["false", "true", "source-date-epoch"];

    /// The value as the options spell it.
    ///
    /// ```
    /// use bindery_core::rules::Modified;
    /// assert_eq!(Modified::SourceDateEpoch.as_str(), "source-date-epoch");
    /// assert_eq!("true".parse(), Ok(Modified::Files));
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Modified::Off => "false",
            Modified::Files => "true",
            Modified::SourceDateEpoch => "source-date-epoch",
        }
    }
}

impl std::str::FromStr for Modified {
    type Err = String;

    fn from_str(text: &str) -> Result<Modified, String> {
        match text {
            "false" => Ok(Modified::Off),
            "true" => Ok(Modified::Files),
            "source-date-epoch" => Ok(Modified::SourceDateEpoch),
            other => Err(format!(
                "`modified` is `true`, `false` or \"source-date-epoch\", not {other:?}"
            )),
        }
    }
}

/// Which files of a folder a catalog holds, and what their entries record.
///
/// ```
/// use bindery_core::rules::{Modified, Rules};
/// let rules = Rules {
///     include: vec!["**/*.js".into()],
///     exclude: vec!["a\nb".into()],
///     hidden: true,
///     dotfiles: vec![".well-known".into()],
///     types: vec!["LICENSE=text/plain".into()],
///     modified: Modified::SourceDateEpoch,
///     date: Some(1_700_000_000),
///     ..Rules::default()
/// };
/// assert_eq!(Rules::parse(&rules.to_text()), Ok(rules));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rules {
    /// Include globs (empty: every file).
    pub include: Vec<String>,
    /// Exclude globs; exclude wins.
    pub exclude: Vec<String>,
    /// Whether names starting with `.` are embedded.
    pub hidden: bool,
    /// Names starting with `.` embedded even when `hidden` is not (`.well-known`): a file or a
    /// folder of that name, at any depth; every other dotfile stays out.
    pub dotfiles: Vec<String>,
    /// Media types chosen by path, `glob=type` (`.well-known/apple-app-site-association=
    /// application/json`); the first rule that matches wins over the guess from the extension.
    pub types: Vec<String>,
    /// Whether `.gitignore` and `.ignore` files are honoured.
    pub gitignore: bool,
    /// Whether precompressed siblings (`.br`, `.gz`, `.zst` beside a file) are its variants
    /// rather than files.
    pub siblings: bool,
    /// Whether and how modification times are recorded.
    pub modified: Modified,
    /// The one date of every file under [`Modified::SourceDateEpoch`], once resolved.
    pub date: Option<u64>,
    /// The algorithm of the integrity strings (with SHA-256), or `None`: no integrity recorded.
    pub integrity: Option<Integrity>,
}

impl Rules {
    /// The rules as one text: a `name=value` line per rule (lists repeat their name), values
    /// with `\` and newlines escaped. Deterministic: the same rules give the same text.
    pub fn to_text(&self) -> String {
        let mut lines = Vec::new();
        lines.extend(self.include.iter().map(|glob| ("include", glob.clone())));
        lines.extend(self.exclude.iter().map(|glob| ("exclude", glob.clone())));
        lines.push(("hidden", self.hidden.to_string()));
        lines.extend(self.dotfiles.iter().map(|name| ("dotfile", name.clone())));
        lines.extend(self.types.iter().map(|rule| ("type", rule.clone())));
        lines.push(("gitignore", self.gitignore.to_string()));
        lines.push(("siblings", self.siblings.to_string()));
        lines.push(("modified", self.modified.as_str().to_owned()));
        if let Some(date) = self.date {
            lines.push(("date", date.to_string()));
        }
        lines.push((
            "integrity",
            self.integrity.map_or("false", Integrity::as_str).to_owned(),
        ));
        lines
            .into_iter()
            .map(|(name, value)| format!("{name}={}\n", escape(&value)))
            .collect()
    }

    /// Rules from [`to_text`](Self::to_text)'s text; an error names the line it cannot read.
    pub fn parse(text: &str) -> Result<Rules, String> {
        let mut rules = Rules::default();
        for line in text.lines().filter(|line| !line.is_empty()) {
            let (name, value) = line
                .split_once('=')
                .ok_or_else(|| format!("not a rule: {line:?}"))?;
            let value = unescape(value);
            let flag = |value: &str| match value {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("not a boolean: {line:?}")),
            };
            match name {
                "include" => rules.include.push(value),
                "exclude" => rules.exclude.push(value),
                "hidden" => rules.hidden = flag(&value)?,
                "dotfile" => rules.dotfiles.push(value),
                "type" => rules.types.push(value),
                "gitignore" => rules.gitignore = flag(&value)?,
                "siblings" => rules.siblings = flag(&value)?,
                "modified" => rules.modified = value.parse()?,
                "date" => {
                    rules.date = Some(value.parse().map_err(|_| format!("not a date: {line:?}"))?)
                }
                "integrity" if value == "false" => rules.integrity = None,
                "integrity" => {
                    rules.integrity = Some(value.parse().map_err(|error| format!("{error}"))?)
                }
                _ => return Err(format!("unknown rule: {line:?}")),
            }
        }
        Ok(rules)
    }

    /// What identifies the files a folder gives under these rules, whatever they record: the
    /// folder, the globs, hidden files, ignore files. Derived from the rules, so that a rule
    /// that changes which files are kept changes the key.
    pub fn scan_key(&self, root: &std::path::Path) -> String {
        let chosen = Rules {
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            hidden: self.hidden,
            dotfiles: self.dotfiles.clone(),
            gitignore: self.gitignore,
            ..Rules::default()
        };
        format!("{}\0{}", root.display(), chosen.to_text())
    }
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(char) = chars.next() {
        match (char, chars.clone().next()) {
            ('\\', Some('n')) => {
                out.push('\n');
                chars.next();
            }
            ('\\', Some('\\')) => {
                out.push('\\');
                chars.next();
            }
            (char, _) => out.push(char),
        }
    }
    out
}
