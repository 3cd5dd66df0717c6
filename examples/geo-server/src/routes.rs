//! The router: `/geo/<ip>`, `/geo/me`, `/healthz`, `/metrics`, `/openapi.json`, and the SPA.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use axum::{Json, Router};
use bindery::Catalog;
use bindery::serve::{Decompression, ServeCatalog};
use http::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, ETAG};
use http::{HeaderMap, HeaderValue, StatusCode};
use maxminddb::MaxMindDbError;

use crate::address::{self, AddressError};
use crate::caching::{self, GeoCaching, GeoTag, NO_CACHE, PRIVATE_NO_STORE};
use crate::count::CountLayer;
use crate::db::{GeoDb, Snapshot};
use crate::error::AppError;
use crate::language::Language;
use crate::metrics::Metrics;
use bindery::serve::server::{ConnectionCounters, TrustedProxies};

/// The body of every response: a whole body as `ServeCatalog` and `/geo/<ip>` make it (not
/// boxed), or the router's.
pub type AppBody = http_body_util::Either<bindery::serve::Body, axum::body::Body>;

/// The single-page app: stored gzip-compressed, with brotli and zstd variants made at build time;
/// each browser gets the smallest it accepts, as stored.
pub static SPA: Catalog = bindery::embed!(
    "../../assets/spa",
    mode = "gzip",
    precompress = ["br", "zstd"]
);

/// Decompressed SPA bodies kept for clients that do not take gzip (curl without `--compressed`).
const SPA_CACHE_BUDGET: usize = 4 * 1024 * 1024;

/// Everything the handlers share.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The database.
    pub db: Arc<GeoDb>,
    /// Request counters.
    pub metrics: Arc<Metrics>,
    /// The proxies whose forwarding header `/geo/me` believes (none by default).
    pub trusted_proxies: TrustedProxies,
    /// How long caches may keep `/geo/<ip>` answers.
    pub geo_caching: GeoCaching,
    /// Whether the public listener answers `/metrics`: off unless asked for
    /// (`--public-metrics`); `--admin-addr` serves it on a listener of its own.
    pub metrics_public: bool,
    /// The open connections and their cap, counted by the server, shown by `/metrics`.
    pub connections: ConnectionCounters,
    /// A folder laid over the SPA's embedded files (`--spa-overlay`), none by default.
    pub spa_overlay: Option<bindery::overlay::Overlay>,
}

impl AppState {
    /// State around a database, with fresh counters and no proxy trusted.
    pub fn new(db: GeoDb) -> Self {
        AppState {
            db: Arc::new(db),
            metrics: Arc::new(Metrics::for_routes(paths())),
            trusted_proxies: TrustedProxies::none(),
            geo_caching: GeoCaching::default(),
            metrics_public: false,
            connections: ConnectionCounters::default(),
            spa_overlay: None,
        }
    }
}

/// The SPA's service: the fallback for browser navigations, never under the API's paths, and a
/// decompressed-body cache for clients without gzip.
///
/// ```
/// let page = geo_server::assets().respond(&http::Request::get("/lookup/8.8.8.8").header("accept", "text/html").body(()).unwrap());
/// assert_eq!(page.status(), http::StatusCode::OK);
/// ```
pub fn assets() -> ServeCatalog {
    assets_over(None)
}

/// [`assets`], with a folder laid over the SPA's files when one is given.
pub fn assets_over(overlay: Option<bindery::overlay::Overlay>) -> ServeCatalog {
    let mut builder = ServeCatalog::builder(&SPA);
    if let Some(overlay) = overlay {
        builder = builder.overlay(overlay);
    }
    let builder = builder
        .spa_fallback("index.html")
        .decompression(Decompression {
            cache_bytes: SPA_CACHE_BUDGET,
            ..Decompression::default()
        })
        // Errors are JSON, like every error of the API.
        .error_body(|status, reason| {
            let body = serde_json::json!({ "error": reason, "status": status.as_u16() });
            (
                HeaderValue::from_static("application/json"),
                body.to_string().into(),
            )
        });
    // A miss under any route is the API's, never the app's page.
    fallback_exclusions()
        .into_iter()
        .fold(builder, bindery::serve::Builder::no_fallback_prefix)
        .build()
        .expect("the SPA has its index.html")
}

/// What the SPA never answers, from the route table: the fixed part of each route that takes a
/// segment (`/geo/`, which covers `/geo` too), and each exact path outside those.
fn fallback_exclusions() -> Vec<&'static str> {
    let prefixes: Vec<&str> = ROUTES
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| path.contains('{'))
        .map(fixed_part)
        .collect();
    let is_covered = |path: &str| {
        prefixes
            .iter()
            .any(|prefix| path.starts_with(prefix) || path == prefix.trim_end_matches('/'))
    };
    let exact = ROUTES
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| !path.contains('{') && !is_covered(path));
    prefixes.iter().copied().chain(exact).collect()
}

/// The path of the route the front door answers itself, `/geo/<ip>`.
pub(crate) const GEO_IP: &str = "/geo/{ip}";

