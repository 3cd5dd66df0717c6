//! What a request gets, decided before any response is built: method, path, lookup, folder
//! redirect or SPA fallback, then for a file the representation, the conditionals and the range.

use http::header::{ACCEPT, ACCEPT_ENCODING, IF_RANGE, RANGE};
use http::{HeaderMap, HeaderValue, Method, Request};

use super::encoding::Accepted;
use super::path::{self, PathError};
use super::prepared::{NO_CACHE, Prepared, Representation};
use super::range::{self, Decision};
use super::{Fallback, ServeCatalog, conditional};
use crate::EmbeddedFile;

/// The outcome of a request, from which [`ServeCatalog::build`] makes the response.
pub(super) enum Outcome<'a> {
    /// Neither GET nor HEAD: 405.
    MethodNotAllowed,
    /// A path that could step outside the catalog, or is not valid: 400.
    BadPath(PathError),
    /// Nothing to serve: 404.
    NotFound,
    /// A folder (or the mount point) asked for without its trailing slash: 307 to it.
    RedirectToFolder,
    /// A file: what of it the request gets.
    File(Served<'a>),
}

/// A file found for a request, with its header values.
pub(super) struct Target<'a> {
    pub(super) prepared: Headers<'a>,
    /// Its place in the service's table (the decompressed cache's key); `None` in dev mode.
    pub(super) index: Option<usize>,
}

/// A file's prepared headers: from the service's table, or made for a dev catalog's file as
/// it is on disk now (boxed: dev mode only, and it keeps every outcome small to move).
pub(super) enum Headers<'a> {
    Table(&'a Prepared),
    Disk(Box<Prepared>),
}

impl std::ops::Deref for Headers<'_> {
    type Target = Prepared;

    fn deref(&self) -> &Prepared {
        match self {
            Headers::Table(prepared) => prepared,
            Headers::Disk(prepared) => prepared,
        }
    }
}

/// A file and what of it a request gets.
pub(super) struct Served<'a> {
    pub(super) target: Target<'a>,
    /// The encoded representation chosen, or `None` for identity.
    pub(super) encoded: Option<&'a Representation>,
    pub(super) part: Part,
}

/// Which part of the chosen representation a request gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// 304: the client's copy is current.
    NotModified,
    /// 416: no byte of the range exists.
    Unsatisfiable,
    /// 200 with the whole representation.
    Full,
    /// 206 with bytes `start..=end` of the identity representation.
    Range { start: u64, end: u64 },
}

