//! What a miss gets: the SPA's page for a navigation (with `Vary: Accept`), the catalog's 404
//! page, another service; and what finds a file that is not at the path asked: clean URLs and
//! aliases.

use std::convert::Infallible;

use bindery::serve::ServeCatalog;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::support::{GZIP, STATIC, get, on_disk};

const NAVIGATION: (&str, &str) = ("accept", "text/html,application/xhtml+xml,*/*;q=0.8");

/// A response that depends on `Accept` says so, or a shared cache could hand the app's page to
/// a script's request, or a 404 to a browser.
#[tokio::test]
async fn every_answer_that_depends_on_accept_varies_by_it() {
    let service = ServeCatalog::builder(&GZIP)
        .spa_fallback("index.html")
        .no_fallback_prefix("/api/")
        .build()
        .expect("a valid setup");
    let page = get(&service, "/deep/link", &[NAVIGATION]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.header("vary"), "accept, accept-encoding");
    let script = get(&service, "/missing.js", &[("accept", "*/*")]).await;
    assert_eq!(script.status, StatusCode::NOT_FOUND);
    assert_eq!(script.header("vary"), "accept");
    // Neither a file that exists nor a path the fallback never covers depends on Accept.
    let file = get(&service, "/index.html", &[NAVIGATION]).await;
    assert_eq!(file.header("vary"), "accept-encoding");
    let api = get(&service, "/api/nothing", &[NAVIGATION]).await;
    assert_eq!(api.status, StatusCode::NOT_FOUND);
    assert!(api.headers.get("vary").is_none());
}

#[tokio::test]
async fn the_404_page_is_served_with_status_404_and_its_own_headers() {
    let service = ServeCatalog::builder(&GZIP)
        .not_found_file("docs/index.html")
        .build()
        .expect("a valid setup");
    let page = GZIP.file("docs/index.html").expect("page");
    let reply = get(&service, "/no/such/thing.js", &[]).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(reply.header("etag"), page.etag());
    assert_eq!(reply.body, on_disk("docs/index.html"));
    // A miss has no preconditions and no range (RFC 9110 §13.2.1): the whole page, every time.
    let conditional = get(
        &service,
        "/nope",
        &[("if-none-match", page.etag()), ("range", "bytes=0-0")],
    )
    .await;
    assert_eq!(conditional.status, StatusCode::NOT_FOUND);
    assert_eq!(conditional.body, on_disk("docs/index.html"));
    // HEAD gets the headers and no body.
    let head =
        crate::support::send(&service, Request::head("/nope").body(()).expect("request")).await;
    assert_eq!(head.status, StatusCode::NOT_FOUND);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length"),
        on_disk("docs/index.html").len().to_string()
    );
}

