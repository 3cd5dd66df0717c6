//! How every route may be cached: `/geo/<ip>` public with validators that follow the database,
//! `/geo/me` private, errors and live figures never stored, the API description revalidated.

use std::net::SocketAddr;

use axum::body::Body;
use geo_server::AppState;
use geo_server::caching::GeoCaching;
use geo_server::db::{DbMode, GeoDb};
use http::{Request, StatusCode};

use crate::support::{database, get, sample_file, send, write_other_database};

fn state() -> (tempfile::TempDir, AppState) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    (dir, state)
}

#[tokio::test]
async fn geo_answers_are_public_for_a_day_with_an_etag_and_the_database_date() {
    let (_dir, state) = state();
    for path in ["/geo/8.8.8.8", "/geo/10.0.0.1", "/geo/81.2.69.160?lang=de"] {
        let reply = get(&state, path, &[]).await;
        assert!(matches!(reply.status.as_u16(), 200 | 404), "{path}");
        assert_eq!(reply.headers["cache-control"], "max-age=86400", "{path}");
        let etag = reply.headers["etag"].to_str().expect("ascii");
        assert!(etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/"));
        let built = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample")
            .expect("sample")
            .info()
            .build_epoch;
        assert_eq!(
            reply.headers["last-modified"],
            httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(built))
        );
        assert!(
            reply.headers.get("vary").is_none(),
            "JSON is never encoded: no Vary"
        );
    }
}

#[tokio::test]
async fn the_etag_names_the_language_and_the_address() {
    let (_dir, state) = state();
    let mut tags = Vec::new();
    for path in [
        "/geo/8.8.8.8",
        "/geo/8.8.8.8?lang=de",
        "/geo/8.8.4.4",
        "/geo/10.0.0.1",
    ] {
        tags.push(get(&state, path, &[]).await.headers["etag"].clone());
    }
    let mut distinct = tags.clone();
    distinct.sort_by(|left, right| left.as_bytes().cmp(right.as_bytes()));
    distinct.dedup();
    assert_eq!(distinct.len(), tags.len(), "{tags:?}");
    let again = get(&state, "/geo/8.8.8.8", &[]).await;
    assert_eq!(
        again.headers["etag"], tags[0],
        "stable for the same database"
    );
}

#[tokio::test]
async fn conditionals_answer_304_with_the_validators() {
    let (_dir, state) = state();
    let first = get(&state, "/geo/81.2.69.160", &[]).await;
    let etag = first.headers["etag"].to_str().expect("ascii").to_owned();
    let last_modified = first.headers["last-modified"]
        .to_str()
        .expect("ascii")
        .to_owned();
    for headers in [
        vec![("if-none-match", etag.as_str())],
        vec![("if-none-match", "\"other\", W/\"x\"")],
        vec![("if-none-match", "*")],
        vec![("if-modified-since", last_modified.as_str())],
        vec![("if-modified-since", "Fri, 01 Jan 2100 00:00:00 GMT")],
        vec![("if-modified-since", "Thu, 01 Jan 1970 00:00:00 GMT")],
        vec![
            ("if-none-match", "\"other\""),
            ("if-modified-since", last_modified.as_str()),
        ],
    ] {
        let reply = get(&state, "/geo/81.2.69.160", &headers).await;
        let should_match = match headers[0] {
            ("if-none-match", value) => value == etag || value == "*",
            (_, value) => value != "Thu, 01 Jan 1970 00:00:00 GMT",
        };
        if should_match {
            assert_eq!(reply.status, StatusCode::NOT_MODIFIED, "{headers:?}");
            assert!(reply.body.is_empty());
            assert_eq!(reply.headers["etag"], etag.as_str());
            assert_eq!(reply.headers["cache-control"], "max-age=86400");
        } else {
            assert_eq!(reply.status, StatusCode::OK, "{headers:?}");
        }
    }
    let weak = get(
        &state,
        "/geo/81.2.69.160",
        &[("if-none-match", &format!("W/{etag}"))],
    )
    .await;
    assert_eq!(
        weak.status,
        StatusCode::NOT_MODIFIED,
        "If-None-Match compares weakly"
    );
}

