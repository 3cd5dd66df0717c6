//! What a page's policy must allow for the tags [`ServeCatalog::entry_tags`] writes: the import
//! map's hash, or, beside Vite's dev server, its origin ([`Csp::entry_tags`]).

use crate::serve::{Csp, ServeCatalog};

impl Csp {
    /// Adds what [`ServeCatalog::entry_tags`](crate::serve::ServeCatalog::entry_tags) loads:
    /// the import map's hash; in a debug build beside Vite's dev server (`VITE_DEV_SERVER`,
    /// feature `dev`), its origin (scripts, styles, images, fonts, fetches), its WebSocket, the
    /// React preamble's hash and the nonce Vite puts on the styles it injects, and nothing more.
    ///
    /// ```
    /// static DIST: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");
    /// let service = bindery::serve::ServeCatalog::new(&DIST);
    /// let policy = bindery::serve::Csp::new("default-src 'self'").entry_tags(&service);
    /// let hash = service.import_map_hash().unwrap();
    /// assert_eq!(policy.to_string(), format!("default-src 'self'; script-src 'self' {hash}"));
    /// ```
    pub fn entry_tags(self, service: &ServeCatalog) -> Self {
        #[cfg(all(feature = "dev", debug_assertions))]
        if let Some(dev) = service.dev_server() {
            return dev.allow(self);
        }
        self.script_hashes(service.import_map_hash())
    }
}
