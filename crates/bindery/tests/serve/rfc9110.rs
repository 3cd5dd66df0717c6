//! Conformance with RFC 9110 where the service decides: preconditions (§13) in the order of
//! §13.2.2, and multiple byte ranges as `multipart/byteranges` (§14.6), each test naming the
//! section it checks.

use bindery::serve::ServeCatalog;
use http::StatusCode;

use crate::support::{GZIP, STATIC, TIMED, get, on_disk};

/// §13.1.1: `If-Match` with a tag that is not the current one fails with 412; with the
/// current tag, or `*` (the representation exists), the request proceeds.
#[tokio::test]
async fn if_match_that_fails_gives_412_and_the_current_tag() {
    let service = ServeCatalog::new(&STATIC);
    let etag = STATIC.file("hello.txt").expect("file").etag();
    let failed = get(&service, "/hello.txt", &[("if-match", "\"x\"")]).await;
    assert_eq!(failed.status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(
        failed.header("etag"),
        etag,
        "the validator the client should have sent"
    );
    assert_eq!(failed.header("cache-control"), "no-store");
    for value in [etag, "*", &format!("\"x\", {etag}")] {
        let passed = get(&service, "/hello.txt", &[("if-match", value)]).await;
        assert_eq!(passed.status, StatusCode::OK, "{value}");
    }
}

/// §13.1.1 and §8.8.3.2: `If-Match` uses the strong comparison, so a weak tag never matches.
#[tokio::test]
async fn if_match_never_matches_a_weak_tag() {
    let service = ServeCatalog::new(&STATIC);
    let etag = STATIC.file("hello.txt").expect("file").etag();
    let weak = format!("W/{etag}");
    let reply = get(&service, "/hello.txt", &[("if-match", &weak)]).await;
    assert_eq!(reply.status, StatusCode::PRECONDITION_FAILED);
}

/// §13.1.1: the tag compared is the one of the representation selected for the request: the
/// gzip representation has its own.
#[tokio::test]
async fn if_match_compares_the_selected_representation() {
    let service = ServeCatalog::new(&GZIP);
    let page = GZIP.file("index.html").expect("file");
    let gzip_tag = page.gzip_etag().expect("stored compressed");
    let with_gzip = [("accept-encoding", "gzip"), ("if-match", gzip_tag)];
    assert_eq!(
        get(&service, "/index.html", &with_gzip).await.status,
        StatusCode::OK
    );
    let identity_tag_for_gzip = [("accept-encoding", "gzip"), ("if-match", page.etag())];
    assert_eq!(
        get(&service, "/index.html", &identity_tag_for_gzip)
            .await
            .status,
        StatusCode::PRECONDITION_FAILED
    );
}

/// §13.1.4: `If-Unmodified-Since` before the last modification fails with 412; at or after it
/// the request proceeds; without a `Last-Modified` of its own (a catalog built without times),
/// the condition cannot be evaluated and is left out.
#[tokio::test]
async fn if_unmodified_since_a_date_before_the_last_modification_gives_412() {
    let service = ServeCatalog::new(&TIMED);
    let modified = TIMED
        .file("hello.txt")
        .expect("file")
        .modified()
        .expect("time");
    let at = httpdate::fmt_http_date(modified);
    let before = httpdate::fmt_http_date(modified - std::time::Duration::from_secs(60));
    let reply = get(&service, "/hello.txt", &[("if-unmodified-since", &before)]).await;
    assert_eq!(reply.status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(
        get(&service, "/hello.txt", &[("if-unmodified-since", &at)])
            .await
            .status,
        StatusCode::OK
    );
    let untimed = ServeCatalog::new(&STATIC);
    assert_eq!(
        get(&untimed, "/hello.txt", &[("if-unmodified-since", &before)])
            .await
            .status,
        StatusCode::OK
    );
}

/// §13.2.2: `If-Match` is evaluated first and, when present, `If-Unmodified-Since` is not; a
/// failing step 1 or 2 gives 412 even when `If-None-Match` would give 304 (step 3).
#[tokio::test]
async fn preconditions_are_evaluated_in_the_order_of_13_2_2() {
    let service = ServeCatalog::new(&TIMED);
    let file = TIMED.file("hello.txt").expect("file");
    let etag = file.etag();
    let before = httpdate::fmt_http_date(
        file.modified().expect("time") - std::time::Duration::from_secs(60),
    );
    let cases: [(&[(&str, &str)], StatusCode); 4] = [
        (
            &[("if-match", etag), ("if-unmodified-since", &before)],
            StatusCode::OK,
        ),
        (
            &[("if-match", "\"x\""), ("if-none-match", etag)],
            StatusCode::PRECONDITION_FAILED,
        ),
        (
            &[("if-unmodified-since", &before), ("if-none-match", etag)],
            StatusCode::PRECONDITION_FAILED,
        ),
        (
            &[("if-match", etag), ("if-none-match", etag)],
            StatusCode::NOT_MODIFIED,
        ),
    ];
    for (headers, expected) in cases {
        assert_eq!(
            get(&service, "/hello.txt", headers).await.status,
            expected,
            "{headers:?}"
        );
    }
}

/// §13.2.1: preconditions are ignored when the response without them would not be 2xx or
/// 412: a missing file is a 404 whatever `If-Match` says.
#[tokio::test]
async fn preconditions_are_ignored_for_a_missing_file() {
    let service = ServeCatalog::new(&STATIC);
    let reply = get(&service, "/no/such/file", &[("if-match", "\"x\"")]).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
}

/// The parts of a `multipart/byteranges` body: each part's `Content-Range` and bytes.
fn parts(content_type: &str, body: &[u8]) -> Vec<(String, Vec<u8>)> {
    let boundary = content_type
        .strip_prefix("multipart/byteranges; boundary=")
        .expect("multipart/byteranges with a boundary");
    let delimiter = format!("\r\n--{boundary}");
    let text = body.to_vec();
    let mut found = Vec::new();
    let mut rest = &text[..];
    loop {
        let start = find(rest, delimiter.as_bytes()).expect("a delimiter");
        rest = &rest[start + delimiter.len()..];
        if rest.starts_with(b"--\r\n") {
            assert_eq!(rest.len(), 4, "nothing after the close delimiter");
            return found;
        }
        let head_end = find(rest, b"\r\n\r\n").expect("a part head");
        let head = String::from_utf8_lossy(&rest[..head_end]).into_owned();
        let content_range = head
            .lines()
            .find_map(|line| line.strip_prefix("Content-Range: "))
            .expect("a Content-Range")
            .to_owned();
        rest = &rest[head_end + 4..];
        let end = find(rest, delimiter.as_bytes()).expect("the next delimiter");
        found.push((content_range, rest[..end].to_vec()));
        rest = &rest[end..];
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// §14.6: two ranges are answered with 206 and `multipart/byteranges`, each part carrying its
/// `Content-Type` and `Content-Range`, in ascending order, and `Content-Length` is the body's.
#[tokio::test]
async fn two_ranges_give_multipart_byteranges() {
    let service = ServeCatalog::new(&GZIP);
    let source = on_disk("index.html");
    let len = source.len();
    let reply = get(
        &service,
        "/index.html",
        &[("range", "bytes=20-29,0-4"), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT);
    assert!(
        reply.headers.get("content-encoding").is_none(),
        "ranges are of identity"
    );
    assert!(
        reply.headers.get("content-range").is_none(),
        "only parts carry one"
    );
    assert_eq!(reply.header("content-length"), reply.body.len().to_string());
    let found = parts(reply.header("content-type"), &reply.body);
    assert_eq!(
        found,
        [
            (format!("bytes 0-4/{len}"), source[0..=4].to_vec()),
            (format!("bytes 20-29/{len}"), source[20..=29].to_vec()),
        ]
    );
    assert!(
        String::from_utf8_lossy(&reply.body).contains("Content-Type: text/html; charset=utf-8")
    );
}

/// §14.6: overlapping and adjacent ranges may be coalesced; coalesced into one, the answer is a
/// single part with `Content-Range` (§14.4). No byte is sent twice.
#[tokio::test]
async fn overlapping_ranges_are_coalesced() {
    let service = ServeCatalog::new(&STATIC);
    let reply = get(&service, "/hello.txt", &[("range", "bytes=0-4,2-7,8-9")]).await;
    assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(reply.header("content-range"), "bytes 0-9/16");
    assert_eq!(&reply.body[..], b"Hello, bin");
    let repeated = vec!["0-15"; 30].join(",");
    let reply = get(
        &service,
        "/hello.txt",
        &[("range", &format!("bytes={repeated}"))],
    )
    .await;
    assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(reply.body.len(), 16, "thirty copies of the file are one");
}

/// §14.2 lets a server ignore a range request: more than 16 parts after coalescing (many small
/// ranges cost far more than their bytes, CVE-2011-3192), or more than 32 specs, get the whole
/// representation with 200, which is always a correct answer.
#[tokio::test]
async fn too_many_parts_or_specs_give_the_whole_file() {
    let service = ServeCatalog::new(&GZIP);
    let source = on_disk("index.html");
    assert!(source.len() > 200, "room for spread ranges");
    let spread = |count: usize| {
        let specs: Vec<String> = (0..count)
            .map(|index| format!("{}-{}", index * 10, index * 10 + 1))
            .collect();
        format!("bytes={}", specs.join(","))
    };
    let sixteen = get(&service, "/index.html", &[("range", &spread(16))]).await;
    assert_eq!(sixteen.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(
        parts(sixteen.header("content-type"), &sixteen.body).len(),
        16
    );
    let seventeen = get(&service, "/index.html", &[("range", &spread(17))]).await;
    assert_eq!(seventeen.status, StatusCode::OK);
    assert_eq!(seventeen.body, source);
}

/// §14.1.1 and §15.5.17: a set of ranges none of which is satisfiable gives 416 with
/// `Content-Range: bytes */len`; a set with one satisfiable range serves that one.
#[tokio::test]
async fn unsatisfiable_members_are_dropped_and_none_left_gives_416() {
    let service = ServeCatalog::new(&STATIC);
    let none = get(&service, "/hello.txt", &[("range", "bytes=100-,200-300")]).await;
    assert_eq!(none.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(none.header("content-range"), "bytes */16");
    let one = get(&service, "/hello.txt", &[("range", "bytes=100-,0-4")]).await;
    assert_eq!(one.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(one.header("content-range"), "bytes 0-4/16");
}

/// §13.1.5: `If-Range` that no longer holds makes several ranges the whole file too.
#[tokio::test]
async fn if_range_that_fails_gives_the_whole_file_for_several_ranges() {
    let service = ServeCatalog::new(&STATIC);
    let reply = get(
        &service,
        "/hello.txt",
        &[("range", "bytes=0-1,5-9"), ("if-range", "\"old\"")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(&reply.body[..], b"Hello, bindery!\n");
}
