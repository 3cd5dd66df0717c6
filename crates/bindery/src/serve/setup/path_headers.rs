//! Per-path response headers ([`Builder::headers`](crate::serve::Builder::headers)): globs over
//! catalog paths, each with headers to add (CORS, `Content-Security-Policy`,
//! `Strict-Transport-Security`, `Referrer-Policy`, …). Checked and compiled when the service is
//! built, and resolved then for every file of the catalog: a request only copies the prepared
//! values. Files read from disk (dev mode, an overlay) are resolved when they are read.

use crate::facts::glob::Glob;
use http::HeaderValue;
use http::header::{self, HeaderName};

use crate::serve::setup::build_error::BuildError;

/// Headers the service writes itself, from the file and the request: set through other
/// settings ([`Builder::cache_control`](crate::serve::Builder::cache_control)) or never by hand.
const OWNED: [HeaderName; 15] = [
    header::ACCEPT_RANGES,
    header::CACHE_CONTROL,
    header::CONNECTION,
    header::CONTENT_ENCODING,
    header::CONTENT_LENGTH,
    header::CONTENT_RANGE,
    header::CONTENT_TYPE,
    header::DATE,
    header::ETAG,
    header::LAST_MODIFIED,
    header::LOCATION,
    header::TRANSFER_ENCODING,
    header::UPGRADE,
    header::VARY,
    header::X_CONTENT_TYPE_OPTIONS,
];

/// Whether the service writes `name` itself (a per-path header or a page's header of that name
/// would be refused or left out).
pub(crate) fn is_written_by_the_service(name: &HeaderName) -> bool {
    OWNED.contains(name)
}

fn compile(glob: &str) -> Result<Glob, BuildError> {
    crate::facts::glob::compile_glob(glob).map_err(|error| BuildError::BadGlob {
        glob: glob.to_owned(),
        message: error.to_string(),
    })
}

/// Whether `value` reads as a media type: `type/subtype` of token characters, then any
/// parameters.
fn is_media_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default().trim();
    let token = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&byte))
    };
    essence
        .split_once('/')
        .is_some_and(|(kind, subtype)| token(kind) && token(subtype))
}

/// The headers to add, by glob, in the order they were given, and the `Content-Type`s
/// chosen by glob ([`Builder::content_type`](crate::serve::Builder::content_type)).
#[derive(Debug, Default)]
pub(crate) struct PathHeaders {
    rules: Vec<Rule>,
    types: Vec<(Glob, HeaderValue)>,
}

#[derive(Debug)]
struct Rule {
    matcher: Glob,
    headers: Vec<(HeaderName, HeaderValue)>,
}

/// What [`Builder::headers`](crate::serve::Builder::headers) was given, checked at build.
pub(crate) type Given = Vec<(String, Vec<(String, String)>)>;

