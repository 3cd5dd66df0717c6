//! Any `Range` (and `If-Range`): 206 bodies are the slice `Content-Range` names, within the file,
//! or `multipart/byteranges` of at most 16 sorted, disjoint parts that each are such a slice and
//! together hold no more bytes than the file; 416 names the length; anything else is the full
//! identity body.
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
            let content_type = response.headers()["content-type"].to_str().expect("ascii");
            assert_eq!(
                response.headers()["content-length"].to_str().expect("ascii"),
                bytes.len().to_string()
            );
            match content_type.strip_prefix("multipart/byteranges; boundary=") {
                None => {
                    let content_range =
                        response.headers()["content-range"].to_str().expect("ascii");
                    let (start, end) = span(content_range, identity.len());
                    assert_eq!(bytes, &identity[start..=end]);
                }
                Some(boundary) => {
                    let parts = parts(&bytes, boundary);
                    assert!((2..=16).contains(&parts.len()), "{} parts", parts.len());
                    let mut previous_end = None;
                    let mut total = 0;
                    for (content_range, part) in &parts {
                        let (start, end) = span(content_range, identity.len());
                        assert_eq!(&part[..], &identity[start..=end]);
                        assert!(previous_end.is_none_or(|previous| start > previous + 1), "sorted, apart");
                        previous_end = Some(end);
                        total += part.len();
                    }
                    assert!(total <= identity.len(), "no amplification");
                }
            }
        }
        416 => {
            let content_range = response.headers()["content-range"].to_str().expect("ascii");
            assert_eq!(content_range, format!("bytes */{}", identity.len()));
        }
        other => panic!("unexpected status {other} for Range {range:?}"),
    }
});

/// `bytes start-end/total` as (start, end), checked against the file's length.
fn span(content_range: &str, len: usize) -> (usize, usize) {
    let (span, total) = content_range
        .trim_start_matches("bytes ")
        .split_once('/')
        .expect("span/total");
    let (start, end) = span.split_once('-').expect("start-end");
    let (start, end): (usize, usize) = (start.parse().expect("start"), end.parse().expect("end"));
    assert_eq!(total.parse::<usize>().expect("total"), len);
    assert!(start <= end && end < len, "{content_range}");
    (start, end)
}

/// The parts of a `multipart/byteranges` body: each one's `Content-Range` and bytes.
fn parts<'a>(body: &'a [u8], boundary: &str) -> Vec<(String, &'a [u8])> {
    let delimiter = format!("\r\n--{boundary}");
    let find = |haystack: &[u8], needle: &[u8]| {
        haystack.windows(needle.len()).position(|window| window == needle)
    };
    let mut found = Vec::new();
    let mut rest = body;
    loop {
        let start = find(rest, delimiter.as_bytes()).expect("a delimiter");
        rest = &rest[start + delimiter.len()..];
        if rest == b"--\r\n" {
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
        found.push((content_range, &rest[..end]));
        rest = &rest[end..];
    }
}
