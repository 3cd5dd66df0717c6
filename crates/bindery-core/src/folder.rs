//! The folder argument: `$VAR` and `${VAR}` replaced by environment variables at build time, so
//! that `embed!("$OUT_DIR/dist")` embeds what a build script wrote.

use crate::Error;

/// A folder argument with its variables replaced, and the names it used (for rebuild tracking:
/// the macro names each with `env!`, a build script prints `rerun-if-env-changed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The folder with every variable replaced.
    pub path: String,
    /// The variables it named, in order of first use, each once.
    pub variables: Vec<String>,
}

/// Replaces `$NAME` and `${NAME}` in `folder` by `lookup(NAME)`; `$$` is a literal `$`. A name
/// is ASCII letters, digits and `_`, not starting with a digit. An unset variable (`lookup`
/// gives `None`) is [`Error::UnsetVariable`]; a `$` before no name or an unclosed `${` is
/// [`Error::FolderSyntax`].
///
/// ```
/// use bindery_core::folder::expand;
///
/// let lookup = |name: &str| (name == "OUT_DIR").then(|| "/tmp/out".to_owned());
/// let expanded = expand("$OUT_DIR/dist", lookup).unwrap();
/// assert_eq!(expanded.path, "/tmp/out/dist");
/// assert_eq!(expanded.variables, ["OUT_DIR"]);
/// assert_eq!(expand("${OUT_DIR}x/$$literal", lookup).unwrap().path, "/tmp/outx/$literal");
/// assert_eq!(
///     expand("$NOPE/dist", lookup).unwrap_err().to_string(),
///     "folder `$NOPE/dist`: environment variable `NOPE` is not set"
/// );
/// ```
pub fn expand(folder: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<Expanded, Error> {
    let mut path = String::with_capacity(folder.len());
    let mut variables: Vec<String> = Vec::new();
    let mut rest = folder;
    let syntax = |reason: String| Error::FolderSyntax {
        folder: folder.to_owned(),
        reason,
    };
    while let Some(dollar) = rest.find('$') {
        path.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, next) = if let Some(escaped) = after.strip_prefix('$') {
            path.push('$');
            rest = escaped;
            continue;
        } else if let Some(braced) = after.strip_prefix('{') {
            let close = braced
                .find('}')
                .ok_or_else(|| syntax("`${` without its `}`".to_owned()))?;
            (&braced[..close], &braced[close + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if !is_name(name) {
            return Err(syntax(if name.is_empty() {
                "a `$` before no variable name".to_owned()
            } else {
                format!("`{name}` is not a variable name")
            }));
        }
        let value = lookup(name).ok_or_else(|| Error::UnsetVariable {
            folder: folder.to_owned(),
            name: name.to_owned(),
        })?;
        path.push_str(&value);
        if !variables.iter().any(|known| known == name) {
            variables.push(name.to_owned());
        }
        rest = next;
    }
    path.push_str(rest);
    Ok(Expanded { path, variables })
}

/// [`expand`] with the process's environment (a variable that is not UTF-8 counts as unset).
///
/// ```
/// let expanded = bindery_core::folder::expand_env("assets/spa").unwrap();
/// assert_eq!(expanded.path, "assets/spa");
/// assert!(expanded.variables.is_empty());
/// ```
pub fn expand_env(folder: &str) -> Result<Expanded, Error> {
    expand(folder, |name| std::env::var(name).ok())
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::expand;

    fn lookup(name: &str) -> Option<String> {
        match name {
            "A" => Some("one".to_owned()),
            "B_2" => Some("two".to_owned()),
            _ => None,
        }
    }

    #[test]
    fn replaces_each_form_and_records_each_name_once() {
        let expanded = expand("$A/${B_2}/$A.x/${A}y", lookup).expect("expands");
        assert_eq!(expanded.path, "one/two/one.x/oney");
        assert_eq!(expanded.variables, ["A", "B_2"]);
    }

    #[test]
    fn a_path_without_dollar_is_unchanged() {
        let expanded = expand("assets/spa dir/ü", lookup).expect("expands");
        assert_eq!(expanded.path, "assets/spa dir/ü");
        assert!(expanded.variables.is_empty());
    }

    #[test]
    fn refuses_bad_syntax_with_a_reason() {
        for (folder, reason) in [
            ("a/$", "a `$` before no variable name"),
            ("a/$/b", "a `$` before no variable name"),
            ("${A", "`${` without its `}`"),
            ("${}", "a `$` before no variable name"),
            ("${1A}", "`1A` is not a variable name"),
            ("${A-b}", "`A-b` is not a variable name"),
        ] {
            let error = expand(folder, lookup).expect_err("refused").to_string();
            assert!(error.contains(reason), "{folder}: {error}");
            assert!(error.contains("`$$`"), "{error}");
        }
    }

    #[test]
    fn names_the_unset_variable() {
        let error = expand("$A/$MISSING/x", lookup).expect_err("refused");
        assert!(matches!(
            error,
            crate::Error::UnsetVariable { ref name, .. } if name == "MISSING"
        ));
    }
}
