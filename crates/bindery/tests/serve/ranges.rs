//! Range requests on the identity representation.

use bindery::serve::ServeCatalog;
use http::StatusCode;

use crate::support::{COPY, GZIP, STATIC, TIMED, get, on_disk};

async fn range(service: &ServeCatalog, value: &str) -> crate::support::Reply {
    get(service, "/hello.txt", &[("range", value)]).await
}

#[tokio::test]
async fn single_byte_ranges_give_206_with_content_range() {
    let service = ServeCatalog::new(&STATIC);
    let text = b"Hello, bindery!\n";
    for (value, start, end) in [
        ("bytes=0-0", 0, 0),
        ("bytes=-1", 15, 15),
        ("bytes=5-", 5, 15),
        ("bytes=7-13", 7, 13),
        ("bytes=3-999", 3, 15),
    ] {
        let reply = range(&service, value).await;
        assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT, "{value}");
        assert_eq!(&reply.body[..], &text[start..=end], "{value}");
        assert_eq!(
            reply.header("content-range"),
            format!("bytes {start}-{end}/16")
        );
        assert_eq!(
            reply.header("content-length"),
            (end - start + 1).to_string()
        );
    }
}

#[tokio::test]
async fn unsatisfiable_ranges_give_416() {
    let service = ServeCatalog::new(&STATIC);
    for value in ["bytes=16-", "bytes=100-200", "bytes=-0"] {
        let reply = range(&service, value).await;
        assert_eq!(reply.status, StatusCode::RANGE_NOT_SATISFIABLE, "{value}");
        assert_eq!(reply.header("content-range"), "bytes */16");
    }
    let empty = get(&service, "/empty.txt", &[("range", "bytes=0-0")]).await;
    assert_eq!(empty.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(empty.header("content-range"), "bytes */0");
}

#[tokio::test]
async fn reversed_and_garbage_ranges_give_the_full_200() {
    let service = ServeCatalog::new(&STATIC);
    for value in [
        "bytes=5-2",
        "garbage",
        "bytes=abc",
        "bytes=0-1,,3-4",
        "items=0-1",
        "bytes=",
        &"bytes=1-2".repeat(2000),
    ] {
        let reply = range(&service, value).await;
        assert_eq!(reply.status, StatusCode::OK, "{value}");
        assert_eq!(&reply.body[..], b"Hello, bindery!\n");
    }
}

#[tokio::test]
async fn ranges_of_gzip_stored_files_are_cut_from_the_identity_bytes() {
    let service = ServeCatalog::new(&GZIP);
    let source = on_disk("index.html");
    let reply = get(
        &service,
        "/index.html",
        &[("range", "bytes=0-14"), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT);
    assert!(reply.headers.get("content-encoding").is_none());
    assert_eq!(reply.body, source[..15]);
    assert_eq!(
        reply.header("content-range"),
        format!("bytes 0-14/{}", source.len())
    );
}

#[tokio::test]
async fn if_range_with_a_matching_strong_etag_allows_the_range_and_a_date_never_does() {
    let service = ServeCatalog::new(&TIMED);
    let file = TIMED.file("hello.txt").expect("file");
    let reply = get(
        &service,
        "/hello.txt",
        &[("range", "bytes=0-4"), ("if-range", file.etag())],
    )
    .await;
    assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT);
    // The file's own Last-Modified: a build's date can repeat across versions (source_date),
    // so a date is no proof that the bytes are the ones the client holds part of.
    let date = httpdate::fmt_http_date(file.modified().expect("time"));
    let weak = format!("W/{}", file.etag());
    for validator in [
        date.as_str(),
        "\"stale\"",
        weak.as_str(),
        "Thu, 01 Jan 1970 00:00:00 GMT",
        "junk",
    ] {
        let reply = get(
            &service,
            "/hello.txt",
            &[("range", "bytes=0-4"), ("if-range", validator)],
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{validator}");
        assert_eq!(&reply.body[..], b"Hello, bindery!\n");
    }
}

#[tokio::test]
async fn head_ignores_range() {
    let service = ServeCatalog::new(&STATIC);
    let request = http::Request::head("/hello.txt")
        .header("range", "bytes=0-0")
        .body(())
        .expect("request");
    let reply = crate::support::send(&service, request).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-length"), "16");
}

#[test]
fn the_parts_of_a_multipart_answer_are_slices_of_the_embedded_bytes() {
    let service = ServeCatalog::new(&STATIC);
    let request = http::Request::get("/random.bin")
        .header("range", "bytes=0-99,1000-1099")
        .body(())
        .expect("request");
    let response = service.respond(&request);
    assert_eq!(response.status(), StatusCode::PARTIAL_CONTENT);
    let stored = STATIC.file("random.bin").expect("file").raw().expect("raw");
    let chunks: Vec<bytes::Bytes> = response.into_body().into_chunks().collect();
    let parts: Vec<&bytes::Bytes> = chunks.iter().filter(|chunk| chunk.len() == 100).collect();
    assert_eq!(parts.len(), 2, "{chunks:?}");
    for part in parts {
        assert!(
            stored.as_ptr_range().contains(&part.as_ptr()),
            "a part is a slice of the binary, not a copy"
        );
    }
}

#[tokio::test]
async fn a_body_beyond_the_heap_budget_gets_503_with_retry_after() {
    let service = ServeCatalog::builder(&COPY)
        .decompression(bindery::serve::Decompression {
            heap_budget: 8,
            ..bindery::serve::Decompression::default()
        })
        .build()
        .expect("nothing named");
    // `copy` mode copies the 16 bytes of hello.txt: more than the budget.
    let refused = get(&service, "/hello.txt", &[]).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.header("retry-after"), "1");
    assert_eq!(refused.header("cache-control"), "no-store");
    // A range that fits is served; the budget is given back when a body is dropped.
    for _ in 0..3 {
        let part = get(&service, "/hello.txt", &[("range", "bytes=0-4")]).await;
        assert_eq!(
            (part.status, &part.body[..]),
            (StatusCode::PARTIAL_CONTENT, &b"Hello"[..])
        );
    }
    let stats = service.stats();
    assert_eq!((stats.heap_bytes, stats.heap_refused), (0, 1), "{stats:?}");
}
