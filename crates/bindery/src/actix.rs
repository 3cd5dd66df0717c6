//! A catalog on actix-web 4 (feature `actix`): [`ServeCatalog`] registers as a service of an
//! actix `App`, at its [`mount_point`](crate::serve::ServeCatalog::mount_point), and answers
//! with everything the tower service does (ETag and 304, 412, ranges, HEAD, `Cache-Control`,
//! precompressed variants, the SPA fallback and the 404 page, no traversal). The request is read
//! in place through [`RequestHead`]; nothing is rebuilt.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! let service = bindery::serve::ServeCatalog::new(&SITE).mounted_at("/static");
//! actix_web::HttpServer::new(move || {
//!     actix_web::App::new().service(bindery::actix::ServeCatalog::new(service.clone()))
//! })
//! .bind("127.0.0.1:8080")?
//! .run()
//! .await
//! # }
//! ```

use actix_web::dev::{AppService, HttpServiceFactory, ResourceDef, ServiceRequest, fn_service};
use actix_web::{HttpRequest, HttpResponse};
use http::HeaderName;

use crate::serve::{self, RequestHead};

/// A [`serve::ServeCatalog`] as an actix-web service. Register it on the `App` (not inside a
/// `web::scope`: the catalog's mount point is the full path it answers).
#[derive(Debug, Clone)]
pub struct ServeCatalog {
    service: serve::ServeCatalog,
}

impl ServeCatalog {
    /// Serves `service` at its mount point.
    pub fn new(service: serve::ServeCatalog) -> Self {
        ServeCatalog { service }
    }
}

impl HttpServiceFactory for ServeCatalog {
    fn register(self, config: &mut AppService) {
        let mount = self.service.mount_point().to_owned();
        let definition = if config.is_root() {
            ResourceDef::root_prefix(&mount)
        } else {
            ResourceDef::prefix(&mount)
        };
        let service = self.service;
        let answer = fn_service(move |request: ServiceRequest| {
            let service = service.clone();
            async move {
                let response = service.serve_to(&Head(request.request())).await;
                let is_head = request.method() == actix_web::http::Method::HEAD;
                Ok(request.into_response(into_actix(response, is_head)))
            }
        });
        config.register_service(definition, None, answer, None);
    }
}

/// An actix request, read as [`RequestHead`].
struct Head<'a>(&'a HttpRequest);

impl RequestHead for Head<'_> {
    fn method_name(&self) -> &str {
        self.0.method().as_str()
    }

    fn raw_path(&self) -> &str {
        self.0.path()
    }

    fn raw_query(&self) -> Option<&str> {
        Some(self.0.query_string()).filter(|query| !query.is_empty())
    }

    fn header_values<'a>(&'a self, name: &HeaderName) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.0
            .headers()
            .get_all(name.as_str())
            .map(actix_web::http::header::HeaderValue::as_bytes)
    }
}

/// The service's response as actix's, headers and body moved over unchanged. actix writes
/// `Content-Length` from the body's size, so a HEAD answer gets a body that says the length
/// GET's would have and holds nothing (actix sends no body for HEAD).
fn into_actix(response: http::Response<serve::Body>, is_head: bool) -> HttpResponse {
    let (parts, body) = response.into_parts();
    let status = actix_web::http::StatusCode::from_u16(parts.status.as_u16())
        .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
    let mut builder = HttpResponse::build(status);
    for (name, value) in &parts.headers {
        if name != http::header::CONTENT_LENGTH {
            builder.append_header((name.as_str(), value.as_bytes()));
        }
    }
    let length = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse().ok());
    match length {
        Some(length) if is_head => builder.body(HeadBody(length)),
        _ => builder.body(serve::body_bytes(body)),
    }
}

/// The body of a HEAD answer: the length of GET's, and no bytes.
struct HeadBody(u64);

impl actix_web::body::MessageBody for HeadBody {
    type Error = std::convert::Infallible;

    fn size(&self) -> actix_web::body::BodySize {
        actix_web::body::BodySize::Sized(self.0)
    }

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<actix_web::web::Bytes, Self::Error>>> {
        std::task::Poll::Ready(None)
    }
}
