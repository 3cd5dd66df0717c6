//! [`NotFoundService`]: a catalog whose misses go to another tower service, answered with status
//! 404, as tower-http's `ServeDir::not_found_service`.

use std::task::{Context, Poll};

use http::{Request, Response};
use http_body_util::Either;
use tower_service::Service;

use crate::serve::body::Body;
use crate::serve::future::NotFoundFuture;
use crate::serve::service::{Miss, ServeCatalog};

/// A [`ServeCatalog`] that hands every request it has no file for (after its SPA fallback and
/// aliases) to another tower service (a page of the application's, a router) and answers with
/// that service's response, its status set to 404, as tower-http's
/// `ServeDir::not_found_service`.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tower::ServiceExt;
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// let page = tower::service_fn(|_request: http::Request<()>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new("nothing here".to_owned()))
/// });
/// let service = bindery::serve::NotFoundService::new(bindery::serve::ServeCatalog::new(&SITE), page);
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

impl<S> NotFoundService<S> {
    /// `catalog`, its misses handed to `service`.
    pub fn new(catalog: ServeCatalog, service: S) -> Self {
        NotFoundService { catalog, service }
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
        let Miss { varies } = match self.catalog.serve_or_miss(&request) {
            Ok(found) => return NotFoundFuture::Catalog(found),
            Err(miss) => miss,
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
