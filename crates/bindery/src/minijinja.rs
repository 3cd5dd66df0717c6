//! Server-rendered pages from embedded templates: a minijinja loader that reads a catalog
//! (following dev mode, so an edited template shows on the next request), and the `url()` and
//! `integrity()` functions a page uses to link the assets of another catalog by their
//! fingerprinted URLs with Subresource Integrity.
//!
//! ```
//! use bindery::minijinja::Templates;
//! use bindery::serve::ServeCatalog;
//!
//! static PAGES: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = "**/*.html");
//! static ASSETS: bindery::Catalog =
//!     bindery::embed!("../../assets/fixtures", fingerprint = true, integrity = true);
//!
//! let assets = ServeCatalog::builder(&ASSETS).mounted_at("/static").build().expect("a valid setup");
//! let templates = Templates::new(&PAGES).with_assets(&assets);
//! let page = templates
//!     .render_str(r#"<link rel="stylesheet" href="{{ url('style.css') }}" integrity="{{ integrity('style.css') }}">"#, ())
//!     .unwrap();
//! assert!(page.contains(r#"href="/static/style."#) && page.contains(r#"integrity="sha384-"#));
//!
//! // A typo is an error, not a link to a 404:
//! let error = templates.render_str("{{ url('styles.css') }}", ()).unwrap_err();
//! assert!(error.to_string().contains("no file `styles.css`"), "{error}");
//! ```
//!
//! With a catalog built from a bundler's output with `manifest = "vite"`, `vite_entry("…")`
//! writes every tag an entry point needs (the import map with the integrity of every chunk,
//! stylesheets, `modulepreload`s, the module script: [`ServeCatalog::entry_tags`]):
//!
//! ```
//! # use bindery::{minijinja::Templates, serve::ServeCatalog};
//! # static PAGES: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = "**/*.html");
//! static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
//! let templates = Templates::new(&PAGES).with_assets(&ServeCatalog::new(&DIST));
//! let head = templates.render_str(r#"<head>{{ vite_entry("index.html") }}</head>"#, ()).unwrap();
//! assert!(head.contains(r#"<script type="module" src="/assets/index-Bq3xK9aZ.js" integrity="sha384-"#));
//! assert!(templates.render_str(r#"{{ vite_entry("main.js") }}"#, ()).is_err());
//! ```
//!
//! Typos in templates are caught before they ship by [`check_urls`], called from a test, which
//! reads every template of the catalog and fails naming each `url("…")` or `integrity("…")`
//! whose file does not exist, and each `vite_entry("…")` whose entry no manifest lists.
//! (A compile-time check would need the macro to parse templates;
//! a test that renders nothing yet covers every template is as early in practice and does not
//! tie the macro to one template language.)

use std::sync::Arc;

use minijinja::value::Rest;
use minijinja::{Environment, Error, ErrorKind, Value};

use crate::Catalog;
use crate::serve::ServeCatalog;

/// A minijinja loader that reads templates from `catalog`: a template's name is its catalog
/// path. In dev mode the catalog reads the disk, so a new [`Environment`] sees edits;
/// [`Templates`] makes one per render in dev mode.
///
/// ```
/// static PAGES: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = "**/*.html");
/// let mut env = minijinja::Environment::new();
/// env.set_loader(bindery::minijinja::loader(&PAGES));
/// assert!(env.get_template("index.html").is_ok());
/// assert!(env.get_template("missing.html").is_err());
/// ```
pub fn loader(
    catalog: &'static Catalog,
) -> impl Fn(&str) -> Result<Option<String>, Error> + Send + Sync + 'static {
    move |name| {
        let Some(bytes) = catalog.get(name) else {
            return Ok(None);
        };
        String::from_utf8(bytes.into_owned())
            .map(Some)
            .map_err(|_| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("template `{name}` is not UTF-8"),
                )
            })
    }
}

/// The asset catalogs whose files `url()` and `integrity()` name.
#[derive(Clone, Default)]
struct Assets(Arc<Vec<ServeCatalog>>);

impl Assets {
    /// The first catalog holding `path`, with the file.
    fn find(&self, path: &str) -> Option<(&ServeCatalog, &'static crate::EmbeddedFile)> {
        self.0.iter().find_map(|service| {
            let file = service.catalog().file(path)?;
            Some((service, file))
        })
    }

