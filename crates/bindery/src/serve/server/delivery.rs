//! How an answer's delivery is seen: a response body that reports each frame hyper takes and
//! ends its request only when hyper asks past the last one ([`Tracked`]), and a socket that
//! reports bytes moving and HTTP/2 header blocks left open ([`Watched`]), and holds the
//! connection's slot of the cap for as long as it is open, an upgrade included.
//!
//! hyper takes the next frame of a body only when the last one is on its way: HTTP/1 writes a
//! frame larger than its write buffer (protocol.rs sizes it) before asking for more, and HTTP/2
//! asks once it has handed the last to h2 (in_flight.rs says what that proves). So a body cut
//! into bounded frames shows its delivery frame by frame, and one whose end is reported only
//! when hyper asks for more stays in flight until its last bytes are handed over.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body as _;
use hyper::body::Incoming;
use hyper_util::service::{TowerToHyperService, TowerToHyperServiceFuture};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::activity::Activity;
use super::frames::{Block, Frames};
pub use super::in_flight::HTTP2_FRAME;
use super::in_flight::InFlight;
use super::slots::Slot;
use crate::serve::stages::budget;

/// A connection's service as hyper calls it: each request started on the connection's
/// [`Activity`] when hyper calls it (its head is complete), its answer's body [`Tracked`], and
/// the connection's client known to the byte budget while the service runs (budget.rs). The
/// service is called as `axum::serve` calls it (cloned, made ready, called), with nothing
/// boxed or allocated beside it.
#[derive(Debug)]
pub struct Tracking<S> {
    service: TowerToHyperService<S>,
    activity: Arc<Activity>,
    client: Option<u128>,
}

impl<S> Tracking<S> {
    /// `service`, reporting to `activity`, for `client` (none for a trusted proxy).
    pub fn new(service: S, activity: Arc<Activity>, client: Option<u128>) -> Self {
        Tracking {
            service: TowerToHyperService::new(service),
            activity,
            client,
        }
    }
}

impl<S, B> hyper::service::Service<Request<Incoming>> for Tracking<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone,
    B: http_body::Body,
{
    type Response = Response<Tracked<B>>;
    type Error = S::Error;
    type Future = Answer<S>;

    fn call(&self, request: Request<Incoming>) -> Answer<S> {
        let is_http2 = request.version() == http::Version::HTTP_2;
        let has_body = !request.body().is_end_stream();
        Answer {
            in_flight: InFlight::start(&self.activity, is_http2, has_body),
            client: self.client,
            inner: budget::for_client(self.client, || self.service.call(request)),
        }
    }
}

pin_project_lite::pin_project! {
    /// The answer of a [`Tracking`] service: the service's, its body [`Tracked`].
    pub struct Answer<S>
    where
        S: tower_service::Service<Request<Incoming>>,
    {
        #[pin]
        inner: TowerToHyperServiceFuture<S, Request<Incoming>>,
        in_flight: InFlight,
        client: Option<u128>,
    }
}

impl<S, B> Future for Answer<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>>,
    B: http_body::Body,
{
    type Output = Result<Response<Tracked<B>>, S::Error>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let inner = this.inner;
        let response = ready!(budget::for_client(*this.client, || inner.poll(context)))?;
        let in_flight = std::mem::take(this.in_flight);
        Poll::Ready(Ok(response.map(|body| Tracked::new(body, in_flight))))
    }
}

pin_project_lite::pin_project! {
    /// A response body that ends its request with it (see [`InFlight`]) and records each frame
    /// hyper takes. Frames pass through as they are, over HTTP/2 cut to [`HTTP2_FRAME`] bytes
    /// so that each stream's progress shows (`Bytes::split_off`, no copy: a
    /// `Bytes::from_static` body stays one); HTTP/1 writes whole frames and its socket's bytes
    /// show progress.
    pub struct Tracked<B> {
        #[pin]
        inner: B,
        in_flight: InFlight,
        rest: Option<Bytes>,
    }
}

impl<B: http_body::Body> Tracked<B> {
    /// `inner`, ending `in_flight` with it. An empty body is complete as it is.
    pub fn new(inner: B, mut in_flight: InFlight) -> Self {
        if inner.is_end_stream() {
            in_flight.finished();
        }
        Tracked {
            inner,
            in_flight,
            rest: None,
        }
    }
}

