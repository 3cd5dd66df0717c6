//! The front end on axum: the page at `/`, Vite's files beside it.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse};
use axum::{Router, routing::get};
use bindery::minijinja::Templates;
use bindery::serve::ServeCatalog;
use vite_app::PAGES;

struct App {
    templates: Templates,
    assets: ServeCatalog,
}

async fn page(State(app): State<Arc<App>>) -> impl IntoResponse {
    match vite_app::page(&app.templates, &app.assets) {
        Ok(page) => Ok((
            [
                (header::LINK, page.link),
                (header::CONTENT_SECURITY_POLICY, page.csp),
                (header::CACHE_CONTROL, "no-cache".to_owned()),
            ],
            Html(page.html),
        )),
        Err(error) => Err((StatusCode::INTERNAL_SERVER_ERROR, error)),
    }
}

#[tokio::main]
async fn main() {
    let assets = vite_app::assets();
    let templates = Templates::new(&PAGES).with_assets(&assets);
    let app = Router::new()
        .route("/", get(page))
        .with_state(Arc::new(App {
            templates,
            assets: assets.clone(),
        }))
        .fallback_service(assets);
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let server = bindery::serve::Server::bind(&address).await.expect("bind");
    println!(
        "listening on http://{}",
        server.local_addr().expect("address")
    );
    server.serve(app).await.expect("serve");
}
