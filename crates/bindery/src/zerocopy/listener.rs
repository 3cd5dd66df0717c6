//! axum's listener with zero-copy streams: `axum::serve(ZeroCopyListener::new(listener), app)`.

use std::net::SocketAddr;

use tokio::net::TcpListener;

use super::ZeroCopyStream;

/// A `TcpListener` for `axum::serve` whose connections are [`ZeroCopyStream`]s, with
/// `TCP_NODELAY` set (small responses must not wait for delayed ACKs). Accept errors are
/// handled as axum's own listener handles them.
///
/// ```no_run
/// # async fn run(app: axum::Router) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(bindery::zerocopy::ZeroCopyListener::new(listener), app).await
/// # }
/// ```
#[derive(Debug)]
pub struct ZeroCopyListener {
    inner: TcpListener,
    threshold: usize,
}

impl ZeroCopyListener {
    /// Wraps a bound listener; bodies of [`DEFAULT_THRESHOLD`](super::DEFAULT_THRESHOLD) or
    /// more go by `sendfile`.
    pub fn new(inner: TcpListener) -> Self {
        ZeroCopyListener {
            inner,
            threshold: super::DEFAULT_THRESHOLD,
        }
    }

    /// Sends embedded bodies of `bytes` or more by `sendfile` ([`ZeroCopyStream::with_threshold`]).
    pub fn threshold(mut self, bytes: usize) -> Self {
        self.threshold = bytes;
        self
    }
}

impl axum::serve::Listener for ZeroCopyListener {
    type Io = ZeroCopyStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (ZeroCopyStream, SocketAddr) {
        let (stream, peer) = axum::serve::Listener::accept(&mut self.inner).await;
        let _ = stream.set_nodelay(true);
        (ZeroCopyStream::with_threshold(stream, self.threshold), peer)
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}
