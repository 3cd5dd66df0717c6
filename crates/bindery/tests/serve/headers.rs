//! Response headers computed at build time: type, length, validators, caching.

use bindery::serve::ServeCatalog;
use bindery::serve::cache_control::{IMMUTABLE, NO_CACHE};
use http::StatusCode;

use crate::support::{COPY, GZIP, STATIC, TIMED, get, on_disk};

#[tokio::test]
async fn static_files_carry_type_length_etag_and_accept_ranges() {
    let service = ServeCatalog::new(&STATIC);
    let reply = get(&service, "/index.html", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(
        reply.header("content-length"),
        on_disk("index.html").len().to_string()
    );
    assert_eq!(
        reply.header("etag"),
        STATIC.file("index.html").expect("file").etag()
    );
    assert_eq!(reply.header("accept-ranges"), "bytes");
    assert_eq!(reply.header("x-content-type-options"), "nosniff");
    assert_eq!(reply.body, on_disk("index.html"));
    assert!(
        reply.headers.get("vary").is_none(),
        "nothing to vary on in static mode"
    );
    assert!(
        reply.headers.get("last-modified").is_none(),
        "no times unless asked for"
    );
}

#[tokio::test]
async fn content_types_come_from_the_catalog() {
    let service = ServeCatalog::new(&STATIC);
    for (path, expected) in [
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/images/logo.svg", "image/svg+xml; charset=utf-8"),
        ("/images/pixel.png", "image/png"),
        ("/module.wasm", "application/wasm"),
        ("/data.json", "application/json; charset=utf-8"),
        ("/notes.unknownext", "application/octet-stream"),
    ] {
        assert_eq!(
            get(&service, path, &[]).await.header("content-type"),
            expected,
            "{path}"
        );
    }
}

#[tokio::test]
async fn every_mode_serves_the_same_bytes() {
    for catalog in [&STATIC, &GZIP, &COPY] {
        let service = ServeCatalog::new(catalog);
        for file in catalog.iter() {
            let uri = bindery_test_support::uri_path(file.path());
            let reply = get(&service, &uri, &[]).await;
            assert_eq!(reply.status, StatusCode::OK, "{uri}");
            assert_eq!(reply.body, on_disk(file.path()), "{} {uri}", catalog.mode());
        }
    }
}

#[tokio::test]
async fn vary_is_set_on_every_asset_with_a_compressed_representation() {
    let service = ServeCatalog::new(&GZIP);
    for encoding in ["gzip", "identity", ""] {
        assert_eq!(
            get(&service, "/index.html", &[("accept-encoding", encoding)])
                .await
                .header("vary"),
            "accept-encoding"
        );
    }
    assert!(
        get(&service, "/random.bin", &[])
            .await
            .headers
            .get("vary")
            .is_none(),
        "stored raw"
    );
}

#[tokio::test]
async fn last_modified_is_sent_when_the_catalog_has_times() {
    let service = ServeCatalog::new(&TIMED);
    let reply = get(&service, "/hello.txt", &[]).await;
    let modified = TIMED
        .file("hello.txt")
        .expect("file")
        .modified()
        .expect("time");
    assert_eq!(
        reply.header("last-modified"),
        httpdate::fmt_http_date(modified)
    );
}

#[tokio::test]
async fn cache_control_defaults_and_policy() {
    let service = ServeCatalog::new(&STATIC);
    assert_eq!(
        get(&service, "/index.html", &[])
            .await
            .header("cache-control"),
        NO_CACHE
    );
    assert_eq!(
        get(&service, "/app.js", &[]).await.header("cache-control"),
        NO_CACHE
    );
    let custom = ServeCatalog::builder(&STATIC)
        .cache_control(|file| {
            if file.path().ends_with(".js") {
                IMMUTABLE
            } else {
                "no-store"
            }
        })
        .build()
        .expect("a valid setup");
    assert_eq!(
        get(&custom, "/app.js", &[]).await.header("cache-control"),
        IMMUTABLE
    );
    assert_eq!(
        get(&custom, "/index.html", &[])
            .await
            .header("cache-control"),
        "no-store"
    );
}

#[tokio::test]
async fn a_closure_policy_can_capture_and_an_invalid_value_falls_back_to_no_cache() {
    let seconds = 600;
    let captured = ServeCatalog::builder(&STATIC)
        .cache_control(move |file| format!("public, max-age={seconds}, x-len={}", file.len()))
        .build()
        .expect("a valid setup");
    let reply = get(&captured, "/hello.txt", &[]).await;
    assert_eq!(
        reply.header("cache-control"),
        "public, max-age=600, x-len=16"
    );

    let invalid = ServeCatalog::builder(&STATIC)
        .cache_control(|_| "bad\nvalue")
        .build()
        .expect("a valid setup");
    assert_eq!(
        get(&invalid, "/hello.txt", &[])
            .await
            .header("cache-control"),
        NO_CACHE
    );
}

#[test]
fn only_hash_like_name_parts_count_as_fingerprints() {
    use bindery::serve::cache_control::has_content_hash;
    for hashed in [
        "assets/index-BdXw3aQ1.js",     // Vite
        "assets/index-4f2a9c1e.css",    // Vite, hex
        "js/app.3f9a1b2c.js",           // webpack [contenthash:8]
        "js/chunk-vendors.a1b2c3d4.js", // Vue CLI
        "main.7d3a9b1c4e5f6a7b.js",     // Angular
        "vendor.deadbeefcafe.js",       // hex made of letters only
        "static/media/logo.5d5d9eef.svg",
    ] {
        assert!(has_content_hash(hashed), "{hashed}");
    }
    for plain in [
        "report-20240101.pdf",
        "backup_20231231235959.tar",
        "app.js",
        "chunk-vendors.js",
        "release-notes.js",
        "3f9a1b2c3d.js",
        "photo-abcdefghijk.jpg",
    ] {
        assert!(!has_content_hash(plain), "{plain}");
    }
}

/// A service with per-path headers over the gzip catalog, whose 404 page is `index.html`.
fn with_path_headers() -> ServeCatalog {
    ServeCatalog::builder(&GZIP)
        .not_found_file("index.html")
        .headers("**", [("strict-transport-security", "max-age=600")])
        .headers(
            "*.html",
            [("content-security-policy", "default-src 'self'")],
        )
        .headers(
            "*.js",
            [("access-control-allow-origin", "*"), ("link", "</a>")],
        )
        .headers("app.js", [("link", "</b>"), ("link", "</c>")])
        .build()
        .expect("valid headers")
}

#[tokio::test]
async fn per_path_headers_go_with_every_representation_of_the_file_and_with_its_304() {
    let service = with_path_headers();
    for request in [
        &[][..],
        &[("accept-encoding", "gzip")][..],
        &[("range", "bytes=0-3")][..],
        &[("range", "bytes=0-1,4-5")][..],
    ] {
        let reply = get(&service, "/app.js", request).await;
        assert!(reply.status.is_success(), "{request:?}: {}", reply.status);
        assert_eq!(reply.header("strict-transport-security"), "max-age=600");
        assert_eq!(reply.header("access-control-allow-origin"), "*");
        // The narrower rule given last replaced `Link`, keeping both of its own values.
        let links: Vec<_> = reply.headers.get_all("link").iter().collect();
        assert_eq!(links, ["</b>", "</c>"], "{request:?}");
        assert!(reply.headers.get("content-security-policy").is_none());
    }
    let etag = GZIP.file("app.js").expect("file").etag();
    let revalidated = get(&service, "/app.js", &[("if-none-match", etag)]).await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    assert_eq!(revalidated.header("access-control-allow-origin"), "*");
}

#[tokio::test]
async fn the_404_page_has_its_own_headers_and_errors_have_none() {
    let service = with_path_headers();
    let missing = get(&service, "/no/such/page", &[]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(
        missing.header("content-security-policy"),
        "default-src 'self'"
    );
    let refused = get(&service, "/../secret", &[]).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(refused.headers.get("strict-transport-security").is_none());
    let failed = get(&service, "/app.js", &[("if-match", "\"other\"")]).await;
    assert_eq!(failed.status, StatusCode::PRECONDITION_FAILED);
    assert!(failed.headers.get("access-control-allow-origin").is_none());
}

#[test]
fn headers_the_service_writes_or_cannot_send_are_refused_when_it_is_built() {
    use bindery::serve::BuildError;
    for (glob, name, value) in [
        ("**", "content-type", "text/plain"),
        ("**", "Cache-Control", "no-store"),
        ("**", "bad name", "x"),
        ("**", "x-ok", "bad\r\nvalue"),
    ] {
        let error = ServeCatalog::builder(&GZIP)
            .headers(glob, [(name, value)])
            .build()
            .expect_err(name);
        assert!(matches!(error, BuildError::BadHeader { .. }), "{error}");
        assert!(error.to_string().contains(name), "{error}");
    }
    let error = ServeCatalog::builder(&GZIP)
        .headers("{a,", [("x-a", "1")])
        .build()
        .expect_err("glob");
    assert!(matches!(error, BuildError::BadGlob { .. }), "{error}");
}
