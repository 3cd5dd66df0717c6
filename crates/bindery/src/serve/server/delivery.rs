//! How an answer's delivery is seen: a response body that reports each frame hyper takes and
//! ends its request only when hyper asks past the last one ([`Tracked`]), and a socket that
//! reports bytes moving ([`Watched`]).
//!
//! hyper takes the next frame of a body only when the last one is on its way: HTTP/1 writes a
//! frame larger than its write buffer (protocol.rs sizes it) before asking for more, and HTTP/2
//! asks once the stream's flow-control window has room. So a body cut into bounded frames shows
//! its delivery frame by frame, and one whose end is reported only when hyper asks for more
//! stays in flight until its last bytes are handed to the socket.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::deadlines::{Activity, InFlight};

/// The largest frame an HTTP/2 answer hands hyper at once: 64 KiB, four of h2's 16 KiB DATA
/// frames, so a stream that moves at all shows progress at least every 64 KiB.
pub const HTTP2_FRAME: usize = 64 * 1024;

pin_project_lite::pin_project! {
    /// A response body that ends its request when hyper has taken its last frame and asks for
    /// more (or drops it), and records each frame taken as the request's progress. Frames pass
    /// through as they are, cut to `frame` bytes when one is set (`Bytes::slice`, no copy): a
    /// `Bytes::from_static` body stays one.
    pub struct Tracked<B> {
        #[pin]
        inner: B,
        in_flight: InFlight,
        frame: Option<usize>,
        rest: Option<Bytes>,
        has_sent: bool,
    }
}

impl<B> Tracked<B> {
    /// `inner`, ending `in_flight` with it, its frames cut to at most `frame` bytes.
    pub fn new(inner: B, in_flight: InFlight, frame: Option<usize>) -> Self {
        Tracked {
            inner,
            in_flight,
            frame,
            rest: None,
            has_sent: false,
        }
    }
}

/// `data` cut to `frame` bytes; what is left over goes into `rest`.
fn cut(mut data: Bytes, frame: Option<usize>, rest: &mut Option<Bytes>) -> Bytes {
    if let Some(frame) = frame.filter(|frame| data.len() > *frame) {
        *rest = Some(data.split_off(frame));
    }
    data
}

impl<B> http_body::Body for Tracked<B>
where
    B: http_body::Body<Data = Bytes>,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, B::Error>>> {
        let this = self.project();
        if let Some(rest) = this.rest.take() {
            this.in_flight.progressed();
            let data = cut(rest, *this.frame, this.rest);
            return Poll::Ready(Some(Ok(http_body::Frame::data(data))));
        }
        match this.inner.poll_frame(context) {
            Poll::Ready(Some(Ok(frame))) => {
                this.in_flight.progressed();
                *this.has_sent = true;
                let frame = match frame.into_data() {
                    Ok(data) => http_body::Frame::data(cut(data, *this.frame, this.rest)),
                    Err(other) => other,
                };
                Poll::Ready(Some(Ok(frame)))
            }
            ended @ Poll::Ready(None | Some(Err(_))) => {
                this.in_flight.end();
                ended
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// An empty body says so at once (hyper then never polls it: it ends when dropped); any
    /// other only once it has said `None`, so that hyper asks for its end after the last frame.
    fn is_end_stream(&self) -> bool {
        !self.has_sent && self.rest.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        let rest = self.rest.as_ref().map_or(0, |rest| rest.len() as u64);
        let inner = self.inner.size_hint();
        let mut hint = http_body::SizeHint::new();
        hint.set_lower(inner.lower() + rest);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

pin_project_lite::pin_project! {
    /// A socket that records when bytes move. Vectored writes pass through as vectored writes.
    pub struct Watched<T> {
        #[pin]
        inner: T,
        activity: Arc<Activity>,
    }
}

impl<T> Watched<T> {
    /// `inner`, reporting to `activity`.
    pub fn new(inner: T, activity: Arc<Activity>) -> Self {
        Watched { inner, activity }
    }
}

impl<T: AsyncRead> AsyncRead for Watched<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let polled = this.inner.poll_read(context, buf);
        if buf.filled().len() > before {
            this.activity.bytes_read();
        }
        polled
    }
}

impl<T: AsyncWrite> AsyncWrite for Watched<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let polled = this.inner.poll_write(context, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.bytes_written();
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let polled = this.inner.poll_write_vectored(context, bufs);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.bytes_written();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(context)
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(context)
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use http_body::Body as _;

    use super::Tracked;
    use crate::serve::server::deadlines::{Activity, Clock};

    fn poll<B: http_body::Body<Data = Bytes> + Unpin>(body: &mut B) -> Option<Bytes> {
        let mut context = Context::from_waker(std::task::Waker::noop());
        match std::pin::Pin::new(body).poll_frame(&mut context) {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().ok(),
            _ => None,
        }
    }

    #[test]
    fn frames_are_cut_without_copies_and_the_request_ends_after_the_last() {
        static BYTES: [u8; 10] = *b"0123456789";
        let activity = Activity::new(&Clock::new());
        let in_flight = activity.request_started(true);
        let mut body = Tracked::new(
            http_body_util::Full::new(Bytes::from_static(&BYTES)),
            in_flight,
            Some(4),
        );
        assert!(!body.is_end_stream());
        let mut frames = Vec::new();
        while let Some(frame) = poll(&mut body) {
            assert!(
                !activity.is_idle(),
                "in flight until hyper asks past the end"
            );
            assert!(BYTES.as_ptr_range().contains(&frame.as_ptr()), "no copy");
            frames.push(frame);
        }
        assert_eq!(frames, ["0123", "4567", "89"]);
        assert!(activity.is_idle());
    }

    #[test]
    fn an_empty_body_says_so_and_ends_when_dropped() {
        let activity = Activity::new(&Clock::new());
        let body = Tracked::new(
            http_body_util::Empty::<Bytes>::new(),
            activity.request_started(false),
            None,
        );
        assert!(body.is_end_stream());
        assert!(!activity.is_idle());
        drop(body);
        assert!(activity.is_idle());
    }
}
