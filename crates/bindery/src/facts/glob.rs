// Generated from crates/bindery-core/src/facts/glob.rs, which is the one to edit; then
// run `BINDERY_BLESS=1 cargo test -p bindery-core --test facts_copy`.
//! Globs as a catalog reads them: the build's `include`/`exclude`, dev mode's and the overlay's
//! filter and the service's per-path headers match catalog paths with one syntax and this one
//! implementation, so the same pattern picks the same files everywhere.
//!
//! The syntax is globset's (ripgrep's) as bindery has always used it, with `*` crossing `/`:
//! `?` one character, `*` any run of characters, `**` as a whole path component any number of
//! folders (`**/a.css` is `a.css` at any depth, none included; `a/**` everything below `a`;
//! `a/**/b` `b` any depth below `a`), `[abc]`, `[a-z]`, `[!a]` or `[^a]` one character of a set
//! or not, `{a,b}` either (nested groups too), `\` the next character as it is. A pattern is
//! compiled once (`compile_glob`) into a few tokens per alternative and matched without
//! backtracking blow-up (each token against each position at most once), with no regular
//! expression engine: globset's regex stack was most of a cold build. Property-tested against
//! globset (`tests/glob_semantics.rs`).

use super::glob_parse::{Node, Parser, Token, expand};

/// A pattern that is not a glob: the pattern, and what is wrong with it.
///
/// ```
/// let error = bindery_core::glob::compile_glob("a[").unwrap_err();
/// assert_eq!(error.glob, "a[");
/// assert!(error.to_string().starts_with("invalid glob `a[`: unclosed character class"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid glob `{glob}`: {message}")]
pub struct GlobError {
    /// The pattern as given.
    pub glob: String,
    /// What is wrong with it.
    pub message: String,
}

/// One compiled glob.
///
/// ```
/// let css = bindery_core::glob::compile_glob("**/*.css").unwrap();
/// assert!(css.is_match("style.css") && css.is_match("a/b/style.css"));
/// assert!(!css.is_match("style.cssx"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    alternatives: Vec<Vec<Token>>,
}

/// Compiles one glob, or the error naming it and what is wrong.
///
/// ```
/// assert!(bindery_core::glob::compile_glob("**/*.css").is_ok());
/// assert!(bindery_core::glob::compile_glob("a[").is_err());
/// ```
pub fn compile_glob(pattern: &str) -> Result<Glob, GlobError> {
    let bad = |message: &str| GlobError {
        glob: pattern.to_owned(),
        message: message.to_owned(),
    };
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser {
        chars: &chars,
        at: 0,
        depth: 0,
    };
    let sequence = parser.sequence().map_err(bad)?;
    if parser.at < chars.len() {
        return Err(bad(
            "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)",
        ));
    }
    // A pattern that is only `**/` (not in a group) is everything, as in globset.
    let sequence = match sequence.as_slice() {
        [Node::Token(Token::AnyFolders)] => vec![Node::Token(Token::Star)],
        _ => sequence,
    };
    let alternatives = expand(&sequence).map_err(bad)?;
    Ok(Glob {
        pattern: pattern.to_owned(),
        alternatives,
    })
}

impl Glob {
    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether `path` matches.
    pub fn is_match(&self, path: &str) -> bool {
        let text: Vec<char> = path.chars().collect();
        self.alternatives
            .iter()
            .any(|tokens| Matcher::new(tokens, &text).matches(0, 0))
    }
}

/// Several globs: a path matches when any does.
///
/// ```
/// use bindery_core::glob::{GlobSet, compile_glob};
/// let set = GlobSet::new(vec![compile_glob("*.js").unwrap(), compile_glob("*.css").unwrap()]);
/// assert!(set.is_match("a/app.css") && !set.is_match("index.html"));
/// assert!(!GlobSet::default().is_match("anything"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobSet {
    globs: Vec<Glob>,
}

impl GlobSet {
    /// The set of `globs`.
    pub fn new(globs: Vec<Glob>) -> GlobSet {
        GlobSet { globs }
    }

    /// Whether any glob matches `path`.
    pub fn is_match(&self, path: &str) -> bool {
        self.globs.iter().any(|glob| glob.is_match(path))
    }

    /// Whether the set has no glob.
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }
}

/// Matching one alternative's tokens against a path, each (token, position) tried once.
struct Matcher<'a> {
    tokens: &'a [Token],
    text: &'a [char],
    /// Pairs known not to match, `tokens.len() + 1` by `text.len() + 1`.
    failed: Vec<bool>,
}

impl<'a> Matcher<'a> {
    fn new(tokens: &'a [Token], text: &'a [char]) -> Self {
        Matcher {
            tokens,
            text,
            failed: vec![false; (tokens.len() + 1) * (text.len() + 1)],
        }
    }

    /// Whether `tokens[token..]` matches `text[at..]` whole.
    fn matches(&mut self, token: usize, at: usize) -> bool {
        let slot = token * (self.text.len() + 1) + at;
        if self.failed[slot] {
            return false;
        }
        let is_match = self.step(token, at);
        if !is_match {
            self.failed[slot] = true;
        }
        is_match
    }

    fn step(&mut self, token: usize, at: usize) -> bool {
        let Some(current) = self.tokens.get(token) else {
            return at == self.text.len();
        };
        let rest = &self.text[at..];
        match current {
            Token::Literal(expected) => {
                rest.first() == Some(expected) && self.matches(token + 1, at + 1)
            }
            Token::Any => !rest.is_empty() && self.matches(token + 1, at + 1),
            Token::Class { negated, ranges } => {
                rest.first().is_some_and(|c| {
                    ranges
                        .iter()
                        .any(|(first, last)| (*first..=*last).contains(c))
                        != *negated
                }) && self.matches(token + 1, at + 1)
            }
            Token::Star => (at..=self.text.len()).any(|next| self.matches(token + 1, next)),
            Token::SlashAnything => {
                rest.first() == Some(&'/')
                    && (at + 1..=self.text.len()).any(|next| self.matches(token + 1, next))
            }
            Token::AnyFolders => {
                self.matches(token + 1, at)
                    || (at..self.text.len())
                        .filter(|index| self.text[*index] == '/')
                        .any(|slash| self.matches(token + 1, slash + 1))
            }
            Token::SlashAnyFoldersSlash => {
                rest.first() == Some(&'/')
                    && (at..self.text.len())
                        .filter(|index| self.text[*index] == '/')
                        .any(|slash| self.matches(token + 1, slash + 1))
            }
        }
    }
}
