//! The futures of the services: [`ResponseFuture`], [`ServeCatalog`](super::ServeCatalog)'s,
//! and [`NotFoundFuture`], [`NotFoundService`](super::NotFoundService)'s.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::header::VARY;
use http::{HeaderValue, Response, StatusCode};
use http_body_util::Either;

use crate::serve::body::Body;

/// The future of [`ServeCatalog`](super::ServeCatalog)'s answers: ready at once, except for a
/// large decompression, which runs on tokio's blocking pool within the service's bounds (see
/// [`Decompression`](super::Decompression)). Dropping it gives up its share of the
/// decompression, which stops when no request wants it.
pub struct ResponseFuture {
    state: State,
}

enum State {
    Ready(Option<Response<Body>>),
    Inflating(Pin<Box<dyn Future<Output = Response<Body>> + Send>>),
}

impl ResponseFuture {
    /// A response ready now.
    pub(crate) fn ready(response: Response<Body>) -> Self {
        ResponseFuture {
            state: State::Ready(Some(response)),
        }
    }

    /// A response that `work` finishes.
    pub(crate) fn later(work: impl Future<Output = Response<Body>> + Send + 'static) -> Self {
        ResponseFuture {
            state: State::Inflating(Box::pin(work)),
        }
    }
}

impl std::fmt::Debug for ResponseFuture {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Ready(_) => "ready",
            State::Inflating(_) => "inflating",
        };
        formatter
            .debug_struct("ResponseFuture")
            .field("state", &state)
            .finish()
    }
}

impl Future for ResponseFuture {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.state {
            // Polled again after its answer: a bug of the caller's, answered with a 500.
            State::Ready(response) => Poll::Ready(Ok(response.take().unwrap_or_else(|| {
                let mut response = Response::new(Body::empty());
                *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
                response
            }))),
            State::Inflating(inflating) => inflating.as_mut().poll(context).map(Ok),
        }
    }
}

/// The future of [`NotFoundService`](super::NotFoundService).
pub enum NotFoundFuture<F> {
    /// A file of the catalog.
    Catalog(ResponseFuture),
    /// A miss, answered by the other service (boxed: misses are the uncommon path).
    Service {
        /// The other service's answer.
        future: Pin<Box<F>>,
        /// Whether the miss depended on `Accept` (the SPA fallback was considered).
        varies: bool,
    },
}

impl<F: std::fmt::Debug> std::fmt::Debug for NotFoundFuture<F> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotFoundFuture::Catalog(future) => {
                formatter.debug_tuple("Catalog").field(future).finish()
            }
            NotFoundFuture::Service { varies, .. } => formatter
                .debug_struct("Service")
                .field("varies", varies)
                .finish_non_exhaustive(),
        }
    }
}

impl<F, ResBody, E> Future for NotFoundFuture<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = Result<Response<Either<Body, ResBody>>, E>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        // Neither variant needs pinning in place: `ResponseFuture` is `Unpin` and the other is
        // boxed.
        match self.get_mut() {
            NotFoundFuture::Catalog(future) => Pin::new(future).poll(context).map(|answered| {
                Ok(answered
                    .unwrap_or_else(|never| match never {})
                    .map(Either::Left))
            }),
            NotFoundFuture::Service { future, varies } => {
                future.as_mut().poll(context).map(|answered| {
                    answered.map(|response| {
                        let mut response = response.map(Either::Right);
                        *response.status_mut() = StatusCode::NOT_FOUND;
                        if *varies {
                            response
                                .headers_mut()
                                .append(VARY, HeaderValue::from_static("accept"));
                        }
                        response
                    })
                })
            }
        }
    }
}
