//! The HTTP/1 and HTTP/2 settings, chosen for a server of GET answers with bounded memory per
//! connection (SECURITY.md lists each with what it bounds). Each has a setter on
//! [`Server`](super::Server); these are its defaults.

use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioTimer};
use hyper_util::server::conn::auto;

/// HTTP/1's read buffer limit (request heads longer get 431) and write buffer size: 16 KiB.
pub(super) const HTTP1_BUFFER: usize = 16 * 1024;
/// HTTP/2 streams open at once per connection.
pub(super) const HTTP2_MAX_STREAMS: u32 = 64;
/// The longest HTTP/2 header list accepted (decoded), as HTTP/1's buffer.
pub(super) const HTTP2_MAX_HEADER_LIST: u32 = 16 * 1024;
/// Bytes hyper queues ahead of the socket per HTTP/2 stream (references to the answer's bytes;
/// no copies).
pub(super) const HTTP2_SEND_BUFFER: usize = 256 * 1024;
/// What a client may send on one HTTP/2 stream before it is read: 64 KiB.
pub(super) const HTTP2_STREAM_WINDOW: u32 = 64 * 1024;
/// What a client may send on one HTTP/2 connection before it is read: 128 KiB.
pub(super) const HTTP2_CONNECTION_WINDOW: u32 = 128 * 1024;
/// Streams a client may open and reset before they are answered (rapid reset, CVE-2023-44487).
pub(super) const HTTP2_MAX_PENDING_RESETS: usize = 20;
/// Streams the server may reset for a client's errors before the connection is closed.
pub(super) const HTTP2_MAX_LOCAL_RESETS: usize = 1024;

/// The protocol limits of a [`Server`](super::Server).
#[derive(Debug, Clone, Copy)]
pub(super) struct Protocol {
    pub(super) http1_buffer: usize,
    pub(super) http2_max_streams: u32,
    pub(super) http2_max_header_list: u32,
    pub(super) http2_send_buffer: usize,
    pub(super) http2_ping_interval: Duration,
    pub(super) http2_ping_timeout: Duration,
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol {
            http1_buffer: HTTP1_BUFFER,
            http2_max_streams: HTTP2_MAX_STREAMS,
            http2_max_header_list: HTTP2_MAX_HEADER_LIST,
            http2_send_buffer: HTTP2_SEND_BUFFER,
            http2_ping_interval: Duration::from_secs(20),
            http2_ping_timeout: Duration::from_secs(10),
        }
    }
}

impl Protocol {
    /// hyper's connection builder with these limits.
    pub(super) fn builder(&self) -> auto::Builder<TokioExecutor> {
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            // The watchdog keeps the header deadline (hyper's would also end keep-alive early).
            .header_read_timeout(None)
            // Read buffer at most this (a longer head is refused with 431), and a write buffer
            // that hyper flushes before it takes the next frame of a larger body.
            .max_buf_size(self.http1_buffer)
            .keep_alive(true);
        builder
            .http2()
            .timer(TokioTimer::new())
            .keep_alive_interval(self.http2_ping_interval)
            .keep_alive_timeout(self.http2_ping_timeout)
            .max_concurrent_streams(self.http2_max_streams)
            .max_header_list_size(self.http2_max_header_list)
            .max_send_buf_size(self.http2_send_buffer)
            // A static server reads no request bodies: the windows bound what a client can
            // push unread.
            .initial_stream_window_size(HTTP2_STREAM_WINDOW)
            .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
            .max_pending_accept_reset_streams(HTTP2_MAX_PENDING_RESETS)
            .max_local_error_reset_streams(HTTP2_MAX_LOCAL_RESETS);
        builder
    }
}
