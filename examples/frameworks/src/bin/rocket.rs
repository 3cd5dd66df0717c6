//! bindery on rocket 0.5: the catalog's routes, mounted at its mount point (feature `rocket`).

use bindery::serve::ServeCatalog;

static SITE: bindery::Catalog =
    bindery::embed!("site", mode = "gzip", precompress = ["br", "zstd"]);

#[rocket::get("/api/ping")]
fn ping() -> &'static str {
    "pong"
}

#[rocket::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let assets = ServeCatalog::builder(&SITE)
        .mounted_at("/static")
        .spa_fallback("index.html")
        .not_found_file("404.html")
        .headers("**", [("referrer-policy", "no-referrer")])
        .build()?;
    let address: std::net::SocketAddr = std::env::var("BIND")
        .unwrap_or_else(|_| "127.0.0.1:8080".to_owned())
        .parse()?;
    // rocket 0.5 has no deadline for a request head or an idle connection and no connection
    // cap (`keep_alive` only turns HTTP/1 keep-alive on or off): behind the internet, put a
    // proxy with those in front (SECURITY.md, "Per deployment").
    let config = rocket::Config {
        address: address.ip(),
        port: address.port(),
        keep_alive: 5,
        ..rocket::Config::default()
    };
    let announce = rocket::fairing::AdHoc::on_liftoff("announce", move |_| {
        Box::pin(async move { println!("listening on http://{address}") })
    });
    let rocket = rocket::custom(config)
        .attach(announce)
        .mount("/", rocket::routes![ping]);
    bindery::rocket::mount(rocket, assets).launch().await?;
    Ok(())
}
