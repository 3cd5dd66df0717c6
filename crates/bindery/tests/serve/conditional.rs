//! Conditional requests: 304 without a body; If-None-Match wins over If-Modified-Since.

use bindery::serve::ServeCatalog;
use http::StatusCode;

use crate::support::{GZIP, STATIC, TIMED, get};

#[tokio::test]
async fn if_none_match_with_the_etag_gives_304_without_a_body() {
    let service = ServeCatalog::new(&STATIC);
    let etag = STATIC.file("hello.txt").expect("file").etag();
    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {etag}");
    for value in [etag, weak.as_str(), listed.as_str(), "*"] {
        let reply = get(&service, "/hello.txt", &[("if-none-match", value)]).await;
        assert_eq!(reply.status, StatusCode::NOT_MODIFIED, "{value}");
        assert!(reply.body.is_empty());
        assert_eq!(reply.header("etag"), etag);
        assert_eq!(reply.header("cache-control"), "no-cache");
        assert!(reply.headers.get("content-length").is_none());
    }
}

#[tokio::test]
async fn a_different_or_malformed_etag_gives_the_full_body() {
    let service = ServeCatalog::new(&STATIC);
    for value in ["\"different\"", "garbage", "\"unterminated", "W/", ""] {
        let reply = get(&service, "/hello.txt", &[("if-none-match", value)]).await;
        assert_eq!(reply.status, StatusCode::OK, "{value:?}");
        assert_eq!(&reply.body[..], b"Hello, bindery!\n");
    }
}

#[tokio::test]
async fn each_representation_is_validated_by_its_own_etag() {
    let service = ServeCatalog::new(&GZIP);
    let file = GZIP.file("index.html").expect("file");
    let gzip_etag = file.gzip_etag().expect("compressed");
    let gzip = [("accept-encoding", "gzip"), ("if-none-match", gzip_etag)];
    assert_eq!(
        get(&service, "/index.html", &gzip).await.status,
        StatusCode::NOT_MODIFIED
    );
    let identity_with_gzip_tag = [("if-none-match", gzip_etag)];
    assert_eq!(
        get(&service, "/index.html", &identity_with_gzip_tag)
            .await
            .status,
        StatusCode::OK
    );
    let identity = [("if-none-match", file.etag())];
    assert_eq!(
        get(&service, "/index.html", &identity).await.status,
        StatusCode::NOT_MODIFIED
    );
}

#[tokio::test]
async fn if_modified_since_gives_304_when_not_modified() {
    let service = ServeCatalog::new(&TIMED);
    let modified = TIMED
        .file("hello.txt")
        .expect("file")
        .modified()
        .expect("time");
    let same = httpdate::fmt_http_date(modified);
    let later = httpdate::fmt_http_date(modified + std::time::Duration::from_secs(3600));
    let earlier = httpdate::fmt_http_date(modified - std::time::Duration::from_secs(3600));
    assert_eq!(
        get(&service, "/hello.txt", &[("if-modified-since", &same)])
            .await
            .status,
        StatusCode::NOT_MODIFIED
    );
    assert_eq!(
        get(&service, "/hello.txt", &[("if-modified-since", &later)])
            .await
            .status,
        StatusCode::NOT_MODIFIED
    );
    assert_eq!(
        get(&service, "/hello.txt", &[("if-modified-since", &earlier)])
            .await
            .status,
        StatusCode::OK
    );
    for garbage in [
        "yesterday",
        "",
        "Tue, 99 Nov 2023 99:99:99 GMT",
        &"x".repeat(10_000),
    ] {
        assert_eq!(
            get(&service, "/hello.txt", &[("if-modified-since", garbage)])
                .await
                .status,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn if_modified_since_is_ignored_without_times() {
    let service = ServeCatalog::new(&STATIC);
    let future = "Fri, 01 Jan 2100 00:00:00 GMT";
    assert_eq!(
        get(&service, "/hello.txt", &[("if-modified-since", future)])
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn if_none_match_wins_over_if_modified_since() {
    let service = ServeCatalog::new(&TIMED);
    let future = "Fri, 01 Jan 2100 00:00:00 GMT";
    let reply = get(
        &service,
        "/hello.txt",
        &[
            ("if-none-match", "\"stale\""),
            ("if-modified-since", future),
        ],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
}