#[tokio::test]
async fn the_max_age_follows_the_setting() {
    let (_dir, mut state) = state();
    state.geo_caching = GeoCaching::new(120);
    let reply = get(&state, "/geo/8.8.8.8", &[]).await;
    assert_eq!(reply.headers["cache-control"], "max-age=120");
}

#[tokio::test]
async fn geo_me_is_private_whatever_the_status() {
    let (_dir, mut state) = state();
    state.trusted_proxies = "loopback".parse().expect("loopback");
    for (forwarded, status) in [
        ("81.2.69.160", StatusCode::OK),
        ("10.1.2.3", StatusCode::NOT_FOUND),
    ] {
        let request = Request::get("/geo/me")
            .header("x-forwarded-for", forwarded)
            .body(Body::empty())
            .expect("request");
        let peer: SocketAddr = "127.0.0.1:40000".parse().expect("address");
        let reply = send(&state, request, peer).await;
        assert_eq!(reply.status, status, "{forwarded}");
        assert_eq!(reply.headers["cache-control"], "private, no-store");
        assert!(reply.headers.get("etag").is_none());
        assert_eq!(
            reply.json()["ip"],
            forwarded,
            "the caller's own address, found or not"
        );
    }
    let bad = get(&state, "/geo/me?lang=xx", &[]).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.headers["cache-control"], "private, no-store");
}

#[tokio::test]
async fn errors_and_live_figures_are_never_stored() {
    let (_dir, mut state) = state();
    state.metrics_public = true;
    for (path, status) in [
        ("/geo/not-an-address", StatusCode::BAD_REQUEST),
        ("/geo/8.8.8.8?lang=xx", StatusCode::BAD_REQUEST),
        ("/geo/", StatusCode::BAD_REQUEST),
        ("/healthz", StatusCode::OK),
        ("/metrics", StatusCode::OK),
    ] {
        let reply = get(&state, path, &[]).await;
        assert_eq!(reply.status, status, "{path}");
        assert_eq!(reply.headers["cache-control"], "no-store", "{path}");
    }
    let request = Request::post("/geo/8.8.8.8")
        .body(Body::empty())
        .expect("request");
    let peer: SocketAddr = "127.0.0.1:40000".parse().expect("address");
    let refused = send(&state, request, peer).await;
    assert_eq!(refused.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.headers["cache-control"], "no-store");
}

#[tokio::test]
async fn the_api_description_is_revalidated_with_its_etag() {
    let (_dir, state) = state();
    let first = get(&state, "/openapi.json", &[]).await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.headers["cache-control"], "no-cache");
    let etag = first.headers["etag"].to_str().expect("ascii").to_owned();
    let again = get(&state, "/openapi.json", &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers["etag"], etag.as_str());
    assert!(again.body.is_empty());
}

#[tokio::test]
async fn a_swapped_database_changes_every_etag_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = sample_file(dir.path());
    // SAFETY: the test replaces `live` only by rename, as the contract asks.
    let db = unsafe { GeoDb::mapped(&live) }.expect("mapped");
    let state = AppState::new(db);
    let before = get(&state, "/geo/81.2.69.160", &[]).await;
    let old_tag = before.headers["etag"].to_str().expect("ascii").to_owned();

    let next = dir.path().join("next.mmdb");
    write_other_database(&next, "Test-City", "Testville");
    std::fs::rename(&next, &live).expect("rename");
    state.db.reload().expect("valid replacement");

    let after = get(&state, "/geo/81.2.69.160", &[("if-none-match", &old_tag)]).await;
    assert_eq!(
        after.status,
        StatusCode::OK,
        "the old tag no longer matches"
    );
    assert_eq!(after.json()["city"], "Testville");
    assert_ne!(after.headers["etag"], old_tag.as_str());
    assert_ne!(
        after.headers["last-modified"],
        before.headers["last-modified"]
    );
}
