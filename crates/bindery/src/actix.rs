//! A catalog on actix-web 4 (feature `actix`): a [`ServeCatalog`] is an actix
//! `HttpServiceFactory`, registered on an `App` at its
//! [`mount_point`](ServeCatalog::mount_point), answering with everything the tower service does
//! (ETag and 304, 412, ranges, HEAD, `Cache-Control`, precompressed variants, the SPA fallback
//! and the 404 page, no traversal). The request is read in place through [`RequestHead`];
//! nothing is rebuilt, and bodies go to actix as slices of the bytes they are, at most
//! [`ACTIX_CHUNK`] at a time (actix copies each chunk it takes into its write buffer).
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! let service = bindery::serve::ServeCatalog::builder(&SITE).mounted_at("/static").build().unwrap();
//! actix_web::HttpServer::new(move || actix_web::App::new().service(service.clone()))
//!     .bind("127.0.0.1:8080")?
//!     .run()
//!     .await
//! # }
//! ```

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::{AppService, HttpServiceFactory, ResourceDef, ServiceRequest, fn_service};
use actix_web::{HttpRequest, HttpResponse};
use http::HeaderName;

use crate::serve::{Body, RequestHead, ServeCatalog};

/// Register it on the `App` (not inside a `web::scope`: the catalog's mount point is the full
/// path it answers).
impl HttpServiceFactory for ServeCatalog {
    fn register(self, config: &mut AppService) {
        let mount = self.mount_point().to_owned();
        let definition = if config.is_root() {
            ResourceDef::root_prefix(&mount)
        } else {
            ResourceDef::prefix(&mount)
        };
        let answer = fn_service(move |request: ServiceRequest| {
            let service = self.clone();
            async move {
                let response = service.serve(&Head(request.request())).await;
                let response = response.unwrap_or_else(|never| match never {});
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
fn into_actix(response: http::Response<Body>, is_head: bool) -> HttpResponse {
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
        _ => builder.body(Sliced {
            body,
            rest: actix_web::web::Bytes::new(),
        }),
    }
}

/// The most bytes handed to actix at once. actix's HTTP/1 dispatcher copies every chunk it
/// takes into its write buffer, whole, and takes chunks while that buffer holds less than
/// 32 KiB: a 17 MiB file handed over as one chunk was a 17 MiB copy per connection, held for as
/// long as its client took to read it (SECURITY.md's "Per deployment" has what slow readers
/// held). Slices of the embedded
/// bytes (`Bytes::slice`, no copy) bound it to this much beyond actix's 32 KiB.
pub const ACTIX_CHUNK: usize = 32 * 1024;

/// A body handed to actix in slices of at most [`ACTIX_CHUNK`]; a multipart answer's parts are
/// never joined.
struct Sliced {
    body: Body,
    rest: actix_web::web::Bytes,
}

impl MessageBody for Sliced {
    type Error = std::convert::Infallible;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.body.len() + self.rest.len() as u64)
    }

    fn poll_next(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<actix_web::web::Bytes, Self::Error>>> {
        let this = self.get_mut();
        if this.rest.is_empty() {
            let next = http_body::Body::poll_frame(Pin::new(&mut this.body), context);
            match next {
                Poll::Ready(Some(Ok(frame))) => this.rest = frame.into_data().unwrap_or_default(),
                Poll::Ready(Some(Err(never))) => match never {},
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
        let take = this.rest.len().min(ACTIX_CHUNK);
        Poll::Ready(Some(Ok(this.rest.split_to(take))))
    }
}

/// The body of a HEAD answer: the length of GET's, and no bytes.
struct HeadBody(u64);

impl MessageBody for HeadBody {
    type Error = std::convert::Infallible;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.0)
    }

    fn poll_next(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<actix_web::web::Bytes, Self::Error>>> {
        Poll::Ready(None)
    }
}
