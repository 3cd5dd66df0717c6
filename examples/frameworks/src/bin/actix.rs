//! bindery on actix-web 4: the catalog as a service of the App (feature `actix`).

use std::time::Duration;

use bindery::serve::ServeCatalog;

static SITE: bindery::Catalog =
    bindery::embed!("site", mode = "gzip", precompress = ["br", "zstd"]);

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let assets = ServeCatalog::builder(&SITE)
        .mounted_at("/static")
        .spa_fallback("index.html")
        .not_found_file("404.html")
        .headers("**", [("referrer-policy", "no-referrer")])
        .build()
        .map_err(std::io::Error::other)?;
    let address = std::env::var("BIND").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .route("/api/ping", actix_web::web::get().to(|| async { "pong" }))
            .service(assets.clone())
    })
    .workers(2)
    // actix's own deadlines and caps, set on purpose: a request head within 10 s of the accept,
    // 60 s of idle keep-alive, 5 s to close, at most 4,096 connections per worker, a backlog
    // of 4,096. It has no deadline for an answer the client stops reading and no per-client
    // share, and it does not raise the open-file limit: at 1,024 the descriptors run out long
    // before 4,096 connections (SECURITY.md).
    .client_request_timeout(Duration::from_secs(10))
    .keep_alive(Duration::from_secs(60))
    .client_disconnect_timeout(Duration::from_secs(5))
    .max_connections(4096)
    .backlog(4096)
    .shutdown_timeout(30)
    .bind(&address)?;
    for bound in server.addrs() {
        println!("listening on http://{bound}");
    }
    server.run().await
}
