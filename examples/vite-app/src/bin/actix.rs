//! The same front end on actix-web: the page at `/`, Vite's files beside it.

use actix_web::{App, HttpResponse, HttpServer, web};
use bindery::minijinja::Templates;
use bindery::serve::ServeCatalog;
use vite_app::PAGES;

async fn page(state: web::Data<(Templates, ServeCatalog)>) -> HttpResponse {
    let (templates, assets) = state.get_ref();
    match vite_app::page(templates, assets) {
        Ok(page) => HttpResponse::Ok()
            .content_type("text/html; charset=utf-8")
            .insert_header(("link", page.link))
            .insert_header(("content-security-policy", page.csp))
            .insert_header(("cache-control", "no-cache"))
            .body(page.html),
        Err(error) => HttpResponse::InternalServerError().body(error),
    }
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let assets = vite_app::assets();
    let templates = Templates::new(&PAGES).with_assets(&assets);
    let state = web::Data::new((templates, assets.clone()));
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .route("/", web::get().to(page))
            .route("/", web::head().to(page))
            .service(assets.clone())
    })
    .workers(1)
    .bind(&address)?;
    println!("listening on http://{}", server.addrs()[0]);
    server.run().await
}
