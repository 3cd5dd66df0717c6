//! A `Content-Security-Policy` that lets a page's own inline scripts run by hash: the build
//! records them (`script_hashes = true`), this adds them to the policy's `script-src`.

use std::fmt;

/// A `Content-Security-Policy` value with script hashes added to its `script-src`: start from
/// the policy you want, add the `'sha256-…'` sources of the page's inline scripts
/// ([`Catalog::script_hashes`](crate::Catalog::script_hashes)) and of the import map
/// ([`ServeCatalog::import_map_hash`](crate::serve::ServeCatalog::import_map_hash)), and send it.
/// Without a `script-src`, the hashes go into one that starts as a copy of `default-src`
/// (which it replaces for scripts), or as `'self'` when the policy has neither.
///
/// ```
/// use bindery::serve::Csp;
///
/// let policy = Csp::new("default-src 'self'; img-src 'self' data:")
///     .script_hashes(["'sha256-abc='", "'sha256-def='"])
///     .script_hashes(None::<&str>);
/// assert_eq!(
///     policy.to_string(),
///     "default-src 'self'; img-src 'self' data:; script-src 'self' 'sha256-abc=' 'sha256-def='"
/// );
/// let strict = Csp::new("script-src 'strict-dynamic'").script_hashes(["'sha256-abc='"]);
/// assert_eq!(strict.to_string(), "script-src 'strict-dynamic' 'sha256-abc='");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csp {
    /// Each directive's name (lowercase) and sources, in order.
    directives: Vec<(String, Vec<String>)>,
}

impl Csp {
    /// The policy `policy` (directives separated by `;`, sources by whitespace; empty
    /// directives dropped, names lowercased, a repeated directive ignored as browsers do).
    pub fn new(policy: &str) -> Self {
        let mut directives: Vec<(String, Vec<String>)> = Vec::new();
        for directive in policy.split(';') {
            let mut words = directive.split_ascii_whitespace();
            let Some(name) = words.next() else {
                continue;
            };
            let name = name.to_ascii_lowercase();
            if directives.iter().any(|(known, _)| *known == name) {
                continue;
            }
            directives.push((name, words.map(str::to_owned).collect()));
        }
        Csp { directives }
    }

    /// Adds `hashes` (CSP sources such as `'sha256-…'`) to `script-src`, each once.
    pub fn script_hashes<I>(self, hashes: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        self.add("script-src", hashes)
    }

    /// Adds `sources` to the directive `name`, each once. A missing directive starts as a copy
    /// of `default-src` (which it replaces for its kind), or as `'self'` without one.
    pub(crate) fn add<I>(mut self, name: &str, sources: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut sources = sources.into_iter().peekable();
        if sources.peek().is_none() {
            return self;
        }
        let at = match self.position(name) {
            Some(at) => at,
            None => {
                let start = self.position("default-src").map_or_else(
                    || vec!["'self'".to_owned()],
                    |at| self.directives[at].1.clone(),
                );
                self.directives.push((name.to_owned(), start));
                self.directives.len() - 1
            }
        };
        let known = &mut self.directives[at].1;
        for source in sources {
            let source = source.as_ref();
            if !known.iter().any(|known| known == source) {
                known.push(source.to_owned());
            }
        }
        // `'none'` with any other source is an error in browsers: the sources replace it.
        if known.len() > 1 {
            known.retain(|source| source != "'none'");
        }
        self
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.directives.iter().position(|(known, _)| known == name)
    }
}

impl fmt::Display for Csp {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (name, sources)) in self.directives.iter().enumerate() {
            if index > 0 {
                out.write_str("; ")?;
            }
            out.write_str(name)?;
            for source in sources {
                write!(out, " {source}")?;
            }
        }
        Ok(())
    }
}
