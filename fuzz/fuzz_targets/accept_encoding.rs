//! Any `Accept-Encoding` on files with brotli, zstd and gzip variants: the body is exactly one
//! stored representation with its own ETag; never an encoding the file lacks, never one the
//! header gives q=0, never a lower q-value than another the file has, and identity only when no
//! encoding is preferred.
#![no_main]

mod common;

use bindery::Encoding;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, u8, bool)| {
    let (accept_encoding, which, precompressed) = input;
    let (file, uri, service) = if precompressed {
        let (file, uri) = common::pick_in(&common::PRECOMPRESSED, which);
        (file, uri, common::precompressed_service())
    } else {
        let (file, uri) = common::pick(which);
        (file, uri, common::service())
    };
    let Ok(request) = http::Request::get(uri)
        .header("accept-encoding", accept_encoding)
        .body(())
    else {
        return;
    };
    // A value with bytes outside visible ASCII is no list of codings at all (RFC 9110 tokens).
    let header = request.headers()["accept-encoding"].to_str().unwrap_or("");
    let (response, bytes) = common::body(service.respond(&request));
    assert_eq!(response.status().as_u16(), 200);
    let etag = response.headers()["etag"].to_str().expect("ascii");
    let quality = |encoding: Encoding| oracle_quality(header, encoding.as_str());
    let best_available = file.encodings().map(quality).max().unwrap_or(0);
    match response.headers().get("content-encoding") {
        Some(sent) => {
            let sent = sent.to_str().expect("ascii");
            let encoding = Encoding::ALL
                .into_iter()
                .find(|encoding| encoding.as_str() == sent)
                .expect("a known encoding");
            let stored = file.encoded(encoding).expect("never an encoding the file lacks");
            assert_eq!(&bytes[..], stored, "the body is exactly the stored variant");
            assert_eq!(Some(etag), file.encoded_etag(encoding));
            assert!(quality(encoding) > 0, "never an encoding with q=0");
            assert_eq!(quality(encoding), best_available, "the highest q-value wins");
        }
        None => {
            assert_eq!(bytes, &file.contents().expect("decodes")[..]);
            assert_eq!(etag, file.etag());
            let identity = oracle_quality(header, "identity");
            let identity_named = header
                .split(',')
                .any(|member| is_named(member, "identity") || is_named(member, "*"));
            assert!(
                best_available == 0 || (identity_named && identity > best_available),
                "identity only when no encoding is preferred ({header:?})"
            );
        }
    }
});

/// Whether a list member names `coding` (with `x-gzip` for `gzip`), whatever its parameters.
fn is_named(member: &str, coding: &str) -> bool {
    let name = member.split(';').next().unwrap_or_default().trim();
    name.eq_ignore_ascii_case(coding) || (coding == "gzip" && name.eq_ignore_ascii_case("x-gzip"))
}

/// An independent reading of RFC 9110 §12.5.3: the highest valid q-value (thousandths) of the
/// members naming `coding`, else that of `*`, else 0. Members with a malformed parameter count
/// for nothing.
fn oracle_quality(header: &str, coding: &str) -> u16 {
    let quality_of = |member: &str| -> Option<u16> {
        let mut q = 1000;
        for parameter in member.split(';').skip(1) {
            let (name, value) = parameter.split_once('=')?;
            if name.trim().eq_ignore_ascii_case("q") {
                q = match value.trim() {
                    "1" | "1." | "1.0" | "1.00" | "1.000" => 1000,
                    text => {
                        let digits = text.strip_prefix("0")?;
                        let digits = if digits.is_empty() { "" } else { digits.strip_prefix('.')? };
                        if digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                            return None;
                        }
                        format!("{digits:0<3}").parse().ok()?
                    }
                };
            }
        }
        Some(q)
    };
    let best = |wanted: &dyn Fn(&str) -> bool| {
        header
            .split(',')
            .filter(|member| wanted(member))
            .filter_map(quality_of)
            .max()
    };
    best(&|member| is_named(member, coding))
        .or_else(|| best(&|member| member.split(';').next().unwrap_or_default().trim() == "*"))
        .unwrap_or(0)
}