    fn missing(&self, path: &str) -> Error {
        let catalogs: Vec<&Catalog> = self.0.iter().map(ServeCatalog::catalog).collect();
        Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "no file `{path}` in the asset catalogs{}",
                near_suggestion(&catalogs, path)
            ),
        )
    }

    /// Safe for HTML as it is (percent-encoded, `&`, `'`, `"`, `<` and `>` included), so
    /// auto-escaping leaves it alone.
    fn url(&self, path: &str) -> Result<Value, Error> {
        self.find(path)
            .and_then(|(service, _)| service.url(path))
            .map(Value::from_safe_string)
            .ok_or_else(|| self.missing(path))
    }

    /// `sha384-` and base64: safe for HTML as it is. A catalog built with `integrity = false`
    /// has none to give: an error naming the file.
    fn integrity(&self, path: &str) -> Result<Value, Error> {
        let (_, file) = self.find(path).ok_or_else(|| self.missing(path))?;
        let integrity = file.integrity().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "`{path}` has no integrity: its catalog records none (add `integrity = true`)"
                ),
            )
        })?;
        Ok(Value::from_safe_string(integrity.to_owned()))
    }

    /// The tags of `ServeCatalog::entry_tags`, from the first catalog whose bundler manifest
    /// lists the first entry; safe HTML (URLs percent-encoded, integrity base64).
    fn vite_entry(&self, names: &[String]) -> Result<Value, Error> {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let Some(first) = names.first() else {
            return Err(Error::new(
                ErrorKind::MissingArgument,
                "vite_entry() needs the name of an entry, such as \"index.html\"",
            ));
        };
        let service = self
            .0
            .iter()
            .find(|service| service.catalog().entry(first).is_some())
            .or_else(|| self.0.first())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    "vite_entry(): no asset catalog",
                )
            })?;
        service
            .entry_tags(&names)
            .map(Value::from_safe_string)
            .map_err(|error| Error::new(ErrorKind::InvalidOperation, error.to_string()))
    }
}

/// Adds `url(path)` and `integrity(path)` to `env`, for the files of `assets` (each served
/// where it is mounted): `url` gives the absolute URL path (fingerprinted with
/// `fingerprint = true`), `integrity` the SRI string; both fail the render on a path that is
/// not in any of the catalogs.
///
/// ```
/// static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
/// let mut env = minijinja::Environment::new();
/// bindery::minijinja::add_functions(&mut env, [bindery::serve::ServeCatalog::new(&ASSETS)]);
/// let url = env.render_str("{{ url('app.js') }}", ()).unwrap();
/// assert_eq!(url, format!("/{}", ASSETS.url("app.js").unwrap()));
/// ```
pub fn add_functions(env: &mut Environment<'_>, assets: impl IntoIterator<Item = ServeCatalog>) {
    install(env, &Assets(Arc::new(assets.into_iter().collect())));
}

fn install(env: &mut Environment<'_>, assets: &Assets) {
    let urls = assets.clone();
    env.add_function("url", move |path: &str| urls.url(path));
    let integrities = assets.clone();
    env.add_function("integrity", move |path: &str| integrities.integrity(path));
    let entries = assets.clone();
    env.add_function("vite_entry", move |names: Rest<String>| {
        entries.vite_entry(&names)
    });
}

/// What [`Templates::with_setup`] runs on each environment.
type Setup = dyn Fn(&mut Environment<'static>) + Send + Sync;

/// Templates read from a catalog, with `url()` and `integrity()` for asset catalogs, rendered
/// with one [`Environment`] built once, or, when the template catalog is in dev mode, a fresh
/// one per render so that edits show at once.
///
/// ```
/// static PAGES: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = "**/*.html");
/// let templates = bindery::minijinja::Templates::new(&PAGES);
/// let page = templates.render("index.html", ()).unwrap();
/// assert!(page.contains("<html"));
/// ```
pub struct Templates {
    catalog: &'static Catalog,
    assets: Assets,
    setup: Option<Arc<Setup>>,
    env: Environment<'static>,
}

impl Templates {
    /// Templates from `catalog`, with no asset functions yet.
    pub fn new(catalog: &'static Catalog) -> Self {
        let assets = Assets::default();
        Templates {
            env: environment(catalog, &assets, None),
            catalog,
            assets,
            setup: None,
        }
    }

    /// Adds an asset catalog (as served, with its mount point) for `url()` and `integrity()`.
    pub fn with_assets(mut self, assets: &ServeCatalog) -> Self {
        let mut all = (*self.assets.0).clone();
        all.push(assets.clone());
        self.assets = Assets(Arc::new(all));
        self.env = environment(self.catalog, &self.assets, self.setup.as_deref());
        self
    }

    /// Runs `setup` on every environment made (filters, globals, settings of your own).
    ///
    /// ```
    /// static PAGES: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = "**/*.html");
    /// let templates = bindery::minijinja::Templates::new(&PAGES)
    ///     .with_setup(|env| env.add_global("site", "bindery"));
    /// assert_eq!(templates.render_str("{{ site }}", ()).unwrap(), "bindery");
    /// ```
    pub fn with_setup(
        mut self,
        setup: impl Fn(&mut Environment<'static>) + Send + Sync + 'static,
    ) -> Self {
        self.setup = Some(Arc::new(setup));
        self.env = environment(self.catalog, &self.assets, self.setup.as_deref());
        self
    }

    /// Renders the template `name` of the catalog with `context`.
    pub fn render(&self, name: &str, context: impl serde::Serialize) -> Result<String, Error> {
        if self.catalog.is_dev() {
            let env = environment(self.catalog, &self.assets, self.setup.as_deref());
            return env.get_template(name)?.render(context);
        }
        self.env.get_template(name)?.render(context)
    }

    /// Renders `source` (not a file of the catalog; it may include or extend them) as HTML:
    /// every value is escaped, as in the catalog's `.html` templates. (minijinja's own
    /// `render_str` escapes nothing, since a string has no extension to tell its kind.)
    ///
    /// ```
    /// # static PAGES: bindery::Catalog = bindery::embed!("../../assets/fixtures", include = "**/*.html");
    /// let templates = bindery::minijinja::Templates::new(&PAGES);
    /// let page = templates.render_str("<p>{{ name }}</p>", minijinja::context! { name => "<script>" });
    /// assert_eq!(page.unwrap(), "<p>&lt;script&gt;</p>");
    /// ```
    pub fn render_str(
        &self,
        source: &str,
        context: impl serde::Serialize,
    ) -> Result<String, Error> {
        self.env
            .render_named_str("render_str.html", source, context)
    }

    /// The environment renders use (outside dev mode; in dev mode each render makes its own).
    pub fn environment(&self) -> &Environment<'static> {
        &self.env
    }
}

fn environment(
    catalog: &'static Catalog,
    assets: &Assets,
    setup: Option<&Setup>,
) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_loader(loader(catalog));
    install(&mut env, assets);
    if let Some(setup) = setup {
        setup(&mut env);
    }
    env
}

