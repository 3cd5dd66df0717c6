//! Any `If-None-Match`: 304 (with no body) only for `*` or a list holding this representation's
//! tag; otherwise the full body.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, bool)| {
    let (if_none_match, append_real_tag) = input;
    let file = common::FIXTURES.file("hello.txt").expect("fixture");
    let value = if append_real_tag {
        format!("{if_none_match}, {}", file.etag())
    } else {
        if_none_match.to_owned()
    };
    let Ok(request) = http::Request::get("/hello.txt")
        .header("if-none-match", value.as_str())
        .body(())
    else {
        return;
    };
    let (response, bytes) = common::body(common::service().respond(&request));
    let opaque = file.etag().trim_matches('"');
    match response.status().as_u16() {
        304 => {
            assert!(bytes.is_empty());
            assert!(
                value.trim() == "*" || value.contains(opaque),
                "304 for {value:?}"
            );
        }
        200 => assert_eq!(bytes, b"Hello, bindery!\n"),
        other => panic!("unexpected status {other}"),
    }
});
