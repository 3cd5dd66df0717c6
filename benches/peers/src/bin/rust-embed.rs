//! rust-embed 8's derive served by axum-embed 0.1 on axum 0.7, as their READMEs show.

#[derive(rust_embed::Embed, Clone)]
#[folder = "$PEERS_ROOT"]
struct Assets;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = bindery_peers::listen().await?;
    let app = axum07::Router::new().fallback_service(axum_embed::ServeEmbed::<Assets>::new());
    axum07::serve(listener, app).await
}
