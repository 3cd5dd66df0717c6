//! The front door: the two hot paths, `/geo/<ip>` and static files, answered without going
//! through the router; everything else goes through it.
//!
//! The router ([`router`](crate::router)) stays the complete definition of the application. The
//! front answers `/geo/<ip>` with the router's own handler code and static files with the same
//! `ServeCatalog`, only without what the router costs per request: matching, a boxed clone of
//! the fallback service and its boxed future, the path extractor's `String`, the peer address
//! in the request's extensions, and a request timer that a response ready at once never needs.
//! Tests check that both doors give the same responses.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::response::IntoResponse;
use axum::routing::MethodRouter;
use axum::routing::future::RouteFuture;
use bindery::serve::ServeCatalog;
use http::header::CONTENT_LENGTH;
use http::{Method, Request, Response};
use tower_service::Service;

use crate::address::AddressError;
use crate::caching;
use crate::count::finish;
use crate::error::AppError;
use crate::metrics::Metrics;
use crate::routes::{self, AppBody, AppState, GEO_IP, ROUTES};

/// Which way a request goes, from its method and path.
#[derive(Debug, PartialEq, Eq)]
enum Door<'a> {
    /// `GET`/`HEAD /geo/<segment>`: the segment as sent, percent-encoded.
    Geo(&'a str),
    /// A file of a catalog: the index of the mount in `App::catalogs`.
    Static(usize),
    /// The router: the rest of the API, other methods on `/geo/<ip>`, added routes.
    Router,
}

/// geo-server's service: the router's answers, the hot paths taken first. Cheap to clone.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tower::ServiceExt;
/// let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").unwrap();
/// let app = geo_server::app(geo_server::AppState::new(db));
/// let request = http::Request::get("/geo/8.8.8.8").body(axum::body::Body::empty()).unwrap();
/// let response = app.oneshot(request).await.unwrap();
/// assert_eq!(response.status(), http::StatusCode::OK);
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct App {
    state: AppState,
    router: Router,
    /// Catalogs served under a prefix (`mount`), then the SPA at the root, last.
    catalogs: Arc<[ServeCatalog]>,
    /// The router's exact paths, from its table and [`route`](App::route): requests for them
    /// always go through the router.
    routes: Arc<[String]>,
    request_timeout: Option<Duration>,
}

/// The application over `state`: the router of [`router`](crate::router) with the SPA of
/// [`assets`](crate::assets), and the front door before it.
pub fn app(state: AppState) -> App {
    let assets = routes::assets_over(state.spa_overlay.clone());
    App {
        router: routes::router(state.clone(), assets.clone()),
        state,
        catalogs: Arc::from([assets]),
        routes: ROUTES
            .iter()
            .map(|(path, _)| *path)
            .filter(|path| *path != GEO_IP)
            .map(str::to_owned)
            .collect(),
        request_timeout: None,
    }
}

impl App {
    /// Serves `service` under its mount point (`/static`, set with
    /// [`Builder::mounted_at`](bindery::serve::Builder::mounted_at)), before the SPA, as
    /// `Router::nest_service` would but without its per-request URI rebuild. One at the root
    /// replaces the SPA. A mount point mounted again replaces the first.
    ///
    /// ```
    /// # let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").unwrap();
    /// let copy = bindery::serve::ServeCatalog::builder(&geo_server::SPA).mounted_at("/spa-copy");
    /// let app = geo_server::app(geo_server::AppState::new(db)).mount(copy.build().unwrap());
    /// # let _ = app;
    /// ```
    pub fn mount(mut self, service: ServeCatalog) -> Self {
        let mut catalogs = self.catalogs.to_vec();
        let same_mount = catalogs
            .iter()
            .position(|known| known.mount_point() == service.mount_point());
        match same_mount {
            Some(index) => catalogs[index] = service,
            // Before the SPA, which stays last: it takes whatever no mount does.
            None => catalogs.insert(catalogs.len() - 1, service),
        }
        self.catalogs = catalogs.into();
        self
    }

