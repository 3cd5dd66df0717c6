//! Any `Accept-Encoding`: the body is either the stored gzip bytes (with `Content-Encoding: gzip`
//! and the gzip ETag) or the identity bytes (with neither), never anything else.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, u8)| {
    let (accept_encoding, which) = input;
    let (file, uri) = common::pick(which);
    let Ok(request) = http::Request::get(uri)
        .header("accept-encoding", accept_encoding)
        .body(())
    else {
        return;
    };
    let (response, bytes) = common::body(common::service().respond(&request));
    assert_eq!(response.status().as_u16(), 200);
    let etag = response.headers()["etag"].to_str().expect("ascii");
    if response.headers().contains_key("content-encoding") {
        assert_eq!(Some(&bytes[..]), file.gzip());
        assert_eq!(Some(etag), file.gzip_etag());
    } else {
        assert_eq!(bytes, &file.contents().expect("decodes")[..]);
        assert_eq!(etag, file.etag());
    }
});
