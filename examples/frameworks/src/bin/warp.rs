//! bindery on warp 0.4: a filter that hands the request's head to the catalog.

use bindery::serve::ServeCatalog;
use warp::Filter;

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
    let ping = warp::path!("api" / "ping").map(|| "pong");
    let files = warp::path("static")
        .and(warp::method())
        .and(warp::path::full())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::header::headers_cloned())
        .then(
            move |method, path: warp::path::FullPath, query: String, headers| {
                let assets = assets.clone();
                async move {
                    let uri = match query.as_str() {
                        "" => path.as_str().to_owned(),
                        query => format!("{}?{query}", path.as_str()),
                    };
                    let mut request = http::Request::new(());
                    *request.method_mut() = method;
                    *request.headers_mut() = headers;
                    match uri.parse() {
                        Ok(uri) => *request.uri_mut() = uri,
                        Err(_) => *request.uri_mut() = http::Uri::from_static("/"),
                    }
                    let response = assets.serve(&request).await;
                    let response = response.unwrap_or_else(|never| match never {});
                    response.map(bindery::serve::Body::into_bytes)
                }
            },
        );
    let address = std::env::var("BIND").unwrap_or_else(|_| "127.0.0.1:8080".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("listening on http://{}", listener.local_addr()?);
    warp::serve(ping.or(files)).incoming(listener).run().await;
    Ok(())
}
