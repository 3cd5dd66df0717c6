//! Any request path: 400 or 404 unless it names an asset (or falls back to the app); a 200 body
//! is always exactly an asset's bytes, never anything from outside the catalog. The same path
//! below a mount point gets the same answer, the mount point added to any redirect.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|path: &[u8]| {
    let Ok(text) = std::str::from_utf8(path) else {
        return;
    };
    let Some(request) = page_request(format!("/{text}")) else {
        return;
    };
    let (response, bytes) = common::body(common::service().respond(&request));
    match response.status().as_u16() {
        200 => {
            let etag = response.headers()["etag"].to_str().expect("ascii");
            let file = common::asset_for_etag(etag).expect("a 200 serves an asset");
            assert_eq!(bytes, &file.contents().expect("decodes")[..]);
        }
        307 => {
            let location = response.headers()["location"].to_str().expect("ascii");
            assert!(
                location.starts_with('/') && !location.starts_with("//"),
                "{location}"
            );
        }
        400 | 404 => {}
        other => panic!("unexpected status {other} for {text:?}"),
    }
    // Four bytes longer: near the path limit the mounted path may be refused where the root's
    // is not.
    if text.len() + 5 >= bindery::serve::Builder::DEFAULT_MAX_PATH_LEN {
        return;
    }
    let Some(mounted_request) = page_request(format!("/mnt/{text}")) else {
        return;
    };
    let (mounted, mounted_bytes) =
        common::body(common::mounted_service().respond(&mounted_request));
    assert_eq!(mounted.status(), response.status(), "{text:?}");
    assert_eq!(mounted_bytes, bytes, "{text:?}");
    if let Some(location) = response.headers().get("location") {
        let expected = format!("/mnt{}", location.to_str().expect("ascii"));
        assert_eq!(mounted.headers()["location"], expected.as_str(), "{text:?}");
    }
});

/// A browser's GET of `uri` (it accepts HTML, so the app fallback applies), or `None` where the
/// `http` crate refuses the URI.
fn page_request(uri: String) -> Option<http::Request<()>> {
    http::Request::get(uri)
        .header("accept", "text/html")
        .body(())
        .ok()
}
