//! How each answer may be cached (RFC 9111), so that replicas can sit behind a CDN or a caching
//! proxy that carries most of the traffic:
//!
//! | route | `Cache-Control` | validators |
//! | --- | --- | --- |
//! | `/geo/<ip>`, 200 and 404 | `max-age=N` (`--geo-max-age`, one day by default): any cache may store it | strong `ETag` of the database identity, language and address; `Last-Modified` = the database's build date |
//! | `/geo/me`, every status | `private, no-store`: it depends on the caller | none |
//! | 400, 405, 500 | `no-store`: cheap to answer again, and never worth a cache slot | none |
//! | `/healthz`, `/metrics` | `no-store`: always the live figures | none |
//! | `/openapi.json` | `no-cache`: revalidated on each use | strong `ETag` of the document |
//! | the SPA | bindery's `ServeCatalog` policy | `ETag` per representation |
//!
//! JSON answers are not content-coded, so they carry no `Vary`. After an mmap database swap the
//! identity changes at once, and with it every `/geo` ETag. `public` is left out of the `/geo`
//! answers: without `Authorization` (which the API never uses) `max-age` already lets shared
//! caches store them, and REDbot flags the redundant directive. `/geo/me` keeps `private`
//! beside `no-store` on purpose, for caches that honour only one of the two.

use std::net::IpAddr;
use std::time::SystemTime;

use axum::response::Response;
use http::header::{CACHE_CONTROL, ETAG, LAST_MODIFIED};
use http::{HeaderMap, HeaderValue, StatusCode};

use crate::db::Validators;
use crate::language::Language;

/// One day: a database is rebuilt weekly at the most often.
pub const DEFAULT_GEO_MAX_AGE: u64 = 86_400;
/// For answers no cache may keep.
pub const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
/// For answers that depend on the caller (`/geo/me`).
pub const PRIVATE_NO_STORE: HeaderValue = HeaderValue::from_static("private, no-store");
/// For answers a cache may keep but must revalidate (`/openapi.json`).
pub const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// The `Cache-Control` of `/geo/<ip>` answers, computed once.
///
/// ```
/// let policy = geo_server::caching::GeoCaching::new(3600);
/// assert_eq!(policy.cache_control(), "max-age=3600");
/// ```
#[derive(Debug, Clone)]
pub struct GeoCaching {
    cache_control: HeaderValue,
}

impl GeoCaching {
    /// Answers may be kept `max_age` seconds by any cache, browsers and shared ones alike.
    pub fn new(max_age: u64) -> Self {
        GeoCaching {
            cache_control: HeaderValue::from_str(&format!("max-age={max_age}")).unwrap_or(NO_CACHE),
        }
    }

    /// The header value.
    pub fn cache_control(&self) -> &HeaderValue {
        &self.cache_control
    }

    /// The validators and `Cache-Control` of a `/geo/<ip>` answer, added to `headers`; the
    /// tag's values move into them.
    pub fn describe(&self, headers: &mut HeaderMap, tag: GeoTag) {
        headers.insert(CACHE_CONTROL, self.cache_control.clone());
        headers.insert(ETAG, tag.etag);
        headers.insert(LAST_MODIFIED, tag.last_modified);
    }
}

impl Default for GeoCaching {
    fn default() -> Self {
        GeoCaching::new(DEFAULT_GEO_MAX_AGE)
    }
}

/// The validators of one `/geo/<ip>` answer.
#[derive(Debug, Clone)]
pub struct GeoTag {
    etag: HeaderValue,
    built: SystemTime,
    last_modified: HeaderValue,
}

impl GeoTag {
    /// `"<database identity>.<language>.<address>"`: it changes whenever the database, the
    /// language or the address does, and names one representation (the JSON is never encoded).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use geo_server::language::Language;
    /// use geo_server::caching::GeoTag;
    /// use geo_server::db::Validators;
    ///
    /// let built = UNIX_EPOCH + Duration::from_secs(1_530_653_216);
    /// let last_modified = http::HeaderValue::from_static("Tue, 03 Jul 2018 21:26:56 GMT");
    /// let validators = Validators { identity: Arc::from("5b3b-9f86d081884c7d65"), built, last_modified };
    /// let tag = GeoTag::new(&validators, Language::German, "8.8.8.8".parse().unwrap());
    /// assert_eq!(tag.etag(), "\"5b3b-9f86d081884c7d65.de.8.8.8.8\"");
    /// assert_eq!(tag.last_modified(), "Tue, 03 Jul 2018 21:26:56 GMT");
    /// ```
    pub fn new(validators: &Validators, language: Language, ip: IpAddr) -> Self {
        let text = crate::exact::written(|text| {
            text.push(b'"');
            text.extend_from_slice(validators.identity.as_bytes());
            text.push(b'.');
            text.extend_from_slice(language.code().as_bytes());
            text.push(b'.');
            crate::address::write_ip(text, ip);
            text.push(b'"');
        });
        GeoTag {
            // The buffer, exactly the tag's length, becomes the header value's: one allocation.
            etag: HeaderValue::from_maybe_shared(bytes::Bytes::from(text))
                .unwrap_or(HeaderValue::from_static("\"\"")),
            built: validators.built,
            last_modified: validators.last_modified.clone(),
        }
    }

    /// The `ETag` value.
    pub fn etag(&self) -> &str {
        self.etag.to_str().unwrap_or_default()
    }

    /// The `Last-Modified` value.
    pub fn last_modified(&self) -> &str {
        self.last_modified.to_str().unwrap_or_default()
    }

    /// Whether the request's conditionals let it be answered with 304 (RFC 9110 §13.2.2):
    /// `If-None-Match` decides when present (weak comparison, `*` matches); otherwise
    /// `If-Modified-Since` at or after the database's build date.
    pub fn is_not_modified(&self, headers: &HeaderMap) -> bool {
        bindery::serve::conditional::is_not_modified(headers, self.etag(), Some(self.built))
    }
}

/// A 304 carrying the headers a 200 would have for caches to update (RFC 9110 §15.4.5).
pub fn not_modified(headers: HeaderMap) -> Response {
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = StatusCode::NOT_MODIFIED;
    *response.headers_mut() = headers;
    response
}

/// Gives an answer that has not chosen a `Cache-Control` of its own `no-store`: errors,
/// `/healthz`, `/metrics`. Caches then never keep what was not meant for them. Called by the
/// router's one middleware, so it costs no layer of its own per request.
pub fn default_no_store<B>(response: &mut http::Response<B>) {
    response
        .headers_mut()
        .entry(CACHE_CONTROL)
        .or_insert(NO_STORE);
}
