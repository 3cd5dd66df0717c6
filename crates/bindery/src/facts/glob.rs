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

/// At most this many alternatives one pattern's `{…}` groups may expand to.
const MAX_ALTERNATIVES: usize = 256;

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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// `?`.
    Any,
    /// `*` (and `**` that is not a whole component): any run, `/` included.
    Star,
    /// `**/` at the start: nothing, or any run ending with `/`.
    AnyFolders,
    /// `/**/` inside: `/`, or `/`, any run, `/`.
    SlashAnyFoldersSlash,
    /// `/**` at the end of a sequence: `/` and any run.
    SlashAnything,
    /// `[…]`: one character in (or, negated, not in) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
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

/// A parsed pattern: tokens and groups of alternatives.
#[derive(Debug, Clone)]
enum Node {
    Token(Token),
    Group(Vec<Vec<Node>>),
}

/// A recursive-descent reading of a pattern, `**` decided as globset decides it: recursive when
/// it is a whole component of its sequence (the pattern, or an alternative of a group).
struct Parser<'a> {
    chars: &'a [char],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    /// A sequence, up to the end, or (in a group) a `,` or `}` left for the caller.
    fn sequence(&mut self) -> Result<Vec<Node>, &'static str> {
        let mut out = Vec::new();
        while let Some(&next) = self.chars.get(self.at) {
            match next {
                ',' | '}' if self.depth > 0 => break,
                '}' => {
                    return Err(
                        "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)",
                    );
                }
                '\\' => {
                    let escaped = *self.chars.get(self.at + 1).ok_or("dangling '\\'")?;
                    out.push(Node::Token(Token::Literal(escaped)));
                    self.at += 2;
                }
                '?' => {
                    out.push(Node::Token(Token::Any));
                    self.at += 1;
                }
                '*' => self.star(&mut out),
                '[' => {
                    let end = class_end(self.chars, self.at)
                        .ok_or("unclosed character class; missing ']'")?;
                    out.push(Node::Token(class(&self.chars[self.at + 1..end])?));
                    self.at = end + 1;
                }
                '{' => {
                    self.at += 1;
                    self.depth += 1;
                    let mut alternatives = vec![self.sequence()?];
                    loop {
                        match self.chars.get(self.at) {
                            Some(',') => {
                                self.at += 1;
                                alternatives.push(self.sequence()?);
                            }
                            Some('}') => {
                                self.at += 1;
                                break;
                            }
                            _ => {
                                return Err(
                                    "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)",
                                );
                            }
                        }
                    }
                    self.depth -= 1;
                    if alternatives
                        .iter()
                        .any(|alternative| !alternative.is_empty())
                    {
                        // An empty alternative is dropped, as globset does (`{,a}` is `{a}`).
                        alternatives.retain(|alternative| !alternative.is_empty());
                    }
                    out.push(Node::Group(alternatives));
                }
                other => {
                    out.push(Node::Token(Token::Literal(other)));
                    self.at += 1;
                }
            }
        }
        Ok(out)
    }

    /// A `*` or `**` at `at`, added to `out` (the sequence so far).
    fn star(&mut self, out: &mut Vec<Node>) {
        let previous = self.at.checked_sub(1).map(|at| self.chars[at]);
        self.at += 1;
        if self.chars.get(self.at) != Some(&'*') {
            out.push(Node::Token(Token::Star));
            return;
        }
        self.at += 1;
        let next = self.chars.get(self.at).copied();
        let in_group = self.depth > 0;
        let ends_component =
            next.is_none_or(|next| next == '/' || (in_group && (next == ',' || next == '}')));
        if out.is_empty() {
            if next.is_none_or(|next| next == '/') {
                if next == Some('/') {
                    self.at += 1;
                }
                out.push(Node::Token(Token::AnyFolders));
            } else {
                out.push(Node::Token(Token::Star));
            }
            return;
        }
        let follows_separator =
            previous == Some('/') || (in_group && matches!(previous, Some(',' | '{')));
        if !follows_separator || !ends_component {
            out.push(Node::Token(Token::Star));
            return;
        }
        let is_suffix = next != Some('/');
        if !is_suffix {
            self.at += 1;
        }
        match out.pop() {
            Some(Node::Token(Token::AnyFolders)) => out.push(Node::Token(Token::AnyFolders)),
            Some(Node::Token(Token::SlashAnything)) => out.push(Node::Token(Token::SlashAnything)),
            // The `/` before it (a literal, or the end of a `/**/` just read) is part of the new
            // token: `/**/**` is `/**`, `a/**/**/b` is `a/**/b`.
            _ => out.push(Node::Token(if is_suffix {
                Token::SlashAnything
            } else {
                Token::SlashAnyFoldersSlash
            })),
        }
    }
}

