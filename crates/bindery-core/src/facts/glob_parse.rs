//! Reading a glob: the pattern parsed into tokens and groups (`**` decided as globset decides
//! it), and the groups expanded into alternatives, for [`glob`](super::glob) to match.

/// At most this many alternatives one pattern's `{…}` groups may expand to.
const MAX_ALTERNATIVES: usize = 256;

/// One step of a compiled alternative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
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

/// A parsed pattern: tokens and groups of alternatives.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Token(Token),
    Group(Vec<Vec<Node>>),
}

/// A recursive-descent reading of a pattern, `**` decided as globset decides it: recursive when
/// it is a whole component of its sequence (the pattern, or an alternative of a group).
pub(crate) struct Parser<'a> {
    pub(crate) chars: &'a [char],
    pub(crate) at: usize,
    pub(crate) depth: usize,
}

impl Parser<'_> {
    /// A sequence, up to the end, or (in a group) a `,` or `}` left for the caller.
    pub(crate) fn sequence(&mut self) -> Result<Vec<Node>, &'static str> {
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
pub(crate) fn expand(sequence: &[Node]) -> Result<Vec<Vec<Token>>, &'static str> {
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
