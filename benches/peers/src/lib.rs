//! What every peer binary shares: the listener, as the harness expects it.

/// Binds 127.0.0.1 on the port given as the first argument (0 by default) and says
/// `addr=<address>` on stdout, as the bench binaries do.
///
/// ```no_run
/// # async fn f() -> std::io::Result<()> {
/// let listener = bindery_peers::listen().await?;
/// # Ok(()) }
/// ```
pub async fn listen() -> std::io::Result<tokio::net::TcpListener> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|port| port.parse().ok())
        .unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("listening addr={}", listener.local_addr()?);
    Ok(listener)
}
