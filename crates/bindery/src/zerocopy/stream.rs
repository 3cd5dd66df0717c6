//! The socket wrapper: writes whose bytes lie in the executable's read-only data go out with
//! `sendfile(2)` from the executable's file; every other write as before.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

use super::{DEFAULT_THRESHOLD, STATS, offset_in_image};

/// A TCP stream whose writes of embedded bytes skip the copy into the kernel: a write (or the
/// first slice of a vectored write) that lies wholly in the executable's read-only data and is
/// at least the threshold long ([`DEFAULT_THRESHOLD`], 1 MiB) is sent with `sendfile` from
/// `/proc/self/exe` at its offset; slices before it (the response head) go first as a plain
/// write, as nginx sends a head before its `sendfile`. (Held back with `MSG_MORE` to share the
/// body's first segment, the head sent the connections out of BBR's startup phase, and BBR
/// then paced every segment with a timer, which cost more CPU than the segment saved;
/// BENCHMARKS.md, "Zero-copy sending".) Everything else (heap bytes, small writes, other
/// platforms' paths) is written as by the stream itself. Reads are the stream's.
///
/// Partial writes, `EAGAIN` and interleaving are hyper's as with any stream: each call reports
/// how many bytes it took, and a call that cannot proceed registers for writability.
///
/// ```no_run
/// # async fn run(listener: tokio::net::TcpListener) -> std::io::Result<()> {
/// let (tcp, _peer) = listener.accept().await?;
/// let io = bindery::zerocopy::ZeroCopyStream::new(tcp);
/// // hyper_util::rt::TokioIo::new(io) and serve the connection as usual.
/// # let _ = io; Ok(()) }
/// ```
#[derive(Debug)]
pub struct ZeroCopyStream {
    inner: TcpStream,
    threshold: usize,
    /// Where the last `sendfile` stopped: the rest of a partly sent body goes the same way,
    /// however short it has become.
    resume_at: Option<u64>,
}

/// After a `sendfile` that stopped short (the socket's buffer filled), makes the next one wait
/// for the kernel to report room again instead of sending at once the few kilobytes
/// acknowledged since, as nginx does: far fewer calls per large body (BENCHMARKS.md,
/// "Zero-copy sending against nginx"). The kernel is asked (`poll`, no wait) inside `try_io`, exactly
/// where a `WouldBlock` from a write would come from: "not writable" arms its report of room
/// (sent once a third of the buffer is free), so the wait always ends, and the readiness the
/// runtime cleared is the one it saw before asking, never a report that came after. A call cut
/// short by anything else (a signal) finds the socket writable, and nothing is cleared.
#[cfg(target_os = "linux")]
fn wait_for_room(stream: &TcpStream) {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let _ = stream.try_io(Interest::WRITABLE, || {
        let mut socket = [PollFd::new(stream, PollFlags::OUT)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        match poll(&mut socket, Some(&now)) {
            Ok(0) => Err(io::Error::from(io::ErrorKind::WouldBlock)),
            _ => Ok(()),
        }
    });
}

impl ZeroCopyStream {
    /// Wraps an accepted (or connected) stream; bodies of [`DEFAULT_THRESHOLD`] or more go by
    /// `sendfile`.
    pub fn new(inner: TcpStream) -> Self {
        Self::with_threshold(inner, DEFAULT_THRESHOLD)
    }

    /// Wraps a stream; writes of embedded bytes of `threshold` bytes or more go by `sendfile`.
    pub fn with_threshold(inner: TcpStream, threshold: usize) -> Self {
        ZeroCopyStream {
            inner,
            threshold: threshold.max(1),
            resume_at: None,
        }
    }

    /// The stream.
    pub fn get_ref(&self) -> &TcpStream {
        &self.inner
    }

    /// The stream, unwrapped.
    pub fn into_inner(self) -> TcpStream {
        self.inner
    }

    /// `sendfile` of `len` bytes at `offset` of the executable; how many went.
    #[cfg(target_os = "linux")]
    fn poll_sendfile(
        &mut self,
        context: &mut Context<'_>,
        offset: u64,
        len: usize,
    ) -> Poll<io::Result<usize>> {
        use std::os::fd::AsFd;
        let Some(image) = super::image() else {
            return Poll::Ready(Err(io::Error::other("no executable image")));
        };
        loop {
            ready!(self.inner.poll_write_ready(context))?;
            let sent = self.inner.try_io(Interest::WRITABLE, || {
                let mut at = offset;
                rustix::fs::sendfile(self.inner.as_fd(), image.file.as_fd(), Some(&mut at), len)
                    .map_err(io::Error::from)
            });
            match sent {
                Ok(sent) => {
                    self.resume_at = (sent < len).then_some(offset + sent as u64);
                    if sent < len {
                        wait_for_room(&self.inner);
                    }
                    STATS.sendfile_calls.fetch_add(1, Ordering::Relaxed);
                    STATS
                        .sendfile_bytes
                        .fetch_add(sent as u64, Ordering::Relaxed);
                    return Poll::Ready(Ok(sent));
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }

    /// Never called: nothing is embedded where there is no image.
    #[cfg(not(target_os = "linux"))]
    fn poll_sendfile(&mut self, _: &mut Context<'_>, _: u64, _: usize) -> Poll<io::Result<usize>> {
        Poll::Ready(Err(io::Error::other("no executable image")))
    }
}

impl ZeroCopyStream {
    /// Where `bytes` lie in the executable, when they go by `sendfile`: `threshold` bytes or
    /// more, or the rest of a body whose `sendfile` stopped part way.
    fn embedded(&self, bytes: &[u8]) -> Option<u64> {
        if bytes.is_empty() {
            return None;
        }
        let offset = offset_in_image(bytes)?;
        (bytes.len() >= self.threshold || self.resume_at == Some(offset)).then_some(offset)
    }
}

impl AsyncRead for ZeroCopyStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(context, buf)
    }
}

impl AsyncWrite for ZeroCopyStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.embedded(buf) {
            Some(offset) => self.poll_sendfile(context, offset, buf.len()),
            None => {
                STATS.plain_writes.fetch_add(1, Ordering::Relaxed);
                self.resume_at = None;
                Pin::new(&mut self.inner).poll_write(context, buf)
            }
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first_embedded = bufs
            .iter()
            .enumerate()
            .find_map(|(index, slice)| self.embedded(slice).map(|offset| (index, offset)));
        let plain = match first_embedded {
            Some((0, offset)) => return self.poll_sendfile(context, offset, bufs[0].len()),
            // The slices before an embedded body (its head) go alone, a plain write without
            // `MSG_MORE` (see `ZeroCopyStream`); the body comes in the next call.
            Some((index, _)) => &bufs[..index],
            None => bufs,
        };
        STATS.plain_writes.fetch_add(1, Ordering::Relaxed);
        self.resume_at = None;
        Pin::new(&mut self.inner).poll_write_vectored(context, plain)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(context)
    }
}
