//! bindery on salvo: the catalog is a tower service, a handler through salvo's `tower-compat`.

use bindery::serve::ServeCatalog;
use salvo::conn::{Acceptor, Listener};
use salvo::http::ReqBody;
use salvo::prelude::{Router, Server, TcpListener, TowerServiceCompat, handler};

static SITE: bindery::Catalog =
    bindery::embed!("site", mode = "gzip", precompress = ["br", "zstd"]);

#[handler]
fn ping() -> &'static str {
    "pong"
}

#[tokio::main]
async fn main() {
    let assets = ServeCatalog::builder(&SITE)
        .mounted_at("/static")
        .spa_fallback("index.html")
        .not_found_file("404.html")
        .headers("**", [("referrer-policy", "no-referrer")])
        .build()
        .expect("the site has index.html and 404.html");
    // The catalog takes any request body; salvo's own is the one it hands over.
    let handler = || TowerServiceCompat::<ReqBody, _, _, _>::compat(assets.clone());
    let router = Router::new()
        .push(Router::with_path("api/ping").get(ping))
        .push(Router::with_path("static").goal(handler()))
        .push(Router::with_path("static/{**rest}").goal(handler()));
    let address = std::env::var("BIND").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let acceptor = TcpListener::new(address).bind().await;
    for holding in acceptor.holdings() {
        println!("listening on {}", holding.local_addr);
    }
    Server::new(acceptor).serve(router).await;
}
