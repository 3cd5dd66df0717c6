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
    // Deadlines for every phase of a connection, HTTP/2 limits, a fair connection cap and a
    // graceful shutdown on SIGINT/SIGTERM: what plain `axum::serve` leaves open (SECURITY.md).
    let server = bindery::serve::Server::bind(&address).await?;
    println!("listening on http://{}", server.local_addr()?);
    server.serve(app).await
}
