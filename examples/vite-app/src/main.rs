//! A server-rendered page whose scripts and styles Vite built into `OUT_DIR`: the template links
//! them by fingerprinted URL with Subresource Integrity, and the server marks those URLs
//! immutable.

use std::sync::Arc;

use axum::{Router, extract::State, http::StatusCode, response::Html, routing::get};
use bindery::minijinja::Templates;
use bindery::serve::ServeCatalog;

/// What Vite wrote into `$OUT_DIR/dist` (build.rs), each file also under its fingerprinted name.
static ASSETS: bindery::Catalog = bindery::embed!(
    "$OUT_DIR/dist",
    precompress = ["gzip"],
    fingerprint = true,
    modified = "source-date-epoch"
);

/// The server-rendered pages.
static PAGES: bindery::Catalog = bindery::embed!("templates");

async fn page(State(templates): State<Arc<Templates>>) -> Result<Html<String>, (StatusCode, String)> {
    templates
        .render("index.html", ())
        .map(Html)
        .map_err(|error| (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))
}

#[tokio::main]
async fn main() {
    let assets = ServeCatalog::builder(&ASSETS).mounted_at("/static").build().expect("a valid setup");
    let templates = Arc::new(Templates::new(&PAGES).with_assets(&assets));
    let app = Router::new()
        .route("/", get(page))
        .with_state(templates)
        .fallback_service(assets);
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await.expect("bind");
    println!("listening on http://{}", listener.local_addr().expect("address"));
    axum::serve(listener, app).await.expect("serve");
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_template_links_an_existing_asset() {
        bindery::minijinja::check_urls(&super::PAGES, &[&super::ASSETS]).unwrap();
    }
}
