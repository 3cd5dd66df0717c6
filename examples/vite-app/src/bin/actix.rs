//! The same front end on actix-web: one service, the page for every navigation that names no file.

use actix_web::{App, HttpServer};

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let site = vite_app::site().map_err(std::io::Error::other)?;
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let server = HttpServer::new(move || App::new().service(site.clone()))
        .workers(1)
        .bind(&address)?;
    println!("listening on http://{}", server.addrs()[0]);
    server.run().await
}