    /// Adds a route at an exact path to the router (`Router::route`); requests for that path
    /// go through the router. The front door compares paths as they are, so the path takes no
    /// `{parameters}`: for those, build a [`router`](crate::router) of your own.
    pub fn route(mut self, path: &str, method_router: MethodRouter) -> Self {
        self.router = self.router.route(path, method_router);
        let mut routes = self.routes.to_vec();
        routes.push(path.to_owned());
        self.routes = routes.into();
        self
    }

    /// The state the handlers share.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Answers a request whose response is not ready within `limit` with 408 (JSON). Only a
    /// response that is not ready at once (a large decompression on the blocking pool, a slow
    /// handler) starts a timer.
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.request_timeout = Some(limit);
        self
    }

    /// Answers `request`; `peer` is the client's address (for `/geo/me`), when there is a
    /// connection. `Service::call` is this without a peer: tests put one in the request's
    /// extensions themselves.
    pub fn call_from<B>(&self, request: Request<B>, peer: Option<SocketAddr>) -> AppFuture
    where
        B: axum::body::HttpBody<Data = bytes::Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        match self.door(request.method(), request.uri().path()) {
            Door::Geo(segment) => {
                let decoded = percent_encoding::percent_decode_str(segment).decode_utf8();
                let address = decoded.as_deref().map_err(|_| AddressError::Malformed);
                let mut response = routes::geo_ip_response(
                    &self.state,
                    address,
                    request.uri().query(),
                    request.headers(),
                );
                set_content_length(&mut response);
                // HEAD gets GET's headers, `Content-Length` included, and no body.
                if request.method() == Method::HEAD {
                    *response.body_mut() = AppBody::Left(bindery::serve::Body::empty());
                }
                let route = self.state.metrics.label(GEO_IP);
                finish(&mut response, &self.state.metrics, route);
                AppFuture::ready(response)
            }
            Door::Static(index) => AppFuture {
                state: State::Static {
                    inner: self.catalogs[index].serve(&request),
                    metrics: Some(Arc::clone(&self.state.metrics)),
                    deadline: Deadline::new(self.request_timeout),
                },
            },
            Door::Router => {
                let mut request = request.map(axum::body::Body::new);
                if let Some(peer) = peer {
                    request.extensions_mut().insert(ConnectInfo(peer));
                }
                AppFuture {
                    state: State::Routed {
                        inner: self.router.clone().call(request),
                        deadline: Deadline::new(self.request_timeout),
                    },
                }
            }
        }
    }

    fn door<'p>(&self, method: &Method, path: &'p str) -> Door<'p> {
        if self.routes.iter().any(|route| route == path) {
            return Door::Router;
        }
        if let Some(segment) = path.strip_prefix(routes::fixed_part(GEO_IP)) {
            let is_address = !segment.is_empty() && !segment.contains('/');
            return if is_address && (method == Method::GET || method == Method::HEAD) {
                Door::Geo(segment)
            } else {
                Door::Router
            };
        }
        // The SPA, at the root and last, covers every path no mount does.
        let mount = self
            .catalogs
            .iter()
            .position(|catalog| catalog.covers(path));
        Door::Static(mount.unwrap_or(self.catalogs.len() - 1))
    }
}

/// `Content-Length` from a body of known size, when the response has none, as the router
/// writes it into every response.
fn set_content_length(response: &mut Response<AppBody>) {
    use axum::body::HttpBody as _;
    if response.headers().contains_key(CONTENT_LENGTH) {
        return;
    }
    if let Some(length) = response.body().size_hint().exact() {
        response
            .headers_mut()
            .insert(CONTENT_LENGTH, crate::exact::content_length_u64(length));
    }
}