/// Every alternative of a parsed sequence, as tokens, groups expanded.
fn expand(sequence: &[Node]) -> Result<Vec<Vec<Token>>, &'static str> {
    let mut results = vec![Vec::new()];
    for node in sequence {
        match node {
            Node::Token(token) => {
                for result in &mut results {
                    result.push(token.clone());
                }
            }
            Node::Group(alternatives) => {
                let mut expanded = Vec::new();
                for alternative in alternatives {
                    for tail in expand(alternative)? {
                        for result in &results {
                            let mut joined = result.clone();
                            joined.extend(tail.iter().cloned());
                            expanded.push(joined);
                            if expanded.len() > MAX_ALTERNATIVES {
                                return Err(
                                    "too many alternatives ({…} groups expand to over 256)",
                                );
                            }
                        }
                    }
                }
                results = expanded;
            }
        }
    }
    Ok(results)
}

/// Where the class opening at `start` (`[`) closes: a `]` right after `[`, `[!` or `[^` is a
/// member, not the end.
fn class_end(chars: &[char], start: usize) -> Option<usize> {
    let mut at = start + 1;
    if matches!(chars.get(at), Some('!' | '^')) {
        at += 1;
    }
    if chars.get(at) == Some(&']') {
        at += 1;
    }
    (at..chars.len()).find(|&index| chars[index] == ']')
}

/// A class from what lies between its brackets.
fn class(inner: &[char]) -> Result<Token, &'static str> {
    let negated = matches!(inner.first(), Some('!' | '^'));
    let members = if negated { &inner[1..] } else { inner };
    let mut ranges = Vec::new();
    let mut at = 0;
    while at < members.len() {
        let first = members[at];
        if members.get(at + 1) == Some(&'-') && at + 2 < members.len() {
            let last = members[at + 2];
            if first > last {
                return Err("invalid range; the first is past the last");
            }
            ranges.push((first, last));
            at += 3;
        } else {
            ranges.push((first, first));
            at += 1;
        }
    }
    Ok(Token::Class { negated, ranges })
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

#[cfg(test)]
mod tests {
    use super::compile_glob;

    #[test]
    fn the_documented_forms_match_as_globset_does() {
        let cases = [
            ("**", "a/b", true),
            ("**", "", true),
            ("a/**", "a", false),
            ("a/**", "a/b/c", true),
            ("a/**", "a/", true),
            ("**/b", "b", true),
            ("**/b", "x/y/b", true),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("a/**/b", "ab", false),
            ("a**b", "a/x/b", true),
            ("*.css", "d/x.css", true),
            ("?", "/", true),
            ("[!a]", "/", true),
            ("[^a]", "b", true),
            ("[]a]", "]", true),
            ("{a,b}", "b", true),
            ("{a,{b,c}}", "c", true),
            ("a\\*", "a*", true),
            ("a\\*", "ab", false),
            ("**a", "x/a", true),
            ("{}", "", true),
            ("{,a}", "", false),
            ("[a/b]", "/", true),
            ("{*.js,*.css}", "x/y.css", true),
        ];
        for (pattern, path, expected) in cases {
            let glob = compile_glob(pattern).expect(pattern);
            assert_eq!(glob.is_match(path), expected, "{pattern} against {path:?}");
        }
        for bad in ["a\\", "[a-", "{a,b", "a[]", "[z-a]", "a}"] {
            assert!(compile_glob(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_long_path_with_many_stars_matches_in_polynomial_time() {
        let glob = compile_glob("*a*a*a*a*a*a*a*a*b").expect("glob");
        let path = "a".repeat(2_000);
        assert!(!glob.is_match(&path));
    }
}
