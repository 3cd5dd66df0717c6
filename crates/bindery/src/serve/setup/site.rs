//! The site a service serves: its catalog, the header values prepared for each file and the
//! setup, and the lookups every decision makes in them.

use http::HeaderValue;

use crate::serve::cache_control::NO_CACHE;
use crate::serve::setup::config::{Chosen, Config};
use crate::serve::setup::prepared::Prepared;
use crate::serve::stages::outcome::{Headers, Target};
use crate::{Catalog, EmbeddedFile};

/// What a service was built with; immutable, shared by its clones.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) catalog: &'static Catalog,
    /// Header values of every file, by index; empty for a dev catalog, whose files change on
    /// disk: each request prepares the file it serves.
    pub(crate) prepared: Box<[Prepared]>,
    pub(crate) config: Config,
    /// The import map of the catalog's bundled scripts (`manifest = "vite"`), made once; a dev
    /// catalog makes it on each call, from the files as they are.
    pub(crate) import_map: crate::serve::setup::tags::ImportMap,
    /// Vite's dev server the entry tags load from, in a debug build told of one.
    #[cfg(all(feature = "dev", debug_assertions))]
    pub(crate) dev_server: Option<std::sync::Arc<crate::serve::setup::dev_server::DevServer>>,
}

impl Site {
    /// The absolute URL path of the catalog's file `path` (see `ServeCatalog::url`).
    pub(crate) fn url(&self, path: &str) -> Option<String> {
        let url = self.catalog.url(path)?;
        let encoded =
            percent_encoding::utf8_percent_encode(url, crate::serve::http::path::URL_PATH);
        Some(format!("{}/{encoded}", self.config.mount))
    }

    /// The part of a decoded path below the mount point (`/static/a.js` -> `/a.js`), or `None`
    /// when the path lies outside it. `/static` itself is the folder, `""`.
    pub(crate) fn within_mount<'p>(&self, decoded: &'p str) -> Option<&'p str> {
        let rest = decoded.strip_prefix(self.config.mount.as_str())?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    }

    /// The file at a catalog key with its prepared headers: from the table built with the
    /// service, or, for a dev catalog, the file as it is on disk now with headers made for it;
    /// with an overlay, its folder's file first or last, by its order.
    pub(crate) fn find(&self, key: &str) -> Option<Target<'_>> {
        #[cfg(feature = "overlay")]
        if let Some(overlay) = &self.config.overlay {
            let on_disk = || overlay.on_disk(key).map(|file| self.made_for(file));
            return match overlay.order_of() {
                crate::overlay::Order::First => on_disk().or_else(|| self.embedded(key)),
                crate::overlay::Order::Last => self.embedded(key).or_else(on_disk),
            };
        }
        self.embedded(key)
    }

    /// The catalog's own file at a key (for a dev catalog, as it is on disk now).
    fn embedded(&self, key: &str) -> Option<Target<'_>> {
        if self.catalog.is_dev() {
            return self.catalog.file(key).map(|file| self.made_for(file));
        }
        self.catalog
            .position(key)
            .map(|index| self.prepared_at(index))
    }

    /// The file whose fingerprinted name is `key` (`fingerprint = true`), marked immutable
    /// when the bytes served are the ones the fingerprint names. With an overlay (folder
    /// first), a file there with other bytes is served without `immutable`, and so are the
    /// embedded bytes while a file there cannot be read: a hotfix, or its revert, is never
    /// pinned in caches under the old name.
    pub(crate) fn find_by_fingerprint(&self, key: &str) -> Option<Target<'_>> {
        if !self.catalog.has_fingerprints() {
            return None;
        }
        let file = self.catalog.file_by_url(key)?;
        #[cfg(feature = "overlay")]
        if let Some(overlay) = &self.config.overlay
            && overlay.order_of() == crate::overlay::Order::First
        {
            use crate::live::Lookup;
            return match overlay.lookup(file.path()) {
                Lookup::Found(disk) => {
                    let mut target = self.made_for(disk);
                    target.by_fingerprint = disk.etag() == file.etag();
                    Some(target)
                }
                Lookup::Absent => self.embedded(file.path()).map(|mut target| {
                    target.by_fingerprint = true;
                    target
                }),
                Lookup::Unreadable => self.embedded(file.path()),
            };
        }
        let mut target = self.find(file.path())?;
        target.by_fingerprint = true;
        Some(target)
    }

    /// A file chosen when the service was built (an overlay may replace it now).
    pub(crate) fn found<'a>(&'a self, chosen: &'a Chosen) -> Option<Target<'a>> {
        match chosen {
            Chosen::Page(prepared) => Some(Target {
                headers: Headers::Table(prepared),
                index: None,
                by_fingerprint: false,
            }),
            #[cfg(feature = "overlay")]
            Chosen::Index(index) if self.config.overlay.is_some() => {
                self.find(self.catalog.files()[*index].path())
            }
            Chosen::Index(index) => Some(self.prepared_at(*index)),
            Chosen::Key(key) => self.find(key),
        }
    }

    /// A file read from disk now (dev mode's, an overlay's), with headers made for it.
    fn made_for(&self, file: &'static EmbeddedFile) -> Target<'_> {
        let no_cache = |_: &EmbeddedFile| HeaderValue::from_static(NO_CACHE);
        let added = &self.config.path_headers;
        let prepared = Prepared::new(file, &no_cache, added.for_path(file.path()))
            .with_content_type(added.content_type(file.path()));
        Target {
            headers: Headers::Disk(Box::new(prepared)),
            index: None,
            by_fingerprint: false,
        }
    }

    /// The file at `index` of the table built with the service.
    fn prepared_at(&self, index: usize) -> Target<'_> {
        Target {
            headers: Headers::Table(&self.prepared[index]),
            index: Some(index),
            by_fingerprint: false,
        }
    }

    /// Whether `key` names a folder with an index file. Only asks whether the file exists: no
    /// headers are prepared for it.
    pub(crate) fn is_folder(&self, key: &str) -> bool {
        if key.is_empty() || key.ends_with('/') {
            return false;
        }
        crate::serve::http::path::joined(&[key, "/", &self.config.index_file], |index| {
            #[cfg(feature = "overlay")]
            if let Some(overlay) = &self.config.overlay {
                return overlay.file(index).is_some();
            }
            self.catalog.file(index).is_some()
        })
    }

    /// Whether a miss at `decoded` would get the SPA's page for a navigation: a fallback is set
    /// and the path lies outside the excluded prefixes.
    pub(crate) fn may_fall_back(&self, decoded: &str) -> bool {
        self.config.fallback.is_some()
            && !self.config.no_fallback.iter().any(|prefix| {
                decoded.starts_with(prefix.as_str()) || decoded == prefix.trim_end_matches('/')
            })
    }
}
