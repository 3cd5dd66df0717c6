//! The front end on axum: Vite's files and, for every navigation that names no file, the page.

use axum::Router;

#[tokio::main]
async fn main() {
    let site = vite_app::site().expect("the page renders");
    let app = Router::new().fallback_service(site);
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
