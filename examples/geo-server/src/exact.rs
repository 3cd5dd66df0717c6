//! Per-answer bytes in allocations of their exact size. `bytes::Bytes::from(Vec)` takes a vector
//! whose length is its capacity as it is, but gives any other a second allocation for its shared
//! header; and `HeaderValue::from(usize)` formats a length into a new allocation. An answer's
//! short parts are written into a per-thread scratch buffer first and copied out at their
//! length; `Content-Length` values come from a table made once.

use std::cell::RefCell;
use std::sync::LazyLock;

use http::HeaderValue;

thread_local! {
    /// Where short texts are written before they are copied out; it keeps its capacity.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The bytes `write` writes, in a vector of exactly their length: one allocation.
///
/// ```
/// let bytes = geo_server::exact::written(|out| out.extend_from_slice(b"\"tag\""));
/// assert_eq!(bytes, b"\"tag\"");
/// assert_eq!(bytes.len(), bytes.capacity());
/// ```
pub fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    joined(write, &[])
}

/// What `write` writes followed by `tail`, in a vector of exactly their length: one allocation.
///
/// ```
/// let bytes = geo_server::exact::joined(|out| out.extend_from_slice(b"{\"a\":1"), b"}");
/// assert_eq!(bytes, b"{\"a\":1}");
/// assert_eq!(bytes.len(), bytes.capacity());
/// ```
pub fn joined(write: impl FnOnce(&mut Vec<u8>), tail: &[u8]) -> Vec<u8> {
    let exact = |scratch: &mut Vec<u8>| {
        scratch.clear();
        write(scratch);
        let mut bytes = Vec::with_capacity(scratch.len() + tail.len());
        bytes.extend_from_slice(scratch);
        bytes.extend_from_slice(tail);
        bytes
    };
    // A writer that itself calls `joined` finds the scratch taken: it gets a buffer of its own.
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => exact(&mut scratch),
        Err(_) => exact(&mut Vec::new()),
    })
}

/// Lengths up to this have a `Content-Length` value made once (answers are 300 to 450 bytes).
const TABLE_LEN: usize = 4096;

/// The `Content-Length` value of `len`: a copy of a value made once for lengths under
/// 4 KiB, so that a clone costs no allocation; formatted anew above.
///
/// ```
/// assert_eq!(geo_server::exact::content_length(417), "417");
/// assert_eq!(geo_server::exact::content_length(1 << 20), "1048576");
/// ```
pub fn content_length(len: usize) -> HeaderValue {
    /// Every decimal below [`TABLE_LEN`], one after the other; each value is a slice of it.
    static DIGITS: LazyLock<String> =
        LazyLock::new(|| (0..TABLE_LEN).map(|len| len.to_string()).collect());
    static VALUES: LazyLock<Vec<HeaderValue>> = LazyLock::new(|| {
        let digits: &'static str = DIGITS.as_str();
        let mut start = 0;
        (0..TABLE_LEN)
            .map(|len| {
                let end = start + len.checked_ilog10().map_or(1, |log| log as usize + 1);
                let value = HeaderValue::from_static(&digits[start..end]);
                start = end;
                value
            })
            .collect()
    });
    VALUES
        .get(len)
        .cloned()
        .unwrap_or_else(|| HeaderValue::from(len))
}

/// [`content_length`] of a body's exact size hint.
///
/// ```
/// assert_eq!(geo_server::exact::content_length_u64(312), "312");
/// ```
pub fn content_length_u64(len: u64) -> HeaderValue {
    usize::try_from(len).map_or_else(|_| HeaderValue::from(len), content_length)
}

#[cfg(test)]
mod tests {
    use super::{TABLE_LEN, content_length, joined, written};

    #[test]
    fn every_length_in_the_table_and_past_it_reads_as_its_decimal() {
        for len in (0..TABLE_LEN + 10).chain([usize::MAX]) {
            assert_eq!(content_length(len), len.to_string().as_str(), "{len}");
        }
    }

    #[test]
    fn a_writer_that_writes_an_exact_text_itself_gets_its_own_buffer() {
        let outer = joined(
            |out| {
                let inner = written(|out| out.extend_from_slice(b"inner"));
                out.extend_from_slice(&inner);
                out.push(b'+');
            },
            b"tail",
        );
        assert_eq!(outer, b"inner+tail");
        assert_eq!(outer.len(), outer.capacity());
        // The scratch is free again afterwards.
        assert_eq!(written(|out| out.push(b'x')), b"x");
    }
}
