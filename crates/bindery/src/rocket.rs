//! A catalog on rocket 0.5 (feature `rocket`): a [`ServeCatalog`] is a rocket `Handler`, and
//! its `/<path..>` routes ([`routes`], or `Vec<Route>::from`) answer with everything the tower
//! service does (ETag and 304, 412, ranges, `Cache-Control`, precompressed variants, the SPA
//! fallback and the 404 page, no traversal). Rocket answers HEAD through the GET route and strips
//! the body. A miss (no file, no 404 page of the catalog's, as the decision stage says) is
//! forwarded, so the application's other routes and catchers see it.
//! Security headers are Shield's on rocket: bindery leaves `X-Content-Type-Options` to it
//! (Shield sends `nosniff` by default, and would warn on every response that already had it).
//!
//! ```no_run
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures", mode = "gzip");
//!
//! # async fn run() -> Result<(), rocket::Error> {
//! let service = bindery::serve::ServeCatalog::builder(&SITE).mounted_at("/static").build().unwrap();
//! bindery::rocket::mount(rocket::build(), service).launch().await?;
//! # Ok(())
//! # }
//! ```

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderName;
use rocket::http::Status;
use rocket::route::{Handler, Outcome, Route};
use rocket::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};
use rocket::{Build, Data, Request, Rocket};

use crate::serve::{Body, RequestHead, ServeCatalog};

/// The rank of a catalog's routes unless told otherwise: after the application's own routes
/// of the default ranks, as rocket's `FileServer`.
pub const DEFAULT_RANK: isize = 10;

/// Mounts `catalog`'s routes on `rocket` at its mount point (`/` at the root), at
/// [`DEFAULT_RANK`].
pub fn mount(rocket: Rocket<Build>, catalog: ServeCatalog) -> Rocket<Build> {
    let base = match catalog.mount_point() {
        "" => "/".to_owned(),
        mount => mount.to_owned(),
    };
    rocket.mount(base, catalog)
}

/// The catalog's routes at `rank` (lower is tried first): the mount point itself (redirected
/// to its folder) and everything below it, for `rocket.mount(catalog.mount_point(), …)`.
pub fn routes(catalog: ServeCatalog, rank: isize) -> Vec<Route> {
    // A trailing `<path..>` takes zero segments too.
    vec![Route::ranked(
        rank,
        rocket::http::Method::Get,
        "/<path..>",
        catalog,
    )]
}

impl From<ServeCatalog> for Vec<Route> {
    fn from(catalog: ServeCatalog) -> Self {
        routes(catalog, DEFAULT_RANK)
    }
}

#[rocket::async_trait]
impl Handler for ServeCatalog {
    async fn handle<'r>(&self, request: &'r Request<'_>, data: Data<'r>) -> Outcome<'r> {
        match self.serve_or_miss(&Head(request)) {
            Ok(answer) => {
                let response = answer.await.unwrap_or_else(|never| match never {});
                Outcome::Success(into_rocket(response))
            }
            Err(_) => Outcome::forward(data, Status::NotFound),
        }
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
/// strings) and the body, sized, read chunk by chunk.
///
/// `X-Content-Type-Options` is left to rocket's Shield, which sends `nosniff` on every
/// response by default and logs a warning for each response that already has the header; an
/// application that configures Shield decides it for bindery's answers as for its own.
fn into_rocket<'r>(response: http::Response<Body>) -> rocket::Response<'r> {
    let (parts, body) = response.into_parts();
    let mut built = rocket::Response::build();
    built.status(Status::new(parts.status.as_u16()));
    for (name, value) in &parts.headers {
        if name == http::header::X_CONTENT_TYPE_OPTIONS {
            continue;
        }
        if let Ok(value) = value.to_str() {
            built.raw_header_adjoin(name.as_str().to_owned(), value.to_owned());
        }
    }
    let len = usize::try_from(body.len()).unwrap_or(usize::MAX);
    built.sized_body(
        len,
        Chunks {
            chunks: body.into_deque(),
            position: 0,
        },
    );
    built.finalize()
}

/// A body's chunks as rocket reads a sized body (heap bytes keep their budget lease as long).
struct Chunks {
    chunks: VecDeque<Bytes>,
    /// How far into the first chunk reading has come.
    position: usize,
}

impl AsyncRead for Chunks {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        while buf.remaining() > 0 {
            let position = self.position;
            let Some(chunk) = self.chunks.front() else {
                break;
            };
            let rest = &chunk[position..];
            let taken = rest.len().min(buf.remaining());
            buf.put_slice(&rest[..taken]);
            if taken == rest.len() {
                self.chunks.pop_front();
                self.position = 0;
            } else {
                self.position += taken;
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// Rocket seeks only a body of unknown size; this one's is given. Seeking is refused.
impl AsyncSeek for Chunks {
    fn start_seek(self: Pin<&mut Self>, _: io::SeekFrom) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a catalog's body is sized; it is read, not sought",
        ))
    }

    fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(0))
    }
}
