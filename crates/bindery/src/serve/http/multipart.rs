//! `multipart/byteranges` bodies (RFC 9110 §14.6): the heads of the parts, written once into
//! one buffer, and the parts themselves as slices of the stored or decompressed bytes, so an
//! answer of two ranges of a 17 MiB file costs a few hundred bytes of heads, not a copy.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::ops::RangeInclusive;

use bytes::Bytes;
use http::HeaderValue;

use crate::EmbeddedFile;

/// The boundary of a file's multipart answers, made from its ETag: no part of a file can hold
/// it, the tag being a hash of the whole.
pub(crate) fn boundary(file: &EmbeddedFile) -> String {
    format!("bindery-{}", file.etag().trim_matches('"'))
}

/// The `Content-Type` of a multipart answer.
pub(crate) fn content_type(boundary: &str) -> Option<HeaderValue> {
    HeaderValue::try_from(format!("multipart/byteranges; boundary={boundary}")).ok()
}

/// The heads of every part, each with its position in `heads`: the boundary line, then the
/// part's `Content-Type` and `Content-Range`; then the closing boundary.
fn heads(
    ranges: &[RangeInclusive<u64>],
    boundary: &str,
    content_type: &HeaderValue,
    len: u64,
) -> (String, Vec<usize>) {
    let media = content_type.to_str().unwrap_or("application/octet-stream");
    let mut heads = String::new();
    let mut ends = Vec::with_capacity(ranges.len() + 1);
    for range in ranges {
        let _ = write!(
            heads,
            "\r\n--{boundary}\r\nContent-Type: {media}\r\nContent-Range: bytes {}-{}/{len}\r\n\r\n",
            range.start(),
            range.end()
        );
        ends.push(heads.len());
    }
    let _ = write!(heads, "\r\n--{boundary}--\r\n");
    ends.push(heads.len());
    (heads, ends)
}

/// The `Content-Length` of the answer, computed before any byte is read.
pub(crate) fn content_length(
    ranges: &[RangeInclusive<u64>],
    boundary: &str,
    content_type: &HeaderValue,
    len: u64,
) -> u64 {
    let bytes: u64 = ranges
        .iter()
        .map(|range| range.end() - range.start() + 1)
        .sum();
    heads(ranges, boundary, content_type, len).0.len() as u64 + bytes
}

/// The chunks of the answer: each part's head (slices of one buffer), then the part's bytes
/// (`parts`, one per range, slices of the stored or decompressed bytes).
pub(crate) fn chunks(
    parts: Vec<Bytes>,
    ranges: &[RangeInclusive<u64>],
    boundary: &str,
    content_type: &HeaderValue,
    len: u64,
) -> VecDeque<Bytes> {
    let (heads, ends) = heads(ranges, boundary, content_type, len);
    let heads = Bytes::from(heads);
    let mut chunks = VecDeque::with_capacity(ranges.len() * 2 + 1);
    let mut start = 0;
    for (part, end) in parts.into_iter().zip(&ends) {
        chunks.push_back(heads.slice(start..*end));
        chunks.push_back(part);
        start = *end;
    }
    chunks.push_back(heads.slice(start..));
    chunks
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use http::HeaderValue;

    use super::{chunks, content_length};

    #[test]
    fn parts_are_slices_and_the_length_is_known_beforehand() {
        static FILE: [u8; 10] = *b"0123456789";
        let body = Bytes::from_static(&FILE);
        let media = HeaderValue::from_static("text/plain");
        let ranges = [0..=1, 5..=9];
        let parts = vec![body.slice(0..=1), body.slice(5..=9)];
        let answer = chunks(parts, &ranges, "b", &media, 10);
        let joined: Vec<u8> = answer.iter().flatten().copied().collect();
        assert_eq!(
            String::from_utf8(joined.clone()).expect("text"),
            "\r\n--b\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\n01\
             \r\n--b\r\nContent-Type: text/plain\r\nContent-Range: bytes 5-9/10\r\n\r\n56789\
             \r\n--b--\r\n"
        );
        assert_eq!(
            content_length(&ranges, "b", &media, 10),
            joined.len() as u64
        );
        assert!(
            FILE.as_ptr_range().contains(&answer[3].as_ptr()),
            "no copy of the part"
        );
    }
}
