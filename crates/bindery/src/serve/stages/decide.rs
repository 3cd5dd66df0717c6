//! What a request gets, decided before any response is built: method, path, lookup (alias,
//! clean URL, folder), the SPA fallback or the 404 page, then for a file its representation,
//! its preconditions and its range. Plain data in (the site, the request head), plain data out
//! (an [`Outcome`]).

use http::StatusCode;
use http::header::{ACCEPT, ACCEPT_ENCODING, IF_RANGE, RANGE};

use crate::EmbeddedFile;
use crate::serve::conditional;
use crate::serve::head::{RequestHead, first_text, text};
use crate::serve::http::Refusal;
use crate::serve::http::dictionary;
use crate::serve::http::encoding::Accepted;
use crate::serve::http::path::{self, joined};
use crate::serve::http::range::{self, Part};
use crate::serve::setup::prepared::{Prepared, Representation};
use crate::serve::setup::site::Site;
use crate::serve::stages::outcome::{Headers, Outcome, Served, Target};

/// Decides what `request` gets.
pub(crate) fn decide<'a>(site: &'a Site, request: &impl RequestHead) -> Outcome<'a> {
    let method = request.method_name();
    if method != "GET" && method != "HEAD" {
        return Outcome::Error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
    }
    let decoded = match path::decode(request.raw_path(), site.config.max_path_len) {
        Ok(decoded) => decoded,
        Err(reason) => return Outcome::Error(StatusCode::BAD_REQUEST, reason.message()),
    };
    let Some(within) = site.within_mount(&decoded) else {
        return Outcome::NotFound {
            page: not_found_page(site, request),
            varies: false,
        };
    };
    if within.is_empty() {
        // The mount point itself, `/static`: its index lives at `/static/`, where the
        // page's relative links resolve inside the mount.
        return redirect_to_folder(request);
    }
    let key = within.strip_prefix('/').unwrap_or(within);
    // `//x` or `a//b` never name a file: refusing them here keeps the catalog's lenient
    // leading-slash rule from turning `//host/` into a protocol-relative redirect target.
    let has_empty_segment = key.starts_with('/') || key.contains("//");
    if !has_empty_segment && let Some(outcome) = redirect_clean(site, key, request) {
        return outcome;
    }
    let found = if has_empty_segment {
        None
    } else {
        lookup(site, key)
    };
    // The mount point's index, missing: the SPA's page is its index, for every request (a
    // health check or `curl` asks for `/` with no `Accept: text/html`), with no `Vary`.
    if found.is_none()
        && key.is_empty()
        && site.may_fall_back(&decoded)
        && let Some(target) = spa_page(site)
    {
        return Outcome::File(serve_part(target, request, method == "HEAD", false));
    }
    let target = match found {
        Some(target) => target,
        None if !has_empty_segment && site.is_folder(key) => return redirect_to_folder(request),
        None => return miss(site, request, &decoded),
    };
    let is_head = method == "HEAD";
    Outcome::File(serve_part(target, request, is_head, false))
}

/// What a path that names no file gets: the SPA's page for a browser navigation, else 404
/// (with the 404 page when there is one).
fn miss<'a>(site: &'a Site, request: &impl RequestHead, decoded: &str) -> Outcome<'a> {
    let varies = site.may_fall_back(decoded);
    if varies
        && is_navigation(request)
        && let Some(target) = spa_page(site)
    {
        let is_head = request.method_name() == "HEAD";
        return Outcome::File(serve_part(target, request, is_head, true));
    }
    Outcome::NotFound {
        page: not_found_page(site, request),
        varies,
    }
}

/// The file a catalog key names: the file itself, a file `.html` adds under clean URLs, an
/// alias; the folder's index file for a key ending in `/`.
fn lookup<'a>(site: &'a Site, key: &str) -> Option<Target<'a>> {
    if key.is_empty() || key.ends_with('/') {
        return joined(&[key, &site.config.index_file], |key| site.find(key));
    }
    if let Some(target) = site.find(key) {
        return Some(target);
    }
    if let Some(target) = site.find_by_fingerprint(key) {
        return Some(target);
    }
    if site.config.clean_urls && !has_extension(key) {
        if let Some(target) = joined(&[key, ".html"], |key| site.find(key)) {
            return Some(target);
        }
    }
    let aliases = &site.config.aliases;
    let position = aliases
        .binary_search_by(|(alias, _)| alias.as_str().cmp(key))
        .ok()?;
    site.found(&aliases[position].1)
}

