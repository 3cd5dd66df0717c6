//! Paths: traversal refused, folders, redirects, SPA fallback.

use bindery::serve::ServeCatalog;
use http::StatusCode;

use crate::support::{GZIP, STATIC, get, on_disk};

const TRAVERSALS: &[&str] = &[
    "/../Cargo.toml",
    "/../../Cargo.toml",
    "/%2e%2e/Cargo.toml",
    "/%2E%2E/%2E%2E/Cargo.toml",
    "/%2e%2e%2fCargo.toml",
    "/..%2fCargo.toml",
    "/..%2FCargo.toml",
    "/..%5cCargo.toml",
    "/..%5CCargo.toml",
    "/%5c..%5cCargo.toml",
    "/%2e%2e%5c%2e%2e%5cCargo.toml",
    "/%252e%252e/Cargo.toml",
    "/%252e%252e%252fCargo.toml",
    "//etc/passwd",
    "/etc/passwd",
    "/%2fetc%2fpasswd",
    "/%00",
    "/hello.txt%00.png",
    "/.%2e/Cargo.toml",
    "/%2e./Cargo.toml",
    "/deep/../../Cargo.toml",
    "/images/..%2f..%2fCargo.toml",
    "/..;/Cargo.toml",
    "/%c0%ae%c0%ae/Cargo.toml",
    "/..%c0%afCargo.toml",
    "/./hello.txt",
    "/.env",
    "/.hidden/secret.txt",
    "/C:%5cWindows%5cwin.ini",
    "/file:///etc/passwd",
    "//evil.example/",
    "//docs",
];

#[tokio::test]
async fn traversal_payloads_get_400_or_404_and_nothing_outside_the_catalog() {
    let service = ServeCatalog::new(&STATIC);
    let long = format!("/{}Cargo.toml", "../".repeat(2000));
    let mut payloads: Vec<&str> = TRAVERSALS.to_vec();
    payloads.push(&long);
    assert!(payloads.len() >= 20);
    let cargo_toml =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).expect("manifest");
    for payload in payloads {
        let reply = get(&service, payload, &[("accept", "text/html")]).await;
        assert!(
            matches!(
                reply.status,
                StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND
            ),
            "{payload}: {}",
            reply.status
        );
        assert_ne!(reply.body, cargo_toml, "{payload}");
        assert!(reply.body.is_empty(), "{payload}: no body at all");
        assert!(reply.headers.get("location").is_none(), "{payload}");
    }
}

#[tokio::test]
async fn with_a_fallback_traversals_still_only_ever_get_the_app() {
    let service = ServeCatalog::builder(&STATIC)
        .spa_fallback("index.html")
        .build()
        .expect("a valid setup");
    for payload in TRAVERSALS {
        let reply = get(&service, payload, &[("accept", "text/html")]).await;
        match reply.status {
            StatusCode::BAD_REQUEST => {}
            StatusCode::OK => assert_eq!(reply.body, on_disk("index.html"), "{payload}"),
            other => panic!("{payload}: {other}"),
        }
    }
}