/// A route's handler.
type Handler = fn() -> MethodRouter<AppState>;

/// The API: every route's path and handler, the one table the router, the front door and the
/// SPA's fallback exclusions are made from. A `{name}` segment takes one path segment.
pub(crate) const ROUTES: &[(&str, Handler)] = &[
    ("/geo/me", || get(geo_me)),
    (GEO_IP, || get(geo_ip)),
    ("/geo", || get(missing_address)),
    ("/geo/", || get(missing_address)),
    ("/healthz", || get(healthz)),
    ("/metrics", || get(metrics)),
    ("/openapi.json", || get(openapi)),
];

/// The path of every route of [`ROUTES`], in its order.
pub(crate) fn paths() -> impl Iterator<Item = &'static str> {
    ROUTES.iter().map(|(path, _)| *path)
}

/// A route's path up to its first `{name}` segment (`/geo/{ip}` -> `/geo/`); the whole path
/// of a route without one.
pub(crate) fn fixed_part(path: &str) -> &str {
    path.find('{').map_or(path, |start| &path[..start])
}

/// The whole application as an axum `Router`: every route, the SPA as its fallback, the
/// counting layer. [`app`](crate::app) answers exactly as this router does, with its two hot
/// paths taken before it; use the router to merge the API into an axum application of your own.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tower::ServiceExt;
/// let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").unwrap();
/// let state = geo_server::AppState::new(db);
/// let router = geo_server::router(state, geo_server::assets());
/// let request = http::Request::get("/healthz").body(axum::body::Body::empty()).unwrap();
/// assert_eq!(router.oneshot(request).await.unwrap().status(), http::StatusCode::OK);
/// # });
/// ```
pub fn router(state: AppState, assets: ServeCatalog) -> Router {
    ROUTES
        .iter()
        .fold(Router::new(), |router, (path, handler)| {
            router.route(path, handler())
        })
        .fallback_service(assets)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(CountLayer::new(state.metrics.clone()))
        .with_state(state)
}

#[derive(Debug, serde::Deserialize)]
struct LangQuery {
    lang: Option<String>,
}

/// The answer's language from the request's query string, parsed as axum's `Query` would.
fn language(query: Option<&str>) -> Result<Language, AppError> {
    let Some(query) = query else {
        return Ok(Language::English);
    };
    let Ok(LangQuery { lang }) = serde_urlencoded::from_str::<LangQuery>(query) else {
        return Err(AppError::BadLanguage("?".to_owned()));
    };
    match lang {
        None => Ok(Language::English),
        Some(code) => Language::from_code(&code).ok_or(AppError::BadLanguage(code)),
    }
}

/// `/geo/<ip>` through the router; the front door answers the same without it
/// ([`geo_ip_response`]).
async fn geo_ip(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    // The request itself rather than the `HeaderMap` extractor, which clones every header.
    request: Request,
) -> Response {
    let address = match &path {
        Ok(Path(text)) => Ok(text.as_str()),
        Err(_) => Err(AddressError::Malformed),
    };
    geo_ip_response(&state, address, request.uri().query(), request.headers())
        .map(axum::body::Body::new)
}

/// `/geo/<ip>` for both doors, from the decoded address text: cacheable by anyone for
/// `--geo-max-age`, validated by the database identity; a matching conditional gets 304 without
/// a lookup. The answer's body is not boxed (errors, which are rare, are).
pub(crate) fn geo_ip_response(
    state: &AppState,
    address: Result<&str, AddressError>,
    query: Option<&str>,
    headers: &HeaderMap,
) -> http::Response<AppBody> {
    let (ip, language) = match address
        .and_then(address::parse)
        .map_err(AppError::from)
        .and_then(|ip| Ok((ip, language(query)?)))
    {
        Ok(parsed) => parsed,
        Err(error) => return error.into_response().map(AppBody::Right),
    };
    let snapshot = state.db.snapshot();
    let tag = GeoTag::new(snapshot.validators(), language, ip);
    let mut response = if tag.is_not_modified(headers) {
        let mut response = http::Response::new(AppBody::Left(bindery::serve::Body::default()));
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        // A 404 for an address the database does not know is as cacheable as an answer: it
        // changes only with the database.
        match lookup(&snapshot, ip, language) {
            Ok(json) => {
                let length = crate::exact::content_length(json.len());
                let mut response =
                    http::Response::new(AppBody::Left(bindery::serve::Body::from(json)));
                let headers = response.headers_mut();
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                headers.insert(CONTENT_LENGTH, length);
                response
            }
            Err(error @ (AppError::NotFound | AppError::Unsupported(_))) => {
                error.into_response().map(AppBody::Right)
            }
            Err(error) => return error.into_response().map(AppBody::Right),
        }
    };
    state.geo_caching.describe(response.headers_mut(), tag);
    response
}

/// `/geo/me`: the caller's own address, so no shared cache may keep it, whatever the status.
async fn geo_me(State(state): State<AppState>, request: Request) -> Response {
    let mut response = match me(&state, &request) {
        Ok(response) => response,
        Err(error) => error.into_response(),
    };
    response
        .headers_mut()
        .insert(CACHE_CONTROL, PRIVATE_NO_STORE);
    response
}

