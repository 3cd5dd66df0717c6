//! bindery on poem: the catalog is a tower service, an endpoint through poem's `tower-compat`.

use bindery::serve::ServeCatalog;
use poem::endpoint::TowerCompatExt;
use poem::listener::{Acceptor, Listener};

static SITE: bindery::Catalog =
    bindery::embed!("site", mode = "gzip", precompress = ["br", "zstd"]);

#[poem::handler]
fn ping() -> &'static str {
    "pong"
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let assets = ServeCatalog::builder(&SITE)
        .mounted_at("/static")
        .spa_fallback("index.html")
        .not_found_file("404.html")
        .headers("**", [("referrer-policy", "no-referrer")])
        .build()
        .map_err(std::io::Error::other)?;
    // `nest_no_strip`: the catalog sees the whole path, as its mount point expects.
    let app = poem::Route::new()
        .at("/api/ping", poem::get(ping))
        .nest_no_strip("/static", assets.compat());
    let address = std::env::var("BIND").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let acceptor = poem::listener::TcpListener::bind(address)
        .into_acceptor()
        .await?;
    for bound in acceptor.local_addr() {
        println!("listening on {bound}");
    }
    poem::Server::new_with_acceptor(acceptor).run(app).await
}
