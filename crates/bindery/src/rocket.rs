//! A catalog on rocket 0.5 (feature `rocket`): [`ServeCatalog`] is a rocket `Handler` and the
//! routes that reach it, mounted at the catalog's
//! [`mount_point`](crate::serve::ServeCatalog::mount_point), with everything the tower service
//! does (ETag and 304, 412, ranges, `Cache-Control`, precompressed variants, the SPA fallback
//! and the 404 page, no traversal). Rocket answers HEAD through the GET route and strips the
//! body. A miss without a 404 page of the catalog's is forwarded, so the application's other
//! routes and catchers see it.
//!
//! ```no_run
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! # async fn run() -> Result<(), rocket::Error> {
//! let service = bindery::serve::ServeCatalog::new(&SITE).mounted_at("/static");
//! bindery::rocket::ServeCatalog::new(service).mount(rocket::build()).launch().await?;
//! # Ok(())
//! # }
//! ```

use std::io::Cursor;

use http::HeaderName;
use rocket::http::Status;
use rocket::route::{Handler, Outcome, Route};
use rocket::{Build, Data, Request, Rocket};

use crate::serve::{self, RequestHead};

/// A [`serve::ServeCatalog`] as rocket routes.
#[derive(Debug, Clone)]
pub struct ServeCatalog {
    service: serve::ServeCatalog,
    rank: isize,
}

impl ServeCatalog {
    /// The rank of the catalog's routes unless told otherwise: after the application's own
    /// routes of the default ranks, as rocket's `FileServer`.
    pub const DEFAULT_RANK: isize = 10;

    /// Serves `service` at its mount point.
    pub fn new(service: serve::ServeCatalog) -> Self {
        ServeCatalog {
            service,
            rank: Self::DEFAULT_RANK,
        }
    }

    /// The rank of the catalog's routes (lower is tried first).
    pub fn rank(mut self, rank: isize) -> Self {
        self.rank = rank;
        self
    }

    /// Mounts the catalog's routes on `rocket` at the catalog's mount point (`/` at the root).
    pub fn mount(self, rocket: Rocket<Build>) -> Rocket<Build> {
        let base = match self.service.mount_point() {
            "" => "/".to_owned(),
            mount => mount.to_owned(),
        };
        rocket.mount(base, self)
    }
}

impl From<ServeCatalog> for Vec<Route> {
    fn from(catalog: ServeCatalog) -> Self {
        // The mount point itself (redirected to its folder) and everything below it: a
        // trailing `<path..>` takes zero segments too.
        vec![Route::ranked(
            catalog.rank,
            rocket::http::Method::Get,
            "/<path..>",
            catalog,
        )]
    }
}

#[rocket::async_trait]
impl Handler for ServeCatalog {
    async fn handle<'r>(&self, request: &'r Request<'_>, data: Data<'r>) -> Outcome<'r> {
        let response = self.service.serve_to(&Head(request)).await;
        if response.status() == http::StatusCode::NOT_FOUND
            && !response.headers().contains_key(http::header::ETAG)
        {
            return Outcome::forward(data, Status::NotFound);
        }
        Outcome::Success(into_rocket(response))
    }
}

/// A rocket request, read as [`RequestHead`].
struct Head<'a, 'r>(&'a Request<'r>);

impl RequestHead for Head<'_, '_> {
    fn method_name(&self) -> &str {
        self.0.method().as_str()
    }

    fn raw_path(&self) -> &str {
        self.0.uri().path().as_str()
    }

    fn raw_query(&self) -> Option<&str> {
        self.0.uri().query().map(|query| query.as_str())
    }

    fn header_values<'a>(&'a self, name: &HeaderName) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.0.headers().get(name.as_str()).map(str::as_bytes)
    }
}

/// The service's response as rocket's: status, headers (text only: rocket keeps them as
/// strings) and the body, sized.
fn into_rocket<'r>(response: http::Response<serve::Body>) -> rocket::Response<'r> {
    let (parts, body) = response.into_parts();
    let mut built = rocket::Response::build();
    built.status(Status::new(parts.status.as_u16()));
    for (name, value) in &parts.headers {
        if let Ok(value) = value.to_str() {
            built.raw_header_adjoin(name.as_str().to_owned(), value.to_owned());
        }
    }
    let bytes = serve::body_bytes(body);
    built.sized_body(bytes.len(), Cursor::new(bytes));
    built.finalize()
}