#[test]
fn a_setter_naming_a_missing_file_is_refused_at_build_with_near_names() {
    let refused =
        |builder: bindery::serve::Builder| builder.build().expect_err("refused").to_string();
    assert_eq!(
        refused(ServeCatalog::builder(&GZIP).not_found_file("docs/indx.html")),
        r#"not_found_file: the catalog has no file "docs/indx.html" (did you mean "docs/index.html"?)"#
    );
    assert_eq!(
        refused(ServeCatalog::builder(&GZIP).alias("latest.js", "ap.js")),
        r#"alias: the catalog has no file "ap.js" (did you mean "app.js"?)"#
    );
    assert_eq!(
        refused(ServeCatalog::builder(&GZIP).alias("../escape", "app.js")),
        r#"alias: "../escape" is not a catalog path (no `..`, `.` or empty segments, `\`, NUL)"#
    );
    let same_name = refused(ServeCatalog::builder(&GZIP).spa_fallback("pages/index.html"));
    assert!(same_name.contains(r#""index.html""#), "{same_name}");
}

#[tokio::test]
async fn the_spa_page_wins_over_the_404_page_for_a_navigation() {
    let service = ServeCatalog::builder(&STATIC)
        .spa_fallback("index.html")
        .not_found_file("docs/index.html")
        .build()
        .expect("a valid setup");
    let navigation = get(&service, "/route", &[NAVIGATION]).await;
    assert_eq!(navigation.status, StatusCode::OK);
    assert_eq!(navigation.body, on_disk("index.html"));
    let asset = get(&service, "/missing.png", &[("accept", "image/*")]).await;
    assert_eq!(asset.status, StatusCode::NOT_FOUND);
    assert_eq!(asset.body, on_disk("docs/index.html"));
    assert_eq!(asset.header("vary"), "accept");
}

#[tokio::test]
async fn misses_go_to_the_not_found_service_with_status_404() {
    let page = tower::service_fn(|request: Request<()>| async move {
        Ok::<_, Infallible>(http::Response::new(format!("no {}", request.uri().path())))
    });
    let service = bindery::serve::NotFoundService::new(ServeCatalog::new(&STATIC), page);
    let missing = service
        .clone()
        .oneshot(Request::get("/nope").body(()).expect("request"))
        .await
        .expect("infallible");
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let body = missing
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(&body[..], b"no /nope");
    let found = service
        .oneshot(Request::get("/hello.txt").body(()).expect("request"))
        .await
        .expect("infallible");
    assert_eq!(found.status(), StatusCode::OK);
    let body = found.into_body().collect().await.expect("body").to_bytes();
    assert_eq!(&body[..], b"Hello, bindery!\n");
}

#[tokio::test]
async fn clean_urls_serve_pages_without_html_and_redirect_to_them() {
    let service = ServeCatalog::builder(&STATIC)
        .clean_urls(true)
        .build()
        .expect("a valid setup");
    let clean = get(&service, "/index", &[]).await;
    assert_eq!(clean.status, StatusCode::OK);
    assert_eq!(clean.body, on_disk("index.html"));
    for (path, location) in [
        ("/index.html", "/"),
        ("/docs/index.html", "/docs/"),
        ("/index.html?lang=de", "/?lang=de"),
    ] {
        let reply = get(&service, path, &[]).await;
        assert_eq!(reply.status, StatusCode::PERMANENT_REDIRECT, "{path}");
        assert_eq!(reply.header("location"), location, "{path}");
    }
    // Other files keep their names; a page that does not exist is still a miss.
    assert_eq!(
        get(&service, "/hello.txt", &[]).await.status,
        StatusCode::OK
    );
    assert_eq!(
        get(&service, "/hello", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&service, "/nope.html", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    // Off by default.
    let plain = ServeCatalog::new(&STATIC);
    assert_eq!(get(&plain, "/index.html", &[]).await.status, StatusCode::OK);
    assert_eq!(
        get(&plain, "/index", &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn clean_urls_work_under_a_mount_point() {
    let service = ServeCatalog::builder(&STATIC)
        .clean_urls(true)
        .mounted_at("/site")
        .build()
        .expect("a valid setup");
    assert_eq!(
        get(&service, "/site/index", &[]).await.status,
        StatusCode::OK
    );
    let reply = get(&service, "/site/docs/index.html", &[]).await;
    assert_eq!(reply.header("location"), "/site/docs/");
}

#[tokio::test]
async fn an_alias_serves_its_file_with_the_same_headers() {
    let service = ServeCatalog::builder(&GZIP)
        .alias("latest.js", "app.js")
        .build()
        .expect("a valid setup");
    let alias = get(&service, "/latest.js", &[("accept-encoding", "gzip")]).await;
    let file = get(&service, "/app.js", &[("accept-encoding", "gzip")]).await;
    assert_eq!(alias.status, StatusCode::OK);
    for header in ["etag", "content-type", "content-encoding", "content-length"] {
        assert_eq!(alias.header(header), file.header(header), "{header}");
    }
    assert_eq!(alias.body, file.body);
    assert_eq!(
        get(&service, "/../escape", &[]).await.status,
        StatusCode::BAD_REQUEST
    );
}

/// A folder missing when the crate was built (`allow_missing`): a debug build answers every
/// miss with what the build error would have said, the crate's `hint` included (a release
/// build of it fails: tests/it/folders.rs).
#[cfg(debug_assertions)]
#[tokio::test]
async fn a_missing_folder_says_what_to_run_in_a_debug_build() {
    static NOT_BUILT: bindery::Catalog = bindery::embed!(
        "../../assets/not-built-yet",
        allow_missing = true,
        hint = "run `npm run build` in web/ first"
    );
    assert!(NOT_BUILT.is_empty());
    let service = bindery::serve::ServeCatalog::new(&NOT_BUILT);
    for path in ["/", "/index.html", "/app/route"] {
        let reply = crate::support::get(&service, path, &[("accept", "text/html")]).await;
        assert_eq!(
            reply.status,
            http::StatusCode::SERVICE_UNAVAILABLE,
            "{path}"
        );
        assert_eq!(reply.header("content-type"), "text/plain; charset=utf-8");
        assert_eq!(reply.header("cache-control"), "no-store");
        let text = String::from_utf8_lossy(&reply.body);
        assert!(
            text.contains("not-built-yet` does not exist; run `npm run build` in web/ first"),
            "{text}"
        );
    }
    // Without `allow_missing`'s note, a miss is the plain 404.
    let fixtures = bindery::serve::ServeCatalog::new(&crate::support::STATIC);
    let miss = crate::support::get(&fixtures, "/nope", &[]).await;
    assert_eq!(miss.status, http::StatusCode::NOT_FOUND);
}
