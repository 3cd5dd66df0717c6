//! The front end Vite built into `OUT_DIR` (build.rs) and the page that loads it, shared by
//! the axum server (`main.rs`) and the actix-web one (`bin/actix.rs`).

use bindery::minijinja::Templates;
use bindery::serve::ServeCatalog;

/// What Vite wrote into `$OUT_DIR/dist`, with its manifest: the hashed files keep Vite's names
/// and are served `immutable`. Vite's own `index.html` is left out: the page is rendered below.
/// The hashed files of the releases saved in `releases/` (`bindery release`) are served too, so
/// a page loaded before a deploy still finds its chunks, and each changed file has a delta
/// against its earlier versions for browsers that hold them (`dictionaries`, RFC 9842).
pub static ASSETS: bindery::Catalog = bindery::embed!(
    "$OUT_DIR/dist",
    manifest = "vite",
    exclude = "index.html",
    precompress = ["gzip", "br", "zstd"],
    modified = "source-date-epoch",
    releases = "releases",
    dictionaries = true
);

// The entry the page loads: a name Vite's manifest lacks is a compile error, not a 500.
const _: () = assert!(ASSETS.has_entry("index.html"), "Vite's manifest has no index.html");

/// The server-rendered pages.
pub static PAGES: bindery::Catalog = bindery::embed!("templates", script_hashes = true);

/// The front end, served where Vite's `base` says.
pub fn assets() -> ServeCatalog {
    ServeCatalog::builder(&ASSETS)
        .mounted_at(env!("VITE_BASE"))
        .build()
        .expect("a valid setup")
}

/// The page: its HTML and the headers it is sent with.
pub struct Page {
    /// The rendered `index.html`.
    pub html: String,
    /// `Link`: the entry's stylesheets and chunks, for preloading (and 103 Early Hints).
    pub link: String,
    /// `Content-Security-Policy`: scripts from this origin and the page's own inline scripts,
    /// by hash, and nothing else.
    pub csp: String,
}

/// Renders the page that loads Vite's entry `index.html`.
pub fn page(templates: &Templates, assets: &ServeCatalog) -> Result<Page, String> {
    let html = templates
        .render("index.html", ())
        .map_err(|error| error.to_string())?;
    let link = assets
        .entry_link_header(&["index.html"])
        .map_err(|error| error.to_string())?;
    let csp = bindery::serve::Csp::new(
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'",
    )
    .script_hashes(PAGES.script_hashes("index.html"))
    .script_hashes(assets.import_map_hash())
    .to_string();
    Ok(Page { html, link, csp })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_template_links_an_existing_asset_and_entry() {
        bindery::minijinja::check_urls(&super::PAGES, &[&super::ASSETS]).unwrap();
    }
}
