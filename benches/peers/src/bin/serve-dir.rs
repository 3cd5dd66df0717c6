//! tower-http 0.7's `ServeDir` on axum 0.8, reading the folder named by the second argument
//! from disk on every request.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = bindery_peers::listen().await?;
    let root = std::env::args().nth(2).unwrap_or_else(|| ".".to_owned());
    let app = axum::Router::new().fallback_service(tower_http::services::ServeDir::new(root));
    axum::serve(listener, app).await
}
