//! What a request gets, decided before any response is built: method, path, lookup (alias,
//! clean URL, folder), the SPA fallback or the 404 page, then for a file its representation,
//! its preconditions and its range.

use std::ops::RangeInclusive;

use http::HeaderValue;
use http::header::{ACCEPT, ACCEPT_ENCODING, IF_RANGE, RANGE};

use super::ServeCatalog;
use super::conditional::{self, Verdict};
use super::config::Chosen;
use super::encoding::Accepted;
use super::head::{RequestHead, first_text, text};
use super::path::{self, PathError};
use super::prepared::{NO_CACHE, Prepared, Representation};
use super::range::{self, Decision};
use crate::EmbeddedFile;

/// The outcome of a request, from which [`ServeCatalog::build`] makes the response.
pub(super) enum Outcome<'a> {
    /// Neither GET nor HEAD: 405.
    MethodNotAllowed,
    /// A path that could step outside the catalog, or is not valid: 400.
    BadPath(PathError),
    /// Nothing to serve: 404, with the catalog's 404 page (whole, in the encoding negotiated)
    /// when it has one. `varies` when the answer depended on `Accept` (the SPA fallback was
    /// considered).
    NotFound {
        page: Option<Served<'a>>,
        varies: bool,
    },
    /// A folder (or the mount point) asked for without its trailing slash: 307 to it.
    RedirectToFolder,
    /// A page asked for by its `.html` name under clean URLs: 308 to `location`.
    RedirectClean { location: String },
    /// A file: what of it the request gets.
    File(Served<'a>),
}

/// A file found for a request, with its header values.
pub(super) struct Target<'a> {
    pub(super) prepared: Headers<'a>,
    /// Its place in the service's table (the decompressed cache's key); `None` in dev mode.
    pub(super) index: Option<usize>,
    /// Asked for by its fingerprinted name, whose bytes never change: served [`IMMUTABLE`]
    /// whatever the catalog's policy says of the plain name.
    ///
    /// [`IMMUTABLE`]: super::IMMUTABLE
    pub(super) is_fingerprinted: bool,
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
    /// Whether the answer depended on `Accept` (it is the SPA's page for a navigation).
    pub(super) varies: bool,
}

/// Which part of the chosen representation a request gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    /// 304: the client's copy is current.
    NotModified,
    /// 412: a precondition (`If-Match`, `If-Unmodified-Since`) failed.
    PreconditionFailed,
    /// 416: no byte of the range exists.
    Unsatisfiable,
    /// 200 with the whole representation.
    Full,
    /// 206 with bytes `start..=end` of the identity representation.
    Range { start: u64, end: u64 },
    /// 206 `multipart/byteranges` with these disjoint, sorted ranges of identity (boxed: rare,
    /// and it keeps every outcome small to move).
    Ranges(Box<[RangeInclusive<u64>]>),
}

impl ServeCatalog {
    /// Decides what `request` gets.
    pub(super) fn decide(&self, request: &impl RequestHead) -> Outcome<'_> {
        let method = request.method_name();
        if method != "GET" && method != "HEAD" {
            return Outcome::MethodNotAllowed;
        }
        let decoded = match path::decode(request.raw_path(), self.config.max_path_len) {
            Ok(decoded) => decoded,
            Err(reason) => return Outcome::BadPath(reason),
        };
        let Some(within) = self.within_mount(&decoded) else {
            return Outcome::NotFound {
                page: self.not_found_page(request),
                varies: false,
            };
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
        if !has_empty_segment && let Some(outcome) = self.redirect_clean(key, request) {
            return outcome;
        }
        let found = if has_empty_segment {
            None
        } else {
            self.lookup(key)
        };
        let target = match found {
            Some(target) => target,
            None if !has_empty_segment && self.is_folder(key) => return Outcome::RedirectToFolder,
            None => return self.miss(request, &decoded),
        };
        let is_head = method == "HEAD";
        Outcome::File(self.serve_part(target, request, is_head, false))
    }

