//! bindery on axum: the catalog as the router's fallback service, mounted at /static.

use bindery::serve::ServeCatalog;

static SITE: bindery::Catalog =
    bindery::embed!("site", mode = "gzip", precompress = ["br", "zstd"]);

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let assets = ServeCatalog::builder(&SITE)
        .mounted_at("/static")
        .spa_fallback("index.html")
        .not_found_file("404.html")
        .headers("**", [("referrer-policy", "no-referrer")])
        .build()
        .map_err(std::io::Error::other)?;
    let app = axum::Router::new()
        .route("/api/ping", axum::routing::get(|| async { "pong" }))
        .fallback_service(assets);
    let address = std::env::var("BIND").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