/// `data` cut to [`HTTP2_FRAME`] bytes over HTTP/2; what is left over goes into `rest`.
fn cut(mut data: Bytes, in_flight: &InFlight, rest: &mut Option<Bytes>) -> Bytes {
    if !in_flight.ends_at_flush() && data.len() > HTTP2_FRAME {
        *rest = Some(data.split_off(HTTP2_FRAME));
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
            let data = cut(rest, this.in_flight, this.rest);
            this.in_flight.took(data.len());
            return Poll::Ready(Some(Ok(http_body::Frame::data(data))));
        }
        match this.inner.poll_frame(context) {
            Poll::Ready(Some(Ok(frame))) => {
                let frame = match frame.into_data() {
                    Ok(data) => {
                        let data = cut(data, this.in_flight, this.rest);
                        this.in_flight.took(data.len());
                        http_body::Frame::data(data)
                    }
                    Err(other) => {
                        this.in_flight.took(0);
                        other
                    }
                };
                Poll::Ready(Some(Ok(frame)))
            }
            ended @ Poll::Ready(None | Some(Err(_))) => {
                this.in_flight.finished();
                this.in_flight.end();
                ended
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// An empty body says so at once (hyper then never polls it: it ends when dropped). Over
    /// HTTP/1 any other says so with its last frame, as the body it wraps does (the request
    /// ends when hyper has written it: [`InFlight::ends_at_flush`]); over HTTP/2 only once it
    /// has said `None`, so that hyper asks for its end after the last frame.
    fn is_end_stream(&self) -> bool {
        let unsent = !self.in_flight.has_taken() || self.in_flight.ends_at_flush();
        unsent && self.rest.is_none() && self.inner.is_end_stream()
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

/// What a socket holds for its connection: the slot of the cap, given back with the socket
/// (after an upgrade, when the application lets it go), and the activity told first that the
/// socket is going, before its descriptor closes.
#[derive(Debug)]
pub struct Holds {
    activity: Arc<Activity>,
    _slot: Slot,
}

impl Holds {
    pub(super) fn new(activity: Arc<Activity>, slot: Slot) -> Self {
        Holds {
            activity,
            _slot: slot,
        }
    }
}

impl Drop for Holds {
    fn drop(&mut self) {
        self.activity.detach_socket();
    }
}

pin_project_lite::pin_project! {
    /// A socket that records when bytes move and follows the client's HTTP/2 header blocks.
    /// Vectored writes pass through as vectored writes. What it [`Holds`] is let go before the
    /// socket closes.
    pub struct Watched<T> {
        holds: Holds,
        #[pin]
        inner: T,
        frames: Frames,
    }
}

impl<T> Watched<T> {
    /// `inner`, reporting to the activity `holds` names.
    pub fn new(inner: T, holds: Holds) -> Self {
        Watched {
            holds,
            inner,
            frames: Frames::default(),
        }
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
        let read = &buf.filled()[before..];
        if !read.is_empty() {
            let activity = &this.holds.activity;
            activity.bytes_read();
            this.frames
                .feed(read, activity.scans_heads(), &mut |block| match block {
                    Block::Opened => activity.header_block_opened(),
                    Block::Closed => activity.header_block_closed(),
                    Block::HeadBegun => activity.next_head_begun(),
                    Block::HeadsComplete => activity.heads_complete(),
                });
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
            this.holds.activity.bytes_written();
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
            this.holds.activity.bytes_written();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    /// hyper flushes the socket once it has written all it holds: an HTTP/1 answer whose body
    /// is done is then delivered.
    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let polled = this.inner.poll_flush(context);
        if let Poll::Ready(Ok(())) = polled {
            this.holds.activity.flushed();
        }
        polled
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

    use http_body_util::{Empty, Full};

    use super::{HTTP2_FRAME, InFlight, Tracked};
    use crate::serve::server::activity::Activity;
    use crate::serve::server::clock::Clock;

    fn poll<B: http_body::Body<Data = Bytes> + Unpin>(body: &mut B) -> Option<Bytes> {
        let mut context = Context::from_waker(std::task::Waker::noop());
        match std::pin::Pin::new(body).poll_frame(&mut context) {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().ok(),
            _ => None,
        }
    }

    #[test]
    fn http2_frames_are_cut_without_copies_and_the_request_ends_after_the_last() {
        static BYTES: [u8; 2 * HTTP2_FRAME + 10] = [7; 2 * HTTP2_FRAME + 10];
        let activity = Activity::new(&Clock::new());
        let in_flight = InFlight::start(&activity, true, false);
        let mut body = Tracked::new(Full::new(Bytes::from_static(&BYTES)), in_flight);
        assert!(!body.is_end_stream());
        let mut frames = Vec::new();
        while let Some(frame) = poll(&mut body) {
            assert!(
                !activity.is_idle(),
                "in flight until hyper asks past the end"
            );
            assert!(!body.is_end_stream(), "hyper asks once more");
            assert!(BYTES.as_ptr_range().contains(&frame.as_ptr()), "no copy");
            frames.push(frame.len());
        }
        assert_eq!(frames, [HTTP2_FRAME, HTTP2_FRAME, 10]);
        assert!(activity.is_idle());
    }

    #[test]
    fn an_empty_body_says_so_and_ends_when_dropped() {
        let activity = Activity::new(&Clock::new());
        let body = Tracked::new(
            Empty::<Bytes>::new(),
            InFlight::start(&activity, false, false),
        );
        assert!(body.is_end_stream());
        assert!(!activity.is_idle());
        drop(body);
        assert!(
            !activity.is_idle(),
            "HTTP/1: until hyper has written the head"
        );
        activity.flushed();
        assert!(activity.is_idle());
    }

    #[test]
    fn an_http1_body_tells_its_end_with_its_last_frame_uncut() {
        static BYTES: [u8; 2 * HTTP2_FRAME] = [7; 2 * HTTP2_FRAME];
        let activity = Activity::new(&Clock::new());
        let mut body = Tracked::new(
            Full::new(Bytes::from_static(&BYTES)),
            InFlight::start(&activity, false, false),
        );
        assert!(!body.is_end_stream());
        assert_eq!(poll(&mut body).as_deref(), Some(&BYTES[..]));
        assert!(
            body.is_end_stream(),
            "hyper can end the message with this frame"
        );
        drop(body);
        assert!(!activity.is_idle(), "in flight until hyper has written it");
        activity.flushed();
        assert!(activity.is_idle());
    }
}
