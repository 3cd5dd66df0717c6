//! Property tests: any generated request gets an allowed status, never a panic, and every 200 or
//! 206 body is exactly the asset, its stored gzip bytes, or the slice `Content-Range` names.

use bindery::serve::ServeCatalog;
use http::{Method, Request, StatusCode};
use proptest::prelude::*;

use crate::support::{GZIP, STATIC};

fn catalog_path() -> impl Strategy<Value = String> {
    let paths: Vec<String> = GZIP
        .iter()
        .map(|file| bindery_test_support::uri_path(file.path()))
        .collect();
    prop::sample::select(paths)
}

fn request_path() -> impl Strategy<Value = String> {
    prop_oneof![
        catalog_path(),
        "/[a-z0-9./%_-]{0,40}".prop_map(String::from),
        prop::collection::vec(
            prop::sample::select(vec![
                "..", ".", "%2e", "%2f", "%5c", "%00", "a", "docs", "//", "%252e", "%ff"
            ]),
            0..6
        )
        .prop_map(|parts| format!("/{}", parts.join("/"))),
    ]
}

fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,40}".prop_map(String::from),
        (0u64..30_000, 0u64..30_000).prop_map(|(start, end)| format!("bytes={start}-{end}")),
        (0u64..30_000).prop_map(|suffix| format!("bytes=-{suffix}")),
        Just("gzip".to_owned()),
        Just("gzip;q=0".to_owned()),
        Just("*".to_owned()),
        Just("text/html".to_owned()),
    ]
}

fn method() -> impl Strategy<Value = Method> {
    prop::sample::select(vec![
        Method::GET,
        Method::GET,
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::DELETE,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_request_gets_an_allowed_status_and_a_faithful_body(
        method in method(),
        path in request_path(),
        headers in prop::collection::vec(
            (prop::sample::select(vec!["range", "if-none-match", "if-range", "accept-encoding", "accept", "if-modified-since"]), header_value()),
            0..4,
        ),
        with_fallback in any::<bool>(),
        gzip_catalog in any::<bool>(),
    ) {
        let catalog = if gzip_catalog { &GZIP } else { &STATIC };
        let mut builder = ServeCatalog::builder(catalog);
        if with_fallback {
            builder = builder.spa_fallback("index.html");
        }
        let service = builder.build().expect("index.html is there");
        let mut request = Request::builder().method(method.clone()).uri(&path);
        for (name, value) in &headers {
            request = request.header(*name, value.as_str());
        }
        let Ok(request) = request.body(()) else {
            return Ok(()); // not a request a client could send
        };
        let response = service.respond(&request);
        let status = response.status();
        prop_assert!(
            [200, 206, 304, 307, 400, 404, 405, 416].contains(&status.as_u16()),
            "{} {} -> {}", method, path, status
        );
        let (parts, body) = response.into_parts();
        let bytes = body.into_bytes();
        let headers = &parts.headers;
        if method == Method::HEAD || status == StatusCode::NOT_MODIFIED || status == StatusCode::TEMPORARY_REDIRECT {
            prop_assert!(bytes.is_empty());
        }
        if method == Method::GET && (status == StatusCode::OK || status == StatusCode::PARTIAL_CONTENT) {
            let etag = headers["etag"].to_str().expect("ascii");
            let file = catalog
                .iter()
                .find(|file| file.etag() == etag || file.gzip_etag() == Some(etag))
                .expect("the ETag names an asset");
            let identity = file.contents().expect("decodes");
            if status == StatusCode::OK {
                if headers.get("content-encoding").is_some() {
                    prop_assert_eq!(Some(&bytes[..]), file.gzip());
                } else {
                    prop_assert_eq!(&bytes[..], &identity[..]);
                }
            } else {
                let range = headers["content-range"].to_str().expect("ascii");
                let (span, total) = range.trim_start_matches("bytes ").split_once('/').expect("span/total");
                let (start, end) = span.split_once('-').expect("start-end");
                let (start, end): (usize, usize) = (start.parse().expect("start"), end.parse().expect("end"));
                prop_assert_eq!(total.parse::<usize>().expect("total"), identity.len());
                prop_assert!(start <= end && end < identity.len());
                prop_assert_eq!(&bytes[..], &identity[start..=end]);
            }
        }
    }
}
