//! Methods: GET and HEAD served, everything else 405 with `Allow`.

use bindery::serve::ServeCatalog;
use http::{Method, Request, StatusCode};

use crate::support::{GZIP, STATIC, get, send};

#[tokio::test]
async fn head_equals_get_without_a_body() {
    for catalog in [&STATIC, &GZIP] {
        let service = ServeCatalog::new(catalog);
        for (path, encoding) in [
            ("/index.html", "gzip"),
            ("/index.html", "identity"),
            ("/images/pixel.png", "gzip"),
        ] {
            let got = get(&service, path, &[("accept-encoding", encoding)]).await;
            let request = Request::head(path)
                .header("accept-encoding", encoding)
                .body(())
                .expect("request");
            let head = send(&service, request).await;
            assert_eq!(head.status, got.status);
            assert_eq!(head.headers, got.headers, "{path} {encoding}");
            assert!(head.body.is_empty());
            assert_eq!(head.header("content-length"), got.body.len().to_string());
        }
    }
}

#[tokio::test]
async fn other_methods_get_405_with_allow() {
    let service = ServeCatalog::new(&STATIC);
    for method in [
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
        Method::TRACE,
    ] {
        let request = Request::builder()
            .method(method.clone())
            .uri("/hello.txt")
            .body(())
            .expect("request");
        let reply = send(&service, request).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.header("allow"), "GET, HEAD");
        assert_eq!(
            reply.header("content-length"),
            "0",
            "no body unless asked for"
        );
        assert!(reply.body.is_empty());
    }
}

#[tokio::test]
async fn error_answers_carry_the_body_the_hook_writes() {
    let service = ServeCatalog::builder(&STATIC)
        .error_body(|status, reason| {
            let json = format!(r#"{{"error":"{reason}","status":{}}}"#, status.as_u16());
            (
                http::HeaderValue::from_static("application/json"),
                json.into(),
            )
        })
        .build()
        .expect("nothing named");
    for (method, path, expected) in [
        (
            Method::POST,
            "/hello.txt",
            r#"{"error":"method not allowed","status":405}"#,
        ),
        (
            Method::GET,
            "/nope.txt",
            r#"{"error":"not found","status":404}"#,
        ),
        (
            Method::GET,
            "/%2e%2e/x",
            r#"{"error":"`.` or `..` segment in path","status":400}"#,
        ),
    ] {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .body(())
            .expect("request");
        let reply = send(&service, request).await;
        assert_eq!(reply.header("content-type"), "application/json", "{path}");
        assert_eq!(reply.header("content-length"), expected.len().to_string());
        assert_eq!(&reply.body[..], expected.as_bytes(), "{path}");
        assert_eq!(reply.header("cache-control"), "no-store");
    }
}

#[tokio::test]
async fn head_errors_have_no_body() {
    let service = ServeCatalog::new(&STATIC);
    for path in ["/%", "/missing.txt", "/%2e%2e/x"] {
        let request = Request::head(path).body(()).expect("request");
        let reply = send(&service, request).await;
        assert!(reply.status.is_client_error(), "{path}");
        assert!(reply.body.is_empty(), "{path}: {:?}", reply.body);
    }
}
