//! The HTML that loads a bundler's entry points (`manifest = "vite"`): an import map giving
//! the integrity of every chunk, the stylesheets, `modulepreload`s and the module script, each
//! with `integrity` and `crossorigin`; and the same preloads as a `Link` header, which a CDN
//! can turn into 103 Early Hints. The import map is made once per service (it holds the mount
//! point), with the CSP hash that lets it run under a policy without `'unsafe-inline'`.

use std::fmt::Write as _;

use crate::{Catalog, EmbeddedFile, Error};

/// An import map for a catalog's bundled scripts, with its CSP hash source.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImportMap {
    /// `<script type="importmap">…</script>`, or `""` when the catalog has no bundled script.
    pub(crate) tag: String,
    /// `'sha256-…'`: the CSP source that allows it (empty with no tag).
    pub(crate) hash: String,
}

impl ImportMap {
    /// The import map of `catalog` served under `url`.
    pub(crate) fn new(
        catalog: &Catalog,
        url: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, Error> {
        let scripts = catalog.bundled_scripts();
        if scripts.is_empty() {
            return Ok(ImportMap::default());
        }
        // Every character is safe in a JSON string and in a script element as it is: URLs are
        // percent-encoded (no `"`, `\`, `<` nor controls) and integrity is base64.
        let mut json = String::from(r#"{"integrity":{"#);
        for (index, path) in scripts.iter().enumerate() {
            let file = bundled(catalog, path)?;
            let link = url(path).ok_or(Error::NotBundled { path })?;
            if index > 0 {
                json.push(',');
            }
            let _ = write!(json, r#""{link}":"{}""#, integrity_of(file)?);
        }
        json.push_str("}}");
        Ok(ImportMap {
            tag: format!(r#"<script type="importmap">{json}</script>"#),
            hash: csp_hash(&json),
        })
    }
}

/// The file at a path the manifest names.
fn bundled(catalog: &Catalog, path: &'static str) -> Result<&'static EmbeddedFile, Error> {
    catalog.file(path).ok_or(Error::NotBundled { path })
}

/// A bundled file's integrity string (the build records one: `manifest` needs it).
fn integrity_of(file: &'static EmbeddedFile) -> Result<&'static str, Error> {
    file.integrity()
        .ok_or(Error::NoIntegrity { path: file.path() })
}

/// `'sha256-…'`: the CSP source that lets an inline script of this text run. A catalog has
/// bundled scripts only with a bundler's manifest, which needs the feature `vite` (generated
/// code asks for it), so without the feature there is no import map to hash.
#[cfg(feature = "vite")]
pub(crate) fn csp_hash(script: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(script.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[cfg(not(feature = "vite"))]
pub(crate) fn csp_hash(_script: &str) -> String {
    String::new()
}

/// The entries `names` of the site's catalog, or the error naming the one missing.
pub(crate) fn entries<'c>(
    catalog: &'c Catalog,
    names: &[&str],
) -> Result<Vec<crate::EntryPoint<'c>>, Error> {
    names
        .iter()
        .map(|name| {
            catalog.entry(name).ok_or_else(|| Error::NoEntry {
                name: (*name).to_owned(),
                entries: catalog
                    .entries()
                    .filter(|entry| entry.is_entry())
                    .map(|entry| entry.name())
                    .collect(),
            })
        })
        .collect()
}

/// What the entries need, each file once, in the order a page loads them: stylesheets, then
/// preloaded chunks, then the entry scripts.
fn needs(
    entries: &[crate::EntryPoint<'_>],
) -> (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    let mut styles = Vec::new();
    let mut preloads = Vec::new();
    let mut scripts = Vec::new();
    for entry in entries {
        for style in entry.styles() {
            if !styles.contains(style) {
                styles.push(*style);
            }
        }
        for chunk in entry.preloads() {
            if !preloads.contains(chunk) {
                preloads.push(*chunk);
            }
        }
        scripts.push(entry.script());
    }
    preloads.retain(|chunk| !scripts.contains(chunk));
    (styles, preloads, scripts)
}

/// The tags that load `names`: the import map, then each stylesheet, preload and script.
pub(crate) fn entry_tags(
    catalog: &Catalog,
    map: &ImportMap,
    url: &dyn Fn(&str) -> Option<String>,
    names: &[&str],
) -> Result<String, Error> {
    let (styles, preloads, scripts) = needs(&entries(catalog, names)?);
    let mut html = map.tag.clone();
    for (paths, open, close) in [
        (&styles, r#"<link rel="stylesheet" href=""#, ""),
        (&preloads, r#"<link rel="modulepreload" href=""#, ""),
        (&scripts, r#"<script type="module" src=""#, "</script>"),
    ] {
        for path in paths {
            let file = bundled(catalog, path)?;
            let link = url(path).ok_or(Error::NotBundled { path })?;
            let _ = write!(
                html,
                r#"{}{open}{link}" integrity="{}" crossorigin="anonymous">{close}"#,
                if html.is_empty() { "" } else { "\n" },
                integrity_of(file)?
            );
        }
    }
    Ok(html)
}

/// The `Link` header value that preloads what `names` need, with `integrity` when the tags
/// that use them have it (the browser uses a preload only when they match).
pub(crate) fn link_header(
    catalog: &Catalog,
    url: &dyn Fn(&str) -> Option<String>,
    names: &[&str],
    integrity: bool,
) -> Result<String, Error> {
    let (styles, mut preloads, scripts) = needs(&entries(catalog, names)?);
    preloads.splice(0..0, scripts);
    let mut value = String::new();
    for (paths, rel) in [
        (&styles, "rel=preload; as=style"),
        (&preloads, "rel=modulepreload"),
    ] {
        for path in paths {
            let file = bundled(catalog, path)?;
            let link = url(path).ok_or(Error::NotBundled { path })?;
            if !value.is_empty() {
                value.push_str(", ");
            }
            let _ = write!(value, "<{link}>; {rel}; crossorigin");
            if integrity {
                let _ = write!(value, "; integrity=\"{}\"", integrity_of(file)?);
            }
        }
    }
    Ok(value)
}

/// For each HTML file of the catalog that is itself a bundler entry (Vite's `index.html`), by
/// index: the `Link` header preloading what it loads. Without `integrity`: the bundler's own
/// HTML links its files without it, and a preload is used only when both agree.
pub(crate) fn entry_pages(
    catalog: &Catalog,
    url: &dyn Fn(&str) -> Option<String>,
) -> Vec<(usize, http::HeaderValue)> {
    if catalog.entries().len() == 0 || catalog.is_dev() {
        return Vec::new();
    }
    let mut pages = Vec::new();
    for (index, file) in catalog.files().iter().enumerate() {
        let is_entry = catalog
            .entry(file.path())
            .is_some_and(|entry| entry.is_entry());
        if file.mime() != "text/html" || !is_entry {
            continue;
        }
        if let Ok(value) =
            link_header(catalog, url, &[file.path()], false).map(http::HeaderValue::try_from)
            && let Ok(value) = value
        {
            pages.push((index, value));
        }
    }
    pages
}
