//! The one layer every request goes through: it counts the answer by route label and status, and
//! gives answers without a caching policy of their own `no-store`.
//!
//! Written as a tower layer with its own future rather than `axum::middleware::from_fn`, which
//! boxes the inner service and two futures per request: this one allocates nothing.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::{MatchedPath, Request};
use axum::response::Response;
use tower_layer::Layer;
use tower_service::Service;

use crate::caching;
use crate::metrics::Metrics;

/// Wraps each route (and the fallback) of the router in [`Count`].
///
/// ```
/// use std::sync::Arc;
/// let layer = geo_server::count::CountLayer::new(Arc::new(geo_server::metrics::Metrics::for_routes(["/"])));
/// let router: axum::Router = axum::Router::new().route("/", axum::routing::get(|| async { "hi" })).layer(layer);
/// # let _ = router;
/// ```
#[derive(Debug, Clone)]
pub struct CountLayer {
    metrics: Arc<Metrics>,
}

impl CountLayer {
    /// A layer recording into `metrics`.
    pub fn new(metrics: Arc<Metrics>) -> Self {
        CountLayer { metrics }
    }
}

impl<S> Layer<S> for CountLayer {
    type Service = Count<S>;

    fn layer(&self, inner: S) -> Count<S> {
        Count {
            inner,
            metrics: self.metrics.clone(),
        }
    }
}

/// The service [`CountLayer`] makes: the inner service, then the count and the caching default.
#[derive(Debug, Clone)]
pub struct Count<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S> Service<Request> for Count<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = CountFuture<S::Future>;

    fn poll_ready(&mut self, context: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(context)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The router puts the matched route in the request before calling the route's service;
        // the fallback (the SPA and its files) has none.
        let route = match request.extensions().get::<MatchedPath>() {
            Some(matched) => self.metrics.label(matched.as_str()),
            None => crate::metrics::STATIC,
        };
        CountFuture {
            inner: self.inner.call(request),
            route,
            metrics: self.metrics.clone(),
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Count`]: the inner future, then the bookkeeping on its response.
    pub struct CountFuture<F> {
        #[pin]
        inner: F,
        route: &'static str,
        metrics: Arc<Metrics>,
    }
}

impl<F> Future for CountFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let Ok(mut response) = std::task::ready!(this.inner.poll(context));
        finish(&mut response, this.metrics, this.route);
        Poll::Ready(Ok(response))
    }
}

/// What every answer goes through, in the router's layer and in the front door alike: the
/// `no-store` default for answers without a caching policy, then the count by route and status.
pub(crate) fn finish<B>(response: &mut http::Response<B>, metrics: &Metrics, route: &str) {
    caching::default_no_store(response);
    metrics.record(route, response.status().as_u16());
}
