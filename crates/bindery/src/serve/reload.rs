//! Live reload for dev mode (feature `livereload`): a tower layer that reloads the open pages a
//! dev catalog served when a file of its folder changes, through tower-livereload. Only dev
//! mode's HTML answers get its script, and only in builds with debug assertions: in a release
//! build the layer is the identity and adds nothing to any answer.

use tower_layer::Layer;

use crate::Catalog;

/// Marks an answer of a dev catalog: the HTML ones get the reload script.
#[cfg(debug_assertions)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct DevAnswer;

/// A tower [`Layer`](tower_layer::Layer) that reloads open pages when a file of a dev
/// catalog's folder is added, edited or deleted: HTML answers of those catalogs (dev mode:
/// the `dev` feature, a build with debug assertions) load a small script that waits on an
/// event stream the layer serves, and reload when the layer sees the folder change (it looks
/// every 200 ms). In a release build it is the identity: no script, no stream, no thread.
///
/// The script is inline: under a `Content-Security-Policy` without `'unsafe-inline'` the
/// browser refuses it, so send no policy in dev mode, or allow it there.
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/spa");
/// let service = bindery::serve::ServeCatalog::new(&SITE);
/// // With axum: `Router::new().fallback_service(service).layer(LiveReload::new(&[&SITE]))`.
/// let app = tower::Layer::layer(&bindery::serve::LiveReload::new(&[&SITE]), service);
/// # let _ = app;
/// ```
#[derive(Clone)]
pub struct LiveReload {
    #[cfg(debug_assertions)]
    layer: tower_livereload::LiveReloadLayer<tower_livereload::predicate::Always, DevHtml>,
}

impl std::fmt::Debug for LiveReload {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("LiveReload").finish_non_exhaustive()
    }
}

impl LiveReload {
    /// Reloads the pages of `catalogs` (those in dev mode) when their folders change.
    pub fn new(catalogs: &[&'static Catalog]) -> Self {
        #[cfg(debug_assertions)]
        {
            let layer = tower_livereload::LiveReloadLayer::new()
                .custom_prefix("/_bindery/livereload")
                .response_predicate::<(), DevHtml>(DevHtml);
            let dev: Vec<&'static Catalog> = catalogs
                .iter()
                .copied()
                .filter(|catalog| catalog.is_dev())
                .collect();
            if !dev.is_empty() {
                watch(dev, layer.reloader());
            }
            LiveReload { layer }
        }
        #[cfg(not(debug_assertions))]
        {
            let _ = catalogs;
            LiveReload {}
        }
    }
}

#[cfg(debug_assertions)]
impl<S> Layer<S> for LiveReload {
    type Service = tower_livereload::LiveReload<S, tower_livereload::predicate::Always, DevHtml>;

    fn layer(&self, inner: S) -> Self::Service {
        self.layer.layer(inner)
    }
}

#[cfg(not(debug_assertions))]
impl<S> Layer<S> for LiveReload {
    type Service = S;

    fn layer(&self, inner: S) -> S {
        inner
    }
}

/// The answers that get the script: a dev catalog's whole HTML (200; not a range, not a 304).
#[cfg(debug_assertions)]
#[derive(Debug, Clone, Copy)]
pub struct DevHtml;

#[cfg(debug_assertions)]
impl<B> tower_livereload::predicate::Predicate<http::Response<B>> for DevHtml {
    fn check(&mut self, response: &http::Response<B>) -> bool {
        response.extensions().get::<DevAnswer>().is_some()
            && response.status() == http::StatusCode::OK
            && response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| value.starts_with("text/html"))
    }
}

/// Looks at the catalogs' files every 200 ms from a thread of its own, and reloads the open
/// pages when a path or a content hash changed.
#[cfg(debug_assertions)]
fn watch(catalogs: Vec<&'static Catalog>, reloader: tower_livereload::Reloader) {
    let state = move || {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for catalog in &catalogs {
            for file in catalog.iter() {
                (file.path(), file.etag()).hash(&mut hasher);
            }
        }
        hasher.finish()
    };
    let spawned = std::thread::Builder::new()
        .name("bindery-livereload".to_owned())
        .spawn(move || {
            let mut seen = state();
            loop {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let now = state();
                if now != seen {
                    seen = now;
                    reloader.reload();
                }
            }
        });
    if let Err(error) = spawned {
        eprintln!("bindery: live reload is off: no thread for it ({error})");
    }
}
