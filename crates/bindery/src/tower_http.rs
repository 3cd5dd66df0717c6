//! A catalog as a source of tower-http's `ServeDir` (feature `tower-http`, tower-http 0.7's
//! pluggable [`Backend`]), for code already built around `ServeDir`:
//!
//! ```
//! use tower_http::services::ServeDir;
//!
//! static SPA: bindery::Catalog = bindery::embed!("../../assets/spa", precompress = ["br"]);
//! let service = ServeDir::with_backend("", bindery::tower_http::CatalogBackend::new(&SPA))
//!     .precompressed_br()      // the catalog's br variants, as `app.js.br` siblings
//!     .precompressed_gzip();   // and its gzip blobs (gzip mode) or gzip variants
//! # drop(service);
//! ```
//!
//! What `ServeDir`'s backend can carry, and what it cannot (`ServeCatalog` does all of it):
//! - Files, folders (`index.html`, trailing-slash redirects), ranges and HEAD: yes, from the
//!   catalog's bytes (decompressed on open in `gzip` mode, copied in `copy` mode).
//! - Precompressed variants: yes, each offered as the sibling `ServeDir` asks for (`app.js.br`,
//!   `.gz`, `.zst`), the bytes made at build time. As on disk, a sibling is also a URL of its
//!   own: `GET /app.js.gz` answers the stored gzip bytes (as `application/gzip`), as `ServeDir`
//!   over a folder holding `app.js.gz` would; `ServeCatalog` serves variants only by
//!   negotiation.
//! - ETags: `ServeDir` makes its own from length and modification time, so only a catalog that
//!   records times (`modified = true` or `"source-date-epoch"`) gets an ETag and
//!   `Last-Modified`; the reproducible default gets neither, and no 304. bindery's content
//!   ETags, one per representation, do not pass through the trait.
//! - Media types: `ServeDir` guesses them from the path (`mime_guess`, as bindery does), with
//!   no `charset`.
//! - Not carried: `Cache-Control` (immutable fingerprinted names), fingerprinted URLs, the SPA
//!   fallback with `Vary: Accept`, the byte budget and the bounded decompression (`ServeDir`
//!   opens a `gzip`-mode file by decompressing it whole). Dev mode is carried: the backend
//!   asks the catalog, which follows the folder.

use std::borrow::Cow;
use std::future::{Ready, ready};
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::SystemTime;

use tower_http::services::fs::{Backend, File, Metadata};

use crate::{Catalog, EmbeddedFile, Encoding};

/// A [`Catalog`] as a `ServeDir` backend. Give `ServeDir::with_backend` an empty base path
/// (`""`): request paths are then the catalog's keys.
#[derive(Debug, Clone, Copy)]
pub struct CatalogBackend {
    catalog: &'static Catalog,
}

impl CatalogBackend {
    /// The backend over `catalog`.
    pub fn new(catalog: &'static Catalog) -> Self {
        CatalogBackend { catalog }
    }

    /// What a path `ServeDir` asks for is: a file, a precompressed sibling of one, or a folder.
    fn find(&self, path: &Path) -> io::Result<Found> {
        let key = key(path)?;
        if let Some(file) = self.catalog.file(&key) {
            return Ok(Found::File(file, None));
        }
        for encoding in Encoding::ALL {
            if let Some(stem) = key.strip_suffix(&format!(".{}", encoding.extension()))
                && let Some(file) = self.catalog.file(stem)
                && file.encoded(encoding).is_some()
            {
                return Ok(Found::File(file, Some(encoding)));
            }
        }
        if key.is_empty() || self.catalog.dir(&key).next().is_some() {
            return Ok(Found::Folder);
        }
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{key}: not in the catalog"),
        ))
    }
}

/// A catalog key from a path `ServeDir` built (`ServeDir` has already refused `..` and roots).
fn key(path: &Path) -> io::Result<String> {
    let text = path
        .to_str()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not UTF-8"))?;
    Ok(text
        .trim_start_matches("./")
        .trim_start_matches('/')
        .trim_end_matches('/')
        .to_owned())
}

enum Found {
    File(&'static EmbeddedFile, Option<Encoding>),
    Folder,
}

/// What `ServeDir` knows of a file or folder of the catalog.
#[derive(Debug, Clone, Copy)]
pub struct CatalogMetadata {
    len: u64,
    is_dir: bool,
    modified: Option<SystemTime>,
}

impl Metadata for CatalogMetadata {
    fn is_dir(&self) -> bool {
        self.is_dir
    }

    fn modified(&self) -> io::Result<SystemTime> {
        self.modified.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                "the catalog records no modification times (`modified = false`)",
            )
        })
    }

    fn len(&self) -> u64 {
        self.len
    }
}

/// An opened file of the catalog: its bytes (or a variant's) behind a cursor.
#[derive(Debug)]
pub struct CatalogFile {
    bytes: io::Cursor<Cow<'static, [u8]>>,
    metadata: CatalogMetadata,
}

impl tokio::io::AsyncRead for CatalogFile {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.bytes).poll_read(context, buf)
    }
}

impl tokio::io::AsyncSeek for CatalogFile {
    fn start_seek(mut self: Pin<&mut Self>, position: io::SeekFrom) -> io::Result<()> {
        Pin::new(&mut self.bytes).start_seek(position)
    }

    fn poll_complete(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Pin::new(&mut self.bytes).poll_complete(context)
    }
}

impl File for CatalogFile {
    type Metadata = CatalogMetadata;
    type MetadataFuture<'a> = Ready<io::Result<CatalogMetadata>>;

    fn metadata(&self) -> Self::MetadataFuture<'_> {
        ready(Ok(self.metadata))
    }
}

fn metadata_of(found: &Found) -> CatalogMetadata {
    match found {
        Found::File(file, encoding) => CatalogMetadata {
            len: encoding
                .and_then(|encoding| file.encoded(encoding))
                .map_or(file.len(), <[u8]>::len) as u64,
            is_dir: false,
            modified: file.modified(),
        },
        Found::Folder => CatalogMetadata {
            len: 0,
            is_dir: true,
            modified: None,
        },
    }
}

impl Backend for CatalogBackend {
    type File = CatalogFile;
    type Metadata = CatalogMetadata;
    type OpenFuture = Ready<io::Result<CatalogFile>>;
    type MetadataFuture = Ready<io::Result<CatalogMetadata>>;

    fn open(&self, path: PathBuf) -> Self::OpenFuture {
        ready(self.find(&path).and_then(|found| {
            let metadata = metadata_of(&found);
            let bytes = match found {
                Found::File(file, Some(encoding)) => {
                    Cow::Borrowed(file.encoded(encoding).unwrap_or_default())
                }
                Found::File(file, None) => file.contents().map_err(io::Error::other)?,
                Found::Folder => {
                    return Err(io::Error::new(io::ErrorKind::IsADirectory, "a folder"));
                }
            };
            Ok(CatalogFile {
                bytes: io::Cursor::new(bytes),
                metadata,
            })
        }))
    }

    fn metadata(&self, path: PathBuf) -> Self::MetadataFuture {
        ready(self.find(&path).map(|found| metadata_of(&found)))
    }
}