impl ServeCatalog {
    /// Decides what `request` gets.
    pub(super) fn decide<B>(&self, request: &Request<B>) -> Outcome<'_> {
        let method = request.method();
        if method != Method::GET && method != Method::HEAD {
            return Outcome::MethodNotAllowed;
        }
        let decoded = match path::decode(request.uri().path(), self.config.max_path_len) {
            Ok(decoded) => decoded,
            Err(reason) => return Outcome::BadPath(reason),
        };
        let Some(within) = self.within_mount(&decoded) else {
            return Outcome::NotFound;
        };
        if within.is_empty() {
            // The mount point itself, `/static`: its index lives at `/static/`, where the
            // page's relative links resolve inside the mount.
            return Outcome::RedirectToFolder;
        }
        let key = within.strip_prefix('/').unwrap_or(within);
        // `//x` or `a//b` never name a file: refusing them here keeps the catalog's lenient
        // leading-slash rule from turning `//host/` into a protocol-relative redirect target.
        let has_empty_segment = key.starts_with('/') || key.contains("//");
        let found = if has_empty_segment {
            None
        } else if key.is_empty() || key.ends_with('/') {
            self.find(&format!("{key}{}", self.config.index_file))
        } else {
            self.find(key)
        };
        let target = match found {
            Some(target) => target,
            None if !has_empty_segment && self.is_folder(key) => return Outcome::RedirectToFolder,
            None => match self.fallback_for(request.headers(), &decoded) {
                Some(target) => target,
                None => return Outcome::NotFound,
            },
        };
        Outcome::File(self.serve_part(target, request.headers(), method == Method::HEAD))
    }

    /// The part of a file a request gets: its representation (ranges are of identity, so a
    /// range request is never encoded), then 304, then the range.
    fn serve_part<'a>(&self, target: Target<'a>, headers: &HeaderMap, is_head: bool) -> Served<'a> {
        let range_header = if is_head { None } else { headers.get(RANGE) };
        let prepared = match &target.prepared {
            Headers::Table(prepared) => Some(*prepared),
            Headers::Disk(_) => None,
        };
        // A dev catalog's prepared headers are made per request and have no variants.
        let encoded = match prepared {
            Some(prepared) if range_header.is_none() && !prepared.representations.is_empty() => {
                Accepted::parse(headers.get_all(ACCEPT_ENCODING)).choose(&prepared.representations)
            }
            _ => None,
        };
        let file = target.prepared.file;
        let etag = encoded.map_or(file.etag(), |representation| representation.etag_text);
        let part = if conditional::is_not_modified(headers, etag, file.modified()) {
            Part::NotModified
        } else {
            range_part(range_header, headers.get(IF_RANGE), file)
        };
        Served {
            target,
            encoded,
            part,
        }
    }

    /// The part of a decoded path below the mount point (`/static/a.js` -> `/a.js`), or `None`
    /// when the path lies outside it. `/static` itself is the folder, `""`.
    pub(super) fn within_mount<'p>(&self, decoded: &'p str) -> Option<&'p str> {
        let mount = self.config.mount.as_str();
        let rest = decoded.strip_prefix(mount)?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    }

    /// The file at a catalog key with its prepared headers: from the table built with the
    /// service, or, for a dev catalog, the file as it is on disk now with headers made for it.
    fn find(&self, key: &str) -> Option<Target<'_>> {
        if self.catalog.is_dev() {
            let file = self.catalog.file(key)?;
            let no_cache = |_: &EmbeddedFile| HeaderValue::from_static(NO_CACHE);
            return Some(Target {
                prepared: Headers::Disk(Box::new(Prepared::new(file, &no_cache))),
                index: None,
            });
        }
        self.catalog
            .position(key)
            .map(|index| self.prepared_at(index))
    }

    /// The file at `index` of the table built with the service.
    fn prepared_at(&self, index: usize) -> Target<'_> {
        Target {
            prepared: Headers::Table(&self.prepared[index]),
            index: Some(index),
        }
    }

    /// Whether `key` names a folder with an index file. Only asks whether the file exists: no
    /// headers are prepared for it.
    fn is_folder(&self, key: &str) -> bool {
        !key.is_empty()
            && !key.ends_with('/')
            && self
                .catalog
                .file(&format!("{key}/{}", self.config.index_file))
                .is_some()
    }

    /// The SPA's page for a browser navigation that found nothing, outside the excluded
    /// prefixes.
    fn fallback_for(&self, headers: &HeaderMap, decoded: &str) -> Option<Target<'_>> {
        let fallback = self.config.fallback.as_ref()?;
        let is_navigation = headers
            .get_all(ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|accept| accept.to_ascii_lowercase().contains("text/html"));
        let is_excluded = self.config.no_fallback.iter().any(|prefix| {
            decoded.starts_with(prefix.as_str()) || decoded == prefix.trim_end_matches('/')
        });
        if !is_navigation || is_excluded {
            return None;
        }
        match fallback {
            Fallback::Index(index) => Some(self.prepared_at(*index)),
            Fallback::Key(key) => self.find(key),
        }
    }
}

/// The part a `Range` header asks for, honouring `If-Range`: the whole file when there is no
/// range, when it is ignored, or when `If-Range` no longer holds.
fn range_part(
    range_header: Option<&HeaderValue>,
    if_range: Option<&HeaderValue>,
    file: &EmbeddedFile,
) -> Part {
    let Some(range_header) = range_header else {
        return Part::Full;
    };
    let holds = if_range.is_none_or(|validator| {
        conditional::if_range_holds(validator, file.etag(), file.modified())
    });
    if !holds {
        return Part::Full;
    }
    match range::decide(range_header, file.len() as u64) {
        Decision::Full => Part::Full,
        Decision::Partial { start, end } => Part::Range { start, end },
        Decision::Unsatisfiable => Part::Unsatisfiable,
    }
}
