//! [`Builder::build`]: every file a setter named resolved once (refused, with the closest names,
//! when the catalog lacks it), the inline scripts checked against the CSP, and the service
//! assembled from the settings.

use std::sync::Arc;

use http::HeaderValue;

use crate::serve::cache_control::{self};
use crate::serve::service::ServeCatalog;
use crate::serve::setup::build_error::BuildError;
use crate::serve::setup::config::Chosen;
#[cfg(all(feature = "dev", debug_assertions))]
use crate::serve::setup::dev_server::DevServer;
use crate::serve::setup::path_headers::PathHeaders;
use crate::serve::setup::prepared::Prepared;
use crate::serve::setup::site::Site;
use crate::serve::setup::tags::ImportMap;
use crate::serve::stages::bodies::Bodies;
use crate::serve::stages::budget::Budget;
use crate::serve::stages::cache::DecompressedCache;
use crate::serve::stages::inflate::Inflater;
use crate::{Catalog, EmbeddedFile};

use super::Builder;

impl Builder {
    /// The service, every file named by a setter resolved now: a name the catalog does not
    /// have is an error naming it and the closest names it has.
    pub fn build(mut self) -> Result<ServeCatalog, BuildError> {
        #[cfg(feature = "overlay")]
        if let Some(overlay) = &self.config.overlay
            && !std::ptr::eq(overlay.catalog(), self.catalog)
        {
            return Err(BuildError::OverlayOfAnotherCatalog);
        }
        if let Some(path) = self.fallback.take() {
            self.config.fallback = Some(self.choose("spa_fallback", &path)?);
        }
        if let Some(path) = self.not_found.take() {
            self.config.not_found = Some(self.choose("not_found_file", &path)?);
        }
        let mut aliases = Vec::new();
        for (from, to) in std::mem::take(&mut self.aliases) {
            let Some(key) = crate::lookup::normalise(&from) else {
                return Err(BuildError::BadAlias { alias: from });
            };
            let key = key.to_owned();
            let target = self.choose("alias", &to)?;
            aliases.retain(|(alias, _): &(String, Chosen)| *alias != key);
            aliases.push((key, target));
        }
        aliases.sort_by(|left, right| left.0.cmp(&right.0));
        self.config.aliases = aliases;
        let given = std::mem::take(&mut self.headers);
        let types = std::mem::take(&mut self.types);
        self.config.path_headers = Arc::new(PathHeaders::compile(given, types)?);
        if self.csp.is_some() {
            self.check_inline_scripts()?;
        }
        self.config
            .no_fallback
            .extend(bundled_folders(self.catalog, &self.config.mount));
        #[cfg(all(feature = "dev", debug_assertions))]
        {
            let (given, mount) = (self.dev_origin.as_deref(), &self.config.mount);
            self.dev_server = DevServer::resolve(given, self.catalog, mount)?;
        }
        Ok(self.assemble())
    }

