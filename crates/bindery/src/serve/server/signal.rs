//! The default shutdown: SIGINT (Ctrl-C) or, on Unix, SIGTERM (what systemd, Docker and
//! Kubernetes send).

/// Completes on SIGINT or SIGTERM. A [`Server`](super::Server) waits for this unless given a
/// shutdown of its own ([`Server::with_graceful_shutdown`](super::Server::with_graceful_shutdown)).
///
/// ```no_run
/// # async fn run() {
/// bindery::serve::server::shutdown_signal().await;
/// println!("stopping");
/// # }
/// ```
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = match signal(SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                let _ = interrupt.await;
                return;
            }
        };
        tokio::select! {
            _ = interrupt => tracing::info!("SIGINT received"),
            _ = terminate.recv() => tracing::info!("SIGTERM received"),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
        tracing::info!("Ctrl-C received");
    }
}
