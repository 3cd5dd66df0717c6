//! The `Range` header: one byte range is served as 206; anything else as the full 200 (RFC 9110 §14).

use http::HeaderValue;

/// What to do with a `Range` header for a representation of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Ignore it: malformed, several ranges, or another unit. Serve the whole representation.
    Full,
    /// Serve bytes `start..=end`.
    Partial { start: u64, end: u64 },
    /// No byte of the range exists: 416 with `Content-Range: bytes */len`.
    Unsatisfiable,
}

/// Decides how to answer `Range` for a representation of `len` bytes.
pub(crate) fn decide(header: &HeaderValue, len: u64) -> Decision {
    let Some(text) = header.to_str().ok() else {
        return Decision::Full;
    };
    let Some((unit, spec)) = text.split_once('=') else {
        return Decision::Full;
    };
    if !unit.trim().eq_ignore_ascii_case("bytes") || spec.contains(',') {
        return Decision::Full;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Decision::Full;
    };
    let is_digits = |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
    match (is_digits(first), is_digits(last)) {
        // `-N`: the last N bytes.
        (false, true) if first.is_empty() => {
            let suffix = last.parse::<u64>().unwrap_or(u64::MAX);
            if suffix == 0 || len == 0 {
                Decision::Unsatisfiable
            } else {
                Decision::Partial {
                    start: len.saturating_sub(suffix),
                    end: len - 1,
                }
            }
        }
        // `A-` or `A-B`.
        (true, is_bounded) if is_bounded || last.is_empty() => {
            // A start too large for u64 is past the end of any file.
            let start = first.parse::<u64>().unwrap_or(u64::MAX);
            let end = if is_bounded {
                last.parse::<u64>().unwrap_or(u64::MAX)
            } else {
                u64::MAX
            };
            if end < start {
                Decision::Full
            } else if start >= len {
                Decision::Unsatisfiable
            } else {
                Decision::Partial {
                    start,
                    end: end.min(len - 1),
                }
            }
        }
        _ => Decision::Full,
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::{Decision, decide};

    fn range(text: &str, len: u64) -> Decision {
        decide(&HeaderValue::from_str(text).expect("valid"), len)
    }

    fn partial(start: u64, end: u64) -> Decision {
        Decision::Partial { start, end }
    }

    #[test]
    fn single_ranges() {
        assert_eq!(range("bytes=0-0", 10), partial(0, 0));
        assert_eq!(range("bytes=-1", 10), partial(9, 9));
        assert_eq!(range("bytes=5-", 10), partial(5, 9));
        assert_eq!(range("bytes=2-100", 10), partial(2, 9));
        assert_eq!(range("bytes=-100", 10), partial(0, 9));
        assert_eq!(range("BYTES = 1-2", 10), partial(1, 2));
        assert_eq!(range("bytes=0-99999999999999999999999", 10), partial(0, 9));
    }

    #[test]
    fn unsatisfiable_ranges() {
        assert_eq!(range("bytes=10-", 10), Decision::Unsatisfiable);
        assert_eq!(range("bytes=10-20", 10), Decision::Unsatisfiable);
        assert_eq!(range("bytes=-0", 10), Decision::Unsatisfiable);
        assert_eq!(range("bytes=0-0", 0), Decision::Unsatisfiable);
        assert_eq!(
            range("bytes=99999999999999999999999-", 10),
            Decision::Unsatisfiable
        );
    }

    #[test]
    fn ignored_ranges() {
        for text in [
            "bytes=5-2",
            "bytes=0-1,3-4",
            "items=0-1",
            "bytes=",
            "bytes=-",
            "bytes=a-b",
            "bytes=1",
            "0-1",
            "bytes=--1",
            "bytes=1-2-3",
            "bytes= 1 - 2",
            "bytes=+1-2",
        ] {
            assert_eq!(range(text, 10), Decision::Full, "{text}");
        }
    }
}
