//! [`NotFoundService`]: a catalog whose misses go to another tower service, answered with status
//! 404, as tower-http's `ServeDir::not_found_service`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::header::VARY;
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::Either;
use tower_service::Service;

use super::decide::Outcome;
use super::{Body, ResponseFuture, ServeCatalog};

/// A [`ServeCatalog`] that hands every request it has no file for to `service` and answers
/// with that service's response, its status set to 404. Made by
/// [`ServeCatalog::not_found_service`].
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tower::ServiceExt;
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// let page = tower::service_fn(|_request: http::Request<()>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new("nothing here".to_owned()))
/// });
/// let service = bindery::serve::ServeCatalog::new(&SITE).not_found_service(page);
///
/// let missing = service.clone().oneshot(http::Request::get("/nope").body(()).unwrap()).await.unwrap();
/// assert_eq!(missing.status(), http::StatusCode::NOT_FOUND);
/// let found = service.oneshot(http::Request::get("/hello.txt").body(()).unwrap()).await.unwrap();
/// assert_eq!(found.status(), http::StatusCode::OK);
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct NotFoundService<S> {
    catalog: ServeCatalog,
    service: S,
}

impl ServeCatalog {
    /// Hands the requests this catalog has no file for (after its SPA fallback and aliases)
    /// to `service`, whose response is sent with status 404: a page of the application's, a
    /// router, anything that is a tower `Service`.
    pub fn not_found_service<S>(self, service: S) -> NotFoundService<S> {
        NotFoundService {
            catalog: self,
            service,
        }
    }
}

impl<B, S, ResBody> Service<Request<B>> for NotFoundService<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone,
{
    type Response = Response<Either<Body, ResBody>>;
    type Error = S::Error;
    type Future = NotFoundFuture<S::Future>;

    fn poll_ready(&mut self, context: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        // A miss may come with any request: the service must be ready for it.
        self.service.poll_ready(context)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let varies = match self.catalog.decide(&request) {
            Outcome::NotFound { varies, .. } => varies,
            found => return NotFoundFuture::Catalog(self.catalog.future_of(found, &request)),
        };
        // The ready service answers; a clone takes its place for the next call.
        let clone = self.service.clone();
        let mut service = std::mem::replace(&mut self.service, clone);
        NotFoundFuture::Service {
            future: Box::pin(service.call(request)),
            varies,
        }
    }
}

/// The future of [`NotFoundService`].
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