/// Under clean URLs, the 308 for a page asked for by its `.html` name (`/about.html` to
/// `/about`, `/docs/index.html` to `/docs/`), when that page exists.
fn redirect_clean<'a>(
    site: &'a Site,
    key: &str,
    request: &impl RequestHead,
) -> Option<Outcome<'a>> {
    if !site.config.clean_urls {
        return None;
    }
    let stem = key.strip_suffix(".html")?;
    if stem.is_empty() || stem.ends_with('/') || site.catalog.file(key).is_none() {
        return None;
    }
    let path = request.raw_path();
    let clean_path = if key == site.config.index_file
        || key.ends_with(&format!("/{}", site.config.index_file))
    {
        path.strip_suffix(&site.config.index_file)?.to_owned()
    } else {
        path.strip_suffix(".html")?.to_owned()
    };
    let location = match request.raw_query() {
        Some(query) => format!("{clean_path}?{query}"),
        None => clean_path,
    };
    Some(Outcome::Redirect {
        status: StatusCode::PERMANENT_REDIRECT,
        location,
    })
}

/// 307 to the same path with a trailing slash, query kept. Only reached for keys the catalog
/// knows as folders (or the mount point), so the target is always a local path.
fn redirect_to_folder(request: &impl RequestHead) -> Outcome<'static> {
    let location = match request.raw_query() {
        Some(query) => format!("{}/?{query}", request.raw_path()),
        None => format!("{}/", request.raw_path()),
    };
    Outcome::Redirect {
        status: StatusCode::TEMPORARY_REDIRECT,
        location,
    }
}

/// The part of a file a request gets: its representation (ranges are of identity, so a
/// range request is never encoded), then its preconditions, then the range.
fn serve_part<'a>(
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
    let file = target.headers.file;
    let etag = encoded.map_or(file.etag(), |representation| representation.etag_text);
    let selection = conditional::evaluate(request, etag, file.modified())
        .and_then(|()| range_part(range_header, first_text(request, &IF_RANGE), file));
    Served {
        target,
        encoded,
        selection,
        varies,
    }
}

/// The SPA's page, when a fallback is set and the catalog has it.
fn spa_page(site: &Site) -> Option<Target<'_>> {
    site.found(site.config.fallback.as_ref()?)
}

/// The 404 page, whole, in the encoding the request accepts: a miss has no preconditions
/// (RFC 9110 §13.2.1) and no range.
fn not_found_page<'a>(site: &'a Site, request: &impl RequestHead) -> Option<Served<'a>> {
    let target = site.found(site.config.not_found.as_ref()?)?;
    let encoded = negotiate(&target, request);
    Some(Served {
        target,
        encoded,
        selection: Ok(Part::Whole),
        varies: false,
    })
}

/// The encoded representation of `target` that the request's `Accept-Encoding` prefers, or
/// `None` for identity. A dev catalog's prepared headers are made per request and have none.
fn negotiate<'a>(target: &Target<'a>, request: &impl RequestHead) -> Option<&'a Representation> {
    let Headers::Table(prepared) = &target.headers else {
        return None;
    };
    let prepared: &'a Prepared = prepared;
    if prepared.representations.is_empty() && prepared.deltas.is_empty() {
        return None;
    }
    let accepted = Accepted::parse(request.header_values(&ACCEPT_ENCODING));
    if !prepared.deltas.is_empty() && accepted.accepts_dcz() {
        let delta = request
            .header_values(&AVAILABLE_DICTIONARY)
            .next()
            .and_then(dictionary::available)
            .and_then(|hash| prepared.delta(&hash));
        if delta.is_some() {
            return delta;
        }
    }
    accepted.choose(&prepared.representations)
}

/// `Available-Dictionary` (RFC 9842 §2.2).
const AVAILABLE_DICTIONARY: http::HeaderName =
    http::HeaderName::from_static("available-dictionary");

/// Whether the request is a browser navigation: its `Accept` names `text/html`.
fn is_navigation(request: &impl RequestHead) -> bool {
    request
        .header_values(&ACCEPT)
        .filter_map(text)
        .any(|accept| {
            accept
                .as_bytes()
                .windows(b"text/html".len())
                .any(|window| window.eq_ignore_ascii_case(b"text/html"))
        })
}

/// Whether the last segment of a key has an extension (`a/b.css`, not `a.b/c`).
fn has_extension(key: &str) -> bool {
    key.rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'))
}

/// The part a `Range` header asks for, honouring `If-Range`: the whole file when there is no
/// range, when it is ignored, or when `If-Range` no longer holds.
fn range_part(
    range_header: Option<&str>,
    if_range: Option<&str>,
    file: &EmbeddedFile,
) -> Result<Part, Refusal> {
    let whole = Ok(Part::Whole);
    let Some(range_header) = range_header else {
        return whole;
    };
    let holds =
        if_range.is_none_or(|validator| conditional::if_range_holds(validator, file.etag()));
    if !holds {
        return whole;
    }
    range::select(range_header, file.len() as u64)
}