/// Every `url("…")` and `integrity("…")` with a literal path in the templates of `templates`
/// whose file is in none of `assets`, and every `vite_entry("…")` whose entry no asset
/// catalog's bundler manifest lists, as `template: path` lines; `Ok` when there are none. Call
/// it from a test so that a typo fails CI instead of a page:
///
/// ```
/// // `page.html` links style.css and app.js; `broken.html` has a typo.
/// static TEMPLATES: bindery::Catalog = bindery::embed!("../../assets/templates");
/// static ASSETS: bindery::Catalog = bindery::embed!("../../assets/fixtures", fingerprint = true);
///
/// let missing = bindery::minijinja::check_urls(&TEMPLATES, &[&ASSETS]).unwrap_err();
/// assert_eq!(missing, [r#"broken.html: styles.css (did you mean "style.css"?)"#]);
/// ```
pub fn check_urls(templates: &Catalog, assets: &[&Catalog]) -> Result<(), Vec<String>> {
    let mut missing = Vec::new();
    for file in templates.iter() {
        let Ok(bytes) = file.contents() else {
            continue;
        };
        let source = String::from_utf8_lossy(&bytes);
        for (function, path) in linked_paths(&source) {
            let found = assets.iter().any(|catalog| match function {
                "vite_entry(" => catalog.entry(&path).is_some(),
                _ => catalog.file(&path).is_some(),
            });
            if !found {
                let near = match function {
                    "vite_entry(" => String::new(),
                    _ => near_suggestion(assets, &path),
                };
                missing.push(format!("{}: {path}{near}", file.path()));
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// ` (did you mean "style.css"?)` for the paths of `catalogs` nearest a missing `path`, or "".
fn near_suggestion(catalogs: &[&Catalog], path: &str) -> String {
    let near: Vec<String> = catalogs
        .iter()
        .flat_map(|catalog| crate::asset::near_paths(catalog.files(), path))
        .take(3)
        .map(str::to_owned)
        .collect();
    crate::serve::suggestion(&near)
}

/// The literal arguments of `url(…)`, `integrity(…)` and `vite_entry(…)` calls in a
/// template's source, each with its function.
fn linked_paths(source: &str) -> Vec<(&'static str, String)> {
    let mut paths = Vec::new();
    for function in ["url(", "integrity(", "vite_entry("] {
        let mut rest = source;
        while let Some(at) = rest.find(function) {
            let is_call = rest[..at]
                .chars()
                .next_back()
                .is_none_or(|before| !(before.is_alphanumeric() || before == '_' || before == '.'));
            rest = &rest[at + function.len()..];
            // `vite_entry` takes several names; the others one.
            let mut argument = rest.trim_start();
            while let Some(quote) = argument.chars().next().filter(|c| *c == '"' || *c == '\'') {
                let Some(end) = argument[1..].find(quote) else {
                    break;
                };
                if is_call {
                    paths.push((function, argument[1..1 + end].to_owned()));
                }
                argument = argument[end + 2..].trim_start();
                match argument.strip_prefix(',') {
                    Some(more) if function == "vite_entry(" => argument = more.trim_start(),
                    _ => break,
                }
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::linked_paths;

    #[test]
    fn finds_literal_arguments_only() {
        let source = r#"{{ url("a.css") }} {{ integrity( 'b.js' ) }} {{ url(name) }} {{ my_url("x") }} {{ x.url("y") }}"#;
        let found: Vec<String> = linked_paths(source)
            .into_iter()
            .map(|(_, path)| path)
            .collect();
        assert_eq!(found, ["a.css", "b.js"]);
        let entries = linked_paths(
            r#"{{ vite_entry("index.html", 'src/admin.js') }} {{ vite_entry(name) }}"#,
        );
        assert_eq!(
            entries,
            [
                ("vite_entry(", "index.html".to_owned()),
                ("vite_entry(", "src/admin.js".to_owned())
            ]
        );
    }
}