impl PathHeaders {
    /// The rules `given` and the media `types` by glob, or the first that is wrong: a glob
    /// that does not compile, a name or value that is not a valid header, a header the service
    /// writes itself, a value that is not a media type.
    pub(crate) fn compile(
        given: Given,
        types: Vec<(String, String)>,
    ) -> Result<PathHeaders, BuildError> {
        let mut chosen_types = Vec::with_capacity(types.len());
        for (glob, media_type) in types {
            let matcher = compile(&glob)?;
            let value = HeaderValue::try_from(media_type.as_str())
                .ok()
                .filter(|_| is_media_type(&media_type))
                .ok_or_else(|| BuildError::BadHeader {
                    glob: glob.clone(),
                    name: header::CONTENT_TYPE.to_string(),
                    reason: "not a media type (`type/subtype`, parameters after `;`)",
                })?;
            chosen_types.push((matcher, value));
        }
        let mut rules = Vec::with_capacity(given.len());
        for (glob, headers) in given {
            let matcher = compile(&glob)?;
            let mut parsed = Vec::with_capacity(headers.len());
            for (name, value) in headers {
                let bad = |reason: &'static str| BuildError::BadHeader {
                    glob: glob.clone(),
                    name: name.clone(),
                    reason,
                };
                let header =
                    HeaderName::try_from(name.as_str()).map_err(|_| bad("not a header name"))?;
                if OWNED.contains(&header) {
                    return Err(bad(
                        "the service writes it itself (`Cache-Control`: Builder::cache_control)",
                    ));
                }
                let value = HeaderValue::try_from(value.as_str())
                    .map_err(|_| bad("its value is not a valid header value"))?;
                parsed.push((header, value));
            }
            rules.push(Rule {
                matcher,
                headers: parsed,
            });
        }
        Ok(PathHeaders {
            rules,
            types: chosen_types,
        })
    }

    /// The `Content-Type` the last type rule matching catalog path `path` chose, if one does.
    pub(crate) fn content_type(&self, path: &str) -> Option<HeaderValue> {
        self.types
            .iter()
            .rev()
            .find(|(matcher, _)| matcher.is_match(path))
            .map(|(_, value)| value.clone())
    }

    /// The headers for the file at catalog path `path`: those of every rule whose glob
    /// matches it, in order; a header that several matching rules name takes the last one's
    /// values (a narrower rule given after a broad one refines it). Empty (no allocation) when
    /// none matches.
    pub(crate) fn for_path(&self, path: &str) -> Box<[(HeaderName, HeaderValue)]> {
        let mut chosen: Vec<(HeaderName, HeaderValue)> = Vec::new();
        for rule in self.rules.iter().filter(|rule| rule.matcher.is_match(path)) {
            chosen.retain(|(name, _)| !rule.headers.iter().any(|(named, _)| named == name));
            chosen.extend(rule.headers.iter().cloned());
        }
        chosen.into_boxed_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::PathHeaders;
    use crate::serve::BuildError;

    fn rules(given: &[(&str, &[(&str, &str)])]) -> Result<PathHeaders, BuildError> {
        PathHeaders::compile(
            given
                .iter()
                .map(|(glob, headers)| {
                    let headers = headers
                        .iter()
                        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                        .collect();
                    ((*glob).to_owned(), headers)
                })
                .collect(),
            Vec::new(),
        )
    }

    #[test]
    fn a_later_rule_replaces_what_an_earlier_one_set_and_adds_the_rest() {
        let rules = rules(&[
            (
                "**",
                &[
                    ("referrer-policy", "no-referrer"),
                    ("x-frame-options", "DENY"),
                ],
            ),
            (
                "*.html",
                &[("x-frame-options", "SAMEORIGIN"), ("link", "</a.js>")],
            ),
            ("*.html", &[("link", "</b.css>")]),
        ])
        .expect("valid");
        let page = rules.for_path("docs/index.html");
        let names: Vec<(&str, &str)> = page
            .iter()
            .map(|(name, value)| (name.as_str(), value.to_str().expect("text")))
            .collect();
        assert_eq!(
            names,
            [
                ("referrer-policy", "no-referrer"),
                ("x-frame-options", "SAMEORIGIN"),
                ("link", "</b.css>")
            ]
        );
        assert_eq!(rules.for_path("app.js").len(), 2);
        assert!(
            rules
                .for_path("app.js")
                .iter()
                .all(|(name, _)| name != "link")
        );
    }

    #[test]
    fn bad_globs_names_values_and_owned_headers_are_refused_naming_them() {
        let error = rules(&[("a[", &[("x-a", "1")])]).expect_err("bad glob");
        assert!(matches!(error, BuildError::BadGlob { ref glob, .. } if glob == "a["));
        for (name, value) in [("bad name", "1"), ("x-a", "line\nbreak"), ("ETag", "\"x\"")] {
            let error = rules(&[("**", &[(name, value)])]).expect_err(name);
            assert!(
                matches!(error, BuildError::BadHeader { name: ref named, .. } if named == name),
                "{error}"
            );
            assert!(error.to_string().contains(name), "{error}");
        }
    }
}