fn me(state: &AppState, request: &Request) -> Result<Response, AppError> {
    let language = language(request.uri().query())?;
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip())
        .ok_or_else(|| AppError::Internal("no peer address on the connection".to_owned()))?;
    let ip = state.trusted_proxies.client(peer, request.headers())?;
    match lookup(&state.db.snapshot(), ip, language) {
        Ok(json) => Ok((
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            json,
        )
            .into_response()),
        // The caller learns which address was looked up, found or not.
        Err(AppError::NotFound) => Err(AppError::NotFoundAddress(ip)),
        Err(other) => Err(other),
    }
}

/// The JSON answer for `ip`, or the error to send.
fn lookup(snapshot: &Snapshot<'_>, ip: IpAddr, language: Language) -> Result<Vec<u8>, AppError> {
    match snapshot.lookup(ip, language) {
        Ok(Some(json)) => Ok(json),
        Ok(None) => Err(AppError::NotFound),
        Err(MaxMindDbError::InvalidInput { message }) => Err(AppError::Unsupported(message)),
        Err(error) => Err(AppError::Internal(format!("lookup of {ip}: {error}"))),
    }
}

async fn missing_address() -> AppError {
    AppError::BadAddress(AddressError::Empty)
}

async fn healthz(State(state): State<AppState>) -> Json<serde_json::Value> {
    let info = state.db.info();
    Json(serde_json::json!({
        "status": "ok",
        "database": {
            "mode": info.mode,
            "database_type": info.database_type,
            "build_epoch": info.build_epoch,
            "size": info.size,
        },
    }))
}

async fn metrics(State(state): State<AppState>) -> Response {
    if !state.metrics_public {
        return AppError::NotFound.into_response();
    }
    render_metrics(&state)
}

fn render_metrics(state: &AppState) -> Response {
    let body = crate::metrics::render(
        &state.metrics,
        &state.db.info(),
        &state.db.answer_cache_stats(),
        &state.connections.stats(),
        crate::alloc::heap_in_use(),
    );
    let mut response = (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        body,
    )
        .into_response();
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The admin listener's router (`--admin-addr`): `/metrics` and `/healthz`, nothing else, for a
/// private address that scrapers and orchestrators reach and the public does not.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tower::ServiceExt;
/// let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").unwrap();
/// let admin = geo_server::admin_router(geo_server::AppState::new(db));
/// let request = http::Request::get("/metrics").body(axum::body::Body::empty()).unwrap();
/// assert_eq!(admin.oneshot(request).await.unwrap().status(), http::StatusCode::OK);
/// # });
/// ```
pub fn admin_router(state: AppState) -> Router {
    Router::new()
        .route(
            "/metrics",
            get(|State(state): State<AppState>| async move { render_metrics(&state) }),
        )
        .route("/healthz", get(healthz))
        .fallback(|| async { AppError::NotFound })
        .with_state(state)
}

/// The API description, embedded as a catalog of one file so that its ETag is made as every
/// catalog file's is.
static API: Catalog = bindery::embed!("src", include = "openapi.json");

/// The API description: `no-cache` with a strong ETag of the document, so clients revalidate
/// cheaply and see a new version at once.
async fn openapi(headers: HeaderMap) -> Response {
    let Some(document) = API.file("openapi.json") else {
        return AppError::NotFound.into_response();
    };
    let tag = HeaderValue::from_static(document.etag());
    let mut described = HeaderMap::new();
    described.insert(CACHE_CONTROL, NO_CACHE);
    described.insert(ETAG, tag.clone());
    let etag = document.etag();
    // No Last-Modified of its own: only the ETag validates it.
    if bindery::serve::conditional::is_not_modified(&headers, etag, None) {
        return caching::not_modified(described);
    }
    let mut response = (
        [(CONTENT_TYPE, "application/json")],
        document.raw().unwrap_or_default(),
    )
        .into_response();
    response.headers_mut().extend(described);
    response
}

async fn method_not_allowed() -> Response {
    let body = serde_json::json!({ "error": "method not allowed", "status": 405 });
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [("allow", "GET, HEAD")],
        Json(body),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_spa_never_answers_under_the_routes_of_the_table() {
        assert_eq!(
            super::fallback_exclusions(),
            ["/geo/", "/healthz", "/metrics", "/openapi.json"]
        );
    }

    /// The counters are made from the route table the router is: a route added to it is
    /// counted under a label of its own, never as `other`.
    #[test]
    fn every_route_of_the_table_is_counted_under_its_own_label() {
        let db = crate::db::GeoDb::embedded(geodb::SAMPLE, "sample").expect("sample");
        let state = super::AppState::new(db);
        let mut labels: Vec<&str> = super::paths()
            .map(|path| state.metrics.label(path))
            .collect();
        assert!(!labels.contains(&"other"), "{labels:?}");
        let routes = labels.len();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), routes, "two routes share a label");
        assert_eq!(state.metrics.label("/not/a/route"), "other");
    }
}
