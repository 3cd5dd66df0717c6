//! The front end Vite built into `OUT_DIR` (build.rs) and the page that loads it, one service
//! shared by the axum server (`main.rs`) and the actix-web one (`bin/actix.rs`).

use bindery::minijinja::Templates;
use bindery::serve::{Csp, Page, ServeCatalog};
use http::{HeaderValue, header};

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

/// The front end, served where Vite's `base` says, and the page that loads it as the answer to
/// every navigation that names no file: the mount point itself and every deep link of the app
/// (`/some/route`) get the same rendered page, with its import map and its headers. A missing
/// file under Vite's `assets/` is a 404, for a navigation too.
pub fn site() -> Result<ServeCatalog, String> {
    let assets = ServeCatalog::builder(&ASSETS)
        .mounted_at(env!("VITE_BASE"))
        .build()
        .map_err(|error| error.to_string())?;
    let templates = Templates::new(&PAGES).with_assets(&assets);
    let page = page(&templates, &assets)?;
    Ok(assets.with_spa_page(page))
}

/// Renders the page that loads Vite's entry `index.html`, with its headers: `Link` (the entry's
/// stylesheets and chunks, for preloading and 103 Early Hints) and a `Content-Security-Policy`
/// that lets scripts from this origin and the page's own inline scripts run, by hash, and
/// nothing else. In a debug build beside Vite's dev server (`--features dev`,
/// `VITE_DEV_SERVER`), the tags load the sources from it and the policy allows it too.
pub fn page(templates: &Templates, assets: &ServeCatalog) -> Result<Page, String> {
    let html = templates
        .render("index.html", ())
        .map_err(|error| error.to_string())?;
    let link = assets
        .entry_link_header(&["index.html"])
        .map_err(|error| error.to_string())?;
    let csp = Csp::new("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'")
        .script_hashes(PAGES.script_hashes("index.html"))
        .entry_tags(assets)
        .to_string();
    let value = |text: String| HeaderValue::try_from(text).map_err(|error| error.to_string());
    Ok(Page::new(html)
        .header(header::LINK, value(link)?)
        .header(header::CONTENT_SECURITY_POLICY, value(csp)?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_template_links_an_existing_asset_and_entry() {
        bindery::minijinja::check_urls(&super::PAGES, &[&super::ASSETS]).unwrap();
    }
}