impl<B> Service<Request<B>> for App
where
    B: axum::body::HttpBody<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response<AppBody>;
    type Error = Infallible;
    type Future = AppFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> AppFuture {
        self.call_from(request, None)
    }
}

impl App {
    /// The app for the requests of one connection from `peer`: what
    /// [`Server::serve_per_connection`](bindery::serve::Server::serve_per_connection) makes
    /// per connection, so that `/geo/me` knows its client at no cost per request.
    pub fn for_peer(&self, peer: SocketAddr) -> ConnectionApp {
        ConnectionApp {
            app: self.clone(),
            peer,
        }
    }
}

/// [`App`] serving one connection: every request is answered as from its peer.
#[derive(Debug, Clone)]
pub struct ConnectionApp {
    app: App,
    peer: SocketAddr,
}

impl<B> Service<Request<B>> for ConnectionApp
where
    B: axum::body::HttpBody<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response<AppBody>;
    type Error = Infallible;
    type Future = AppFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> AppFuture {
        self.app.call_from(request, Some(self.peer))
    }
}

/// A request timer started only when the response is not ready at the first poll: most are,
/// and then no timer is registered, armed or cancelled.
#[derive(Debug)]
struct Deadline {
    limit: Option<Duration>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Deadline {
    fn new(limit: Option<Duration>) -> Self {
        Deadline { limit, sleep: None }
    }

    /// Whether the limit has passed; starts the timer at the first call.
    fn is_over(&mut self, context: &mut Context<'_>) -> bool {
        let Some(limit) = self.limit else {
            return false;
        };
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        sleep.as_mut().poll(context).is_ready()
    }
}

pin_project_lite::pin_project! {
    /// The future of [`App`]'s answers.
    pub struct AppFuture {
        #[pin]
        state: State,
    }
}

pin_project_lite::pin_project! {
    #[project = StateProjection]
    enum State {
        // Answered already (`/geo/<ip>`).
        Ready { response: Option<Response<AppBody>> },
        // A file: ready at once unless it is decompressed on the blocking pool.
        Static {
            #[pin]
            inner: bindery::serve::future::ResponseFuture,
            metrics: Option<Arc<Metrics>>,
            deadline: Deadline,
        },
        // Through the router.
        Routed {
            #[pin]
            inner: RouteFuture<Infallible>,
            deadline: Deadline,
        },
    }
}

impl AppFuture {
    fn ready(response: Response<AppBody>) -> Self {
        AppFuture {
            state: State::Ready {
                response: Some(response),
            },
        }
    }
}

impl Future for AppFuture {
    type Output = Result<Response<AppBody>, Infallible>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let response = match self.project().state.project() {
            // Polled again after its answer: a bug of the caller's, answered like one.
            StateProjection::Ready { response } => response.take().unwrap_or_else(|| {
                AppError::Internal("response polled twice".to_owned())
                    .into_response()
                    .map(AppBody::Right)
            }),
            StateProjection::Static {
                inner,
                metrics,
                deadline,
            } => match inner.poll(context) {
                Poll::Ready(Ok(response)) => {
                    let mut response = response.map(AppBody::Left);
                    if let Some(metrics) = metrics.take() {
                        finish(&mut response, &metrics, crate::metrics::STATIC);
                    }
                    response
                }
                Poll::Pending if deadline.is_over(context) => timed_out(),
                Poll::Pending => return Poll::Pending,
            },
            StateProjection::Routed { inner, deadline } => match inner.poll(context) {
                Poll::Ready(Ok(response)) => response.map(AppBody::Right),
                Poll::Pending if deadline.is_over(context) => timed_out(),
                Poll::Pending => return Poll::Pending,
            },
        };
        Poll::Ready(Ok(response))
    }
}

/// 408, as JSON like every error of the API; caches must not keep it.
fn timed_out() -> Response<AppBody> {
    let mut response = AppError::TimedOut.into_response().map(AppBody::Right);
    caching::default_no_store(&mut response);
    response
}