    /// With a policy, every HTML file's inline scripts must have their hashes recorded: the
    /// browser would block the others (inline_scripts.rs says how they are found).
    fn check_inline_scripts(&self) -> Result<(), BuildError> {
        if self.catalog.is_dev() {
            return Ok(()); // sent without the policy: see `content_security_policy`
        }
        for file in self.catalog.iter() {
            if file.mime() != "text/html" || !self.catalog.script_hashes(file.path()).is_empty() {
                continue;
            }
            let is_inline = file
                .contents()
                .is_ok_and(|html| crate::serve::setup::inline_scripts::has_inline_script(&html));
            if is_inline {
                return Err(BuildError::InlineScriptWithoutHash {
                    path: file.path().to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The file at `path`, as the service keeps it (by index; for a dev catalog by key, checked
    /// to be on disk now), or the error naming `setting`.
    fn choose(&self, setting: &'static str, path: &str) -> Result<Chosen, BuildError> {
        let missing = || BuildError::NoSuchFile {
            setting,
            path: path.to_owned(),
            near: near(self.catalog, path),
        };
        let key = crate::lookup::normalise(path).ok_or_else(missing)?;
        if self.catalog.is_dev() {
            self.catalog.file(key).ok_or_else(missing)?;
            return Ok(Chosen::Key(key.to_owned()));
        }
        self.catalog
            .position(key)
            .map(Chosen::Index)
            .ok_or_else(missing)
    }

    /// The service with the defaults ([`ServeCatalog::new`]): nothing to check but the
    /// variable's dev server, left out when it is no origin.
    pub(crate) fn defaults(catalog: &'static Catalog) -> ServeCatalog {
        let builder = Builder::new(catalog);
        #[cfg(all(feature = "dev", debug_assertions))]
        let builder = Builder {
            // At the root, the default mount point.
            dev_server: DevServer::resolve(None, catalog, "").ok().flatten(),
            ..builder
        };
        builder.assemble()
    }

    /// The service as set up, without checking names (what [`ServeCatalog::new`] has none of).
    pub(crate) fn assemble(self) -> ServeCatalog {
        let catalog = self.catalog;
        // Files the bundler named with its hash (`manifest = "vite"`) never change either.
        let default_policy = |file: &EmbeddedFile| {
            HeaderValue::from_static(
                if file.mime() != "text/html" && catalog.is_bundled(file.path()) {
                    cache_control::IMMUTABLE
                } else {
                    cache_control::default(file)
                },
            )
        };
        let policy: &dyn Fn(&EmbeddedFile) -> HeaderValue = match &self.policy {
            Some(policy) => policy,
            None => &default_policy,
        };
        // A dev catalog's files change on disk: each request prepares the file it serves.
        let prepared = if catalog.is_dev() {
            Box::default()
        } else {
            catalog
                .files()
                .iter()
                .map(|file| {
                    let added = &self.config.path_headers;
                    Prepared::new(file, policy, added.for_path(file.path()))
                        .with_content_type(added.content_type(file.path()))
                        .with_dictionary(catalog.dictionary(file.path()), &self.config.mount)
                })
                .collect()
        };
        let settings = self.decompression;
        let config = self.config;
        let bodies = Bodies {
            mode: catalog.mode(),
            off_thread_above: settings.off_thread_above,
            cache: (settings.cache_bytes > 0)
                .then(|| Arc::new(DecompressedCache::new(settings.cache_bytes))),
            inflater: Arc::new(Inflater::new(settings.at_once, settings.queue)),
            budget: if settings.has_default_budget() {
                Budget::shared(settings.heap_budget, settings.heap_per_client)
            } else {
                Budget::new(settings.heap_budget, settings.heap_per_client)
            },
            error_body: config.error_body.clone(),
        };
        #[cfg(all(feature = "dev", debug_assertions))]
        let dev_server = self.dev_server.map(Arc::new);
        let mut site = Site {
            catalog,
            prepared,
            config,
            import_map: ImportMap::default(),
            #[cfg(all(feature = "dev", debug_assertions))]
            dev_server,
        };
        if !catalog.is_dev() {
            finish_built(&mut site, self.csp.as_deref());
        }
        ServeCatalog::from_parts(site, bodies)
    }
}

/// A built catalog's tables finished: the import map, each entry page's `Link`, and each HTML
/// file's policy with its inline scripts' hashes. The bundle was checked at build time: every
/// file is there.
fn finish_built(site: &mut Site, csp: Option<&str>) {
    let catalog = site.catalog;
    let url = |path: &str| site.url(path);
    let import_map = ImportMap::new(catalog, &url).unwrap_or_default();
    let pages = crate::serve::setup::tags::entry_pages(catalog, &url);
    site.import_map = import_map;
    for (index, link) in pages {
        add_header(&mut site.prepared[index], http::header::LINK, link);
    }
    if let Some(policy) = csp {
        for prepared in site.prepared.iter_mut() {
            let file = prepared.file;
            if file.mime() == "text/html" {
                let policy = crate::serve::Csp::new(policy)
                    .script_hashes(catalog.script_hashes(file.path()))
                    .to_string();
                if let Ok(value) = HeaderValue::try_from(policy) {
                    add_header(prepared, http::header::CONTENT_SECURITY_POLICY, value);
                }
            }
        }
    }
}

/// The folders of the files a bundler named with their hash (`assets/`), under the mount
/// point (`/app/assets/`): a miss there is a missing asset, a 404 even for a navigation, never
/// the SPA's page.
fn bundled_folders(catalog: &Catalog, mount: &str) -> Vec<String> {
    let mut folders: Vec<String> = catalog
        .bundle
        .hashed
        .iter()
        .filter_map(|path| path.rsplit_once('/').map(|(folder, _)| folder))
        .map(|folder| format!("{mount}/{folder}/"))
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// Puts `name: value` first among a file's extra headers, unless the user's own name it.
fn add_header(prepared: &mut Prepared, name: http::HeaderName, value: HeaderValue) {
    if !prepared.extra.iter().any(|(known, _)| *known == name) {
        let mut extra = prepared.extra.to_vec();
        extra.insert(0, (name, value));
        prepared.extra = extra.into_boxed_slice();
    }
}

/// The catalog's paths closest to `path` (see [`crate::asset::near_paths`]).
fn near(catalog: &Catalog, path: &str) -> Vec<String> {
    crate::asset::near_paths(catalog.files(), path)
        .map(str::to_owned)
        .collect()
}