    /// What a path that names no file gets: the SPA's page for a browser navigation, else 404
    /// (with the 404 page when there is one).
    fn miss<'a>(&'a self, request: &impl RequestHead, decoded: &str) -> Outcome<'a> {
        let varies = self.may_fall_back(decoded);
        if varies
            && is_navigation(request)
            && let Some(target) = self.spa_page()
        {
            let is_head = request.method_name() == "HEAD";
            return Outcome::File(self.serve_part(target, request, is_head, true));
        }
        Outcome::NotFound {
            page: self.not_found_page(request),
            varies,
        }
    }

    /// The file a catalog key names: the file itself, a file `.html` adds under clean URLs, an
    /// alias; the folder's index file for a key ending in `/`.
    fn lookup(&self, key: &str) -> Option<Target<'_>> {
        if key.is_empty() || key.ends_with('/') {
            return self.find(&format!("{key}{}", self.config.index_file));
        }
        if let Some(target) = self.find(key) {
            return Some(target);
        }
        if let Some(target) = self.find_fingerprinted(key) {
            return Some(target);
        }
        if self.config.clean_urls && !has_extension(key) {
            if let Some(target) = self.find(&format!("{key}.html")) {
                return Some(target);
            }
        }
        let aliases = &self.config.aliases;
        let position = aliases
            .binary_search_by(|(alias, _)| alias.as_str().cmp(key))
            .ok()?;
        self.found(&aliases[position].1)
    }

    /// Under clean URLs, the 308 for a page asked for by its `.html` name (`/about.html` to
    /// `/about`, `/docs/index.html` to `/docs/`), when that page exists.
    fn redirect_clean(&self, key: &str, request: &impl RequestHead) -> Option<Outcome<'_>> {
        if !self.config.clean_urls {
            return None;
        }
        let stem = key.strip_suffix(".html")?;
        if stem.is_empty() || stem.ends_with('/') || self.catalog.file(key).is_none() {
            return None;
        }
        let path = request.raw_path();
        let clean_path = if key == self.config.index_file
            || key.ends_with(&format!("/{}", self.config.index_file))
        {
            path.strip_suffix(&self.config.index_file)?.to_owned()
        } else {
            path.strip_suffix(".html")?.to_owned()
        };
        let location = match request.raw_query() {
            Some(query) => format!("{clean_path}?{query}"),
            None => clean_path,
        };
        Some(Outcome::RedirectClean { location })
    }

    /// The part of a file a request gets: its representation (ranges are of identity, so a
    /// range request is never encoded), then its preconditions, then the range.
    fn serve_part<'a>(
        &self,
        target: Target<'a>,
        request: &impl RequestHead,
        is_head: bool,
        varies: bool,
    ) -> Served<'a> {
        // One lookup: whether there is a range, and its text when it is well formed.
        let range_value = if is_head {
            None
        } else {
            request.header_values(&RANGE).next()
        };
        let range_header = range_value.and_then(text);
        let encoded = if range_value.is_some() {
            None
        } else {
            negotiate(&target, request)
        };
        let file = target.prepared.file;
        let etag = encoded.map_or(file.etag(), |representation| representation.etag_text);
        let part = match conditional::evaluate(request, etag, file.modified()) {
            Verdict::Failed => Part::PreconditionFailed,
            Verdict::NotModified => Part::NotModified,
            Verdict::Proceed => range_part(range_header, first_text(request, &IF_RANGE), file),
        };
        Served {
            target,
            encoded,
            part,
            varies,
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
            return self.on_disk(key);
        }
        self.catalog
            .position(key)
            .map(|index| self.prepared_at(index))
    }

    /// The file whose fingerprinted name is `key` (`fingerprint = true`), marked immutable.
    fn find_fingerprinted(&self, key: &str) -> Option<Target<'_>> {
        if !self.catalog.is_fingerprinted() {
            return None;
        }
        let file = self.catalog.file_by_url(key)?;
        let mut target = self.find(file.path())?;
        target.is_fingerprinted = true;
        Some(target)
    }

    /// A dev catalog's file as it is on disk now, with headers made for it.
    fn on_disk(&self, key: &str) -> Option<Target<'_>> {
        let file = self.catalog.file(key)?;
        let no_cache = |_: &EmbeddedFile| HeaderValue::from_static(NO_CACHE);
        Some(Target {
            prepared: Headers::Disk(Box::new(Prepared::new(file, &no_cache))),
            index: None,
            is_fingerprinted: false,
        })
    }

    /// A file chosen when the service was set up.
    fn found(&self, chosen: &Chosen) -> Option<Target<'_>> {
        match chosen {
            Chosen::Index(index) => Some(self.prepared_at(*index)),
            Chosen::Key(key) => self.on_disk(key),
        }
    }

    /// The file at `index` of the table built with the service.
    fn prepared_at(&self, index: usize) -> Target<'_> {
        Target {
            prepared: Headers::Table(&self.prepared[index]),
            index: Some(index),
            is_fingerprinted: false,
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

    /// Whether a miss at `decoded` would get the SPA's page for a navigation: a fallback is set
    /// and the path lies outside the excluded prefixes.
    fn may_fall_back(&self, decoded: &str) -> bool {
        self.config.fallback.is_some()
            && !self.config.no_fallback.iter().any(|prefix| {
                decoded.starts_with(prefix.as_str()) || decoded == prefix.trim_end_matches('/')
            })
    }

    fn spa_page(&self) -> Option<Target<'_>> {
        self.found(self.config.fallback.as_ref()?)
    }

    /// The 404 page, whole, in the encoding the request accepts: a miss has no preconditions
    /// (RFC 9110 §13.2.1) and no range.
    fn not_found_page(&self, request: &impl RequestHead) -> Option<Served<'_>> {
        let target = self.found(self.config.not_found.as_ref()?)?;
        let encoded = negotiate(&target, request);
        Some(Served {
            target,
            encoded,
            part: Part::Full,
            varies: false,
        })
    }
}

/// The encoded representation of `target` that the request's `Accept-Encoding` prefers, or
/// `None` for identity. A dev catalog's prepared headers are made per request and have none.
fn negotiate<'a>(target: &Target<'a>, request: &impl RequestHead) -> Option<&'a Representation> {
    let Headers::Table(prepared) = &target.prepared else {
        return None;
    };
    let prepared: &'a Prepared = prepared;
    if prepared.representations.is_empty() {
        return None;
    }
    Accepted::parse(request.header_values(&ACCEPT_ENCODING)).choose(&prepared.representations)
}

/// Whether the request is a browser navigation: its `Accept` names `text/html`.
fn is_navigation(request: &impl RequestHead) -> bool {
    request
        .header_values(&ACCEPT)
        .filter_map(text)
        .any(|accept| accept.to_ascii_lowercase().contains("text/html"))
}

/// Whether the last segment of a key has an extension (`a/b.css`, not `a.b/c`).
fn has_extension(key: &str) -> bool {
    key.rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'))
}

/// The part a `Range` header asks for, honouring `If-Range`: the whole file when there is no
/// range, when it is ignored, or when `If-Range` no longer holds.
fn range_part(range_header: Option<&str>, if_range: Option<&str>, file: &EmbeddedFile) -> Part {
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
        Decision::Parts(ranges) => Part::Ranges(ranges.into_boxed_slice()),
        Decision::Unsatisfiable => Part::Unsatisfiable,
    }
}
