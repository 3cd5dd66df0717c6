//! Any `Range` (and `If-Range`): 206 bodies are the slice `Content-Range` names, within the file;
//! 416 names the length; anything else is the full identity body.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str, u8)| {
    let (range, if_range, which) = input;
    let (file, uri) = common::pick(which);
    let mut request = http::Request::get(uri);
    request = request.header("range", range);
    if !if_range.is_empty() {
        request = request.header("if-range", if_range);
    }
    let Ok(request) = request.body(()) else {
        return;
    };
    let (response, bytes) = common::body(common::service().respond(&request));
    let identity = file.contents().expect("decodes");
    match response.status().as_u16() {
        200 => assert_eq!(bytes, &identity[..]),
        206 => {
            let content_range = response.headers()["content-range"].to_str().expect("ascii");
            let (span, total) = content_range
                .trim_start_matches("bytes ")
                .split_once('/')
                .expect("span/total");
            let (start, end) = span.split_once('-').expect("start-end");
            let (start, end): (usize, usize) =
                (start.parse().expect("start"), end.parse().expect("end"));
            assert_eq!(total.parse::<usize>().expect("total"), identity.len());
            assert!(start <= end && end < identity.len(), "{content_range}");
            assert_eq!(bytes, &identity[start..=end]);
        }
        416 => {
            let content_range = response.headers()["content-range"].to_str().expect("ascii");
            assert_eq!(content_range, format!("bytes */{}", identity.len()));
        }
        other => panic!("unexpected status {other} for Range {range:?}"),
    }
});