#[tokio::test]
async fn over_long_paths_and_invalid_utf8_get_400() {
    let service = ServeCatalog::builder(&STATIC)
        .max_path_len(64)
        .build()
        .expect("a valid setup");
    assert_eq!(
        get(&service, &format!("/{}", "a".repeat(64)), &[])
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        get(&service, &format!("/{}", "a".repeat(62)), &[])
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&service, "/%ff%fe%fd", &[]).await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn percent_encoded_names_are_decoded_once() {
    let service = ServeCatalog::new(&STATIC);
    assert_eq!(
        get(&service, "/with%20space.txt", &[]).await.body,
        on_disk("with space.txt")
    );
    assert_eq!(
        get(&service, "/unicod%C3%A9-%E6%97%A5%E6%9C%AC.txt", &[])
            .await
            .body,
        on_disk("unicodé-日本.txt")
    );
    assert_eq!(
        get(&service, "/hash%23name.txt", &[]).await.body,
        on_disk("hash#name.txt")
    );
    assert_eq!(
        get(&service, "/question%3F.txt", &[]).await.body,
        on_disk("question?.txt")
    );
    assert_eq!(
        get(&service, "/percent%2520name.txt", &[]).await.body,
        on_disk("percent%20name.txt")
    );
    assert_eq!(
        get(&service, "/percent%20name.txt", &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn folders_serve_their_index_and_redirect_without_a_slash() {
    let service = ServeCatalog::new(&STATIC);
    assert_eq!(get(&service, "/", &[]).await.body, on_disk("index.html"));
    assert_eq!(
        get(&service, "/docs/", &[]).await.body,
        on_disk("docs/index.html")
    );
    let redirect = get(&service, "/docs", &[]).await;
    assert_eq!(redirect.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(redirect.header("location"), "/docs/");
    assert_eq!(
        get(&service, "/docs?tab=1", &[]).await.header("location"),
        "/docs/?tab=1"
    );
    // `http` accepts raw UTF-8 and some delimiters in a query (found by the `request_path` fuzz
    // target); the Location sent back escapes them and keeps the client's own escapes.
    assert_eq!(
        get(&service, "/docs?)^^unicod\u{e9}-\u{65e5}\u{672c}.txt", &[])
            .await
            .header("location"),
        "/docs/?)%5E%5Eunicod%C3%A9-%E6%97%A5%E6%9C%AC.txt"
    );
    assert_eq!(
        get(&service, "/docs?a=%20b&c={d}", &[])
            .await
            .header("location"),
        "/docs/?a=%20b&c=%7Bd%7D"
    );
    assert_eq!(
        get(&service, "/deep/", &[]).await.status,
        StatusCode::NOT_FOUND,
        "no index there"
    );
    assert_eq!(
        get(&service, "/images", &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn browser_navigations_fall_back_to_the_app() {
    let service = ServeCatalog::builder(&GZIP)
        .spa_fallback("index.html")
        .no_fallback_prefix("/geo/")
        .build()
        .expect("a valid setup");
    let navigation = [("accept", "text/html,application/xhtml+xml,*/*;q=0.8")];
    let deep_link = get(&service, "/lookup/8.8.8.8", &navigation).await;
    assert_eq!(deep_link.status, StatusCode::OK);
    assert_eq!(deep_link.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(deep_link.body, on_disk("index.html"));

    let script = get(&service, "/missing-app.js", &[("accept", "*/*")]).await;
    assert_eq!(
        script.status,
        StatusCode::NOT_FOUND,
        "scripts do not get HTML"
    );
    assert_eq!(
        get(&service, "/missing-app.js", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&service, "/geo/nowhere", &navigation).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&service, "/geo", &navigation).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&service, "/geography", &navigation).await.status,
        StatusCode::OK,
        "prefix is /geo/ only"
    );

    let gzip = get(
        &service,
        "/deep/link",
        &[("accept", "text/html"), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(
        gzip.header("content-encoding"),
        "gzip",
        "the fallback is served like any file"
    );
}

#[tokio::test]
async fn a_missing_fallback_file_is_refused_when_the_service_is_built() {
    let refused = ServeCatalog::builder(&STATIC)
        .spa_fallback("no-such.html")
        .build()
        .expect_err("no such file");
    assert_eq!(
        refused.to_string(),
        "spa_fallback: the catalog has no file \"no-such.html\""
    );
}

#[tokio::test]
async fn absurd_headers_never_break_a_response() {
    let service = ServeCatalog::builder(&GZIP)
        .spa_fallback("index.html")
        .build()
        .expect("a valid setup");
    let huge = "x".repeat(64 * 1024);
    let commas = ",".repeat(64 * 1024);
    for (name, value) in [
        ("accept-encoding", huge.as_str()),
        ("accept-encoding", commas.as_str()),
        ("if-none-match", huge.as_str()),
        ("if-none-match", commas.as_str()),
        ("if-modified-since", huge.as_str()),
        ("range", huge.as_str()),
        ("if-range", huge.as_str()),
        ("accept", huge.as_str()),
    ] {
        let reply = get(&service, "/index.html", &[(name, value)]).await;
        assert_eq!(reply.status, StatusCode::OK, "{name}");
    }
}

#[tokio::test]
async fn a_mounted_catalog_answers_only_below_its_prefix() {
    let service = ServeCatalog::builder(&GZIP)
        .mounted_at("/static/")
        .spa_fallback("index.html")
        .no_fallback_prefix("/static/api/")
        .build()
        .expect("a valid setup");
    // Below the mount: the catalog's own keys, folders, escapes and ranges as at the root.
    assert_eq!(
        get(&service, "/static/hello.txt", &[]).await.body,
        on_disk("hello.txt")
    );
    assert_eq!(
        get(&service, "/static/docs/", &[]).await.body,
        on_disk("docs/index.html")
    );
    assert_eq!(
        get(&service, "/static/percent%2520name.txt", &[])
            .await
            .body,
        on_disk("percent%20name.txt")
    );
    let part = get(&service, "/static/hello.txt", &[("range", "bytes=0-4")]).await;
    assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&part.body[..], b"Hello");
    // Redirects keep the whole path: the folder's and the mount point's own.
    assert_eq!(
        get(&service, "/static/docs?tab=1", &[])
            .await
            .header("location"),
        "/static/docs/?tab=1"
    );
    let mount_point = get(&service, "/static", &[]).await;
    assert_eq!(mount_point.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(mount_point.header("location"), "/static/");
    assert_eq!(
        get(&service, "/static/", &[]).await.body,
        on_disk("index.html")
    );
    // Outside the mount nothing is served, not even the fallback; a look-alike prefix is outside.
    let navigation = [("accept", "text/html")];
    for outside in [
        "/hello.txt",
        "/",
        "/staticx/hello.txt",
        "/stat",
        "/other/static/hello.txt",
    ] {
        let reply = get(&service, outside, &navigation).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{outside}");
        assert!(reply.body.is_empty(), "{outside}: not the fallback");
    }
    // The fallback and its exceptions see whole paths.
    let deep = get(&service, "/static/lookup/8.8.8.8", &navigation).await;
    assert_eq!(deep.body, on_disk("index.html"));
    assert_eq!(
        get(&service, "/static/api/missing", &navigation)
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    // Traversal below the mount is refused like anywhere else.
    for payload in TRAVERSALS {
        let reply = get(&service, &format!("/static{payload}"), &navigation).await;
        assert!(
            matches!(
                reply.status,
                StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND
            ) || reply.body == on_disk("index.html"),
            "/static{payload}: {}",
            reply.status
        );
    }
}

#[tokio::test]
async fn an_empty_or_slashless_mount_point_means_the_same_path() {
    // `""` and `"/"` mount at the root, as without the call.
    for root in ["", "/"] {
        let service = ServeCatalog::builder(&STATIC)
            .mounted_at(root)
            .build()
            .expect("a valid setup");
        assert_eq!(
            get(&service, "/hello.txt", &[]).await.body,
            on_disk("hello.txt")
        );
    }
    // A mount given without its leading slash means the same path.
    let service = ServeCatalog::builder(&STATIC)
        .mounted_at("assets")
        .build()
        .expect("a valid setup");
    assert_eq!(
        get(&service, "/assets/hello.txt", &[]).await.body,
        on_disk("hello.txt")
    );
}
