//! memory-serve 2 on axum 0.8: its router of the assets its build script loaded.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = bindery_peers::listen().await?;
    let app = memory_serve::load!().into_router();
    axum::serve(listener, app).await
}
