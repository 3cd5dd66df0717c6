//! The `Range` header (RFC 9110 §14): byte ranges, one served as 206 with `Content-Range`,
//! several as `multipart/byteranges` (§14.6), with limits that keep a request from costing more
//! than the file.

use std::ops::RangeInclusive;

use crate::serve::http::Refusal;

/// How many range specs a header may list; more, and it is ignored (RFC 9110 §14.2 lets a
/// server ignore a range request, and the whole representation is always a correct answer).
pub(crate) const MAX_SPECS: usize = 32;

/// How many parts a multipart answer may have once overlapping and nearby ranges are merged;
/// more, and the whole representation is sent instead (many small parts cost far more than
/// their bytes: the "Apache Killer" request of CVE-2011-3192).
pub(crate) const MAX_PARTS: usize = 16;

/// Which bytes of a representation an answer carries: the one enum for parts, from the decision
/// (`Range` against the file's length) to the body (slices of the stored or decompressed bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// All of it: 200.
    Whole,
    /// Bytes `start..=end`: 206 with `Content-Range`.
    Range(RangeInclusive<u64>),
    /// These sorted, disjoint ranges: 206 `multipart/byteranges` (boxed: rare, and it keeps
    /// every outcome small to move).
    Ranges(Box<[RangeInclusive<u64>]>),
}

impl Part {
    /// How many leading bytes of a file of `len` bytes the part needs: all for `Whole`, up to
    /// the last byte of the farthest range otherwise (never more than `len`).
    pub(crate) fn upto(&self, len: u64) -> u64 {
        match self {
            Part::Whole => len,
            Part::Range(range) => range.end().saturating_add(1).min(len),
            Part::Ranges(ranges) => ranges
                .iter()
                .map(|range| range.end().saturating_add(1))
                .max()
                .unwrap_or(len)
                .min(len),
        }
    }

    /// The ranges the part is made of (one for `Range`, none for `Whole`).
    pub(crate) fn ranges(&self) -> &[RangeInclusive<u64>] {
        match self {
            Part::Whole => &[],
            Part::Range(range) => std::slice::from_ref(range),
            Part::Ranges(ranges) => ranges,
        }
    }
}

/// Decides how to answer a `Range` header (`text`, as sent) for a representation of `len`
/// bytes. Satisfiable specs are kept (§14.1.1: a set is satisfiable if any of its ranges is);
/// the ranges are sorted and overlapping or adjacent ones merged (§14.6 allows it), so the
/// parts never hold a byte twice and never add up to more than the file. The whole
/// representation when the header is ignored (malformed, another unit, too many specs or
/// parts); [`Refusal::Unsatisfiable`] (416 with `Content-Range: bytes */len`) when no byte of
/// any range exists.
pub(crate) fn select(text: &str, len: u64) -> Result<Part, Refusal> {
    let whole = Ok(Part::Whole);
    let Some((unit, specs)) = text.split_once('=') else {
        return whole;
    };
    if !unit.trim().eq_ignore_ascii_case("bytes") {
        return whole;
    }
    // One range, the usual request (a video's seek, a resumed download): no list to build.
    if !specs.contains(',') {
        return match parse_spec(specs.trim(), len) {
            Spec::Malformed => whole,
            Spec::Unsatisfiable => Err(Refusal::Unsatisfiable),
            Spec::Range(range) => Ok(Part::Range(range)),
        };
    }
    let mut ranges = Vec::new();
    for (index, spec) in specs.split(',').enumerate() {
        if index == MAX_SPECS {
            return whole;
        }
        match parse_spec(spec.trim(), len) {
            Spec::Malformed => return whole,
            Spec::Unsatisfiable => {}
            Spec::Range(range) => ranges.push(range),
        }
    }
    if ranges.is_empty() {
        return Err(Refusal::Unsatisfiable);
    }
    let mut parts = merge(ranges);
    match parts.len() {
        1 => Ok(Part::Range(parts.remove(0))),
        count if count > MAX_PARTS => whole,
        _ => Ok(Part::Ranges(parts.into_boxed_slice())),
    }
}

enum Spec {
    Malformed,
    Unsatisfiable,
    Range(RangeInclusive<u64>),
}

/// One `range-spec` against `len`: `A-B`, `A-` or `-N` (the last N bytes).
fn parse_spec(spec: &str, len: u64) -> Spec {
    let Some((first, last)) = spec.split_once('-') else {
        return Spec::Malformed;
    };
    let is_digits = |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
    match (is_digits(first), is_digits(last)) {
        // `-N`: the last N bytes.
        (false, true) if first.is_empty() => {
            let suffix = last.parse::<u64>().unwrap_or(u64::MAX);
            if suffix == 0 || len == 0 {
                Spec::Unsatisfiable
            } else {
                Spec::Range(len.saturating_sub(suffix)..=len - 1)
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
                Spec::Malformed
            } else if start >= len {
                Spec::Unsatisfiable
            } else {
                Spec::Range(start..=end.min(len - 1))
            }
        }
        _ => Spec::Malformed,
    }
}

/// The ranges sorted by start, overlapping and adjacent ones merged.
fn merge(mut ranges: Vec<RangeInclusive<u64>>) -> Vec<RangeInclusive<u64>> {
    ranges.sort_by_key(|range| *range.start());
    let mut merged: Vec<RangeInclusive<u64>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if *range.start() <= last.end().saturating_add(1) => {
                *last = *last.start()..=(*last.end()).max(*range.end());
            }
            _ => merged.push(range),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::{MAX_PARTS, MAX_SPECS, Part, Refusal, select};

    fn partial(start: u64, end: u64) -> Result<Part, Refusal> {
        Ok(Part::Range(start..=end))
    }

    fn parts(ranges: Vec<std::ops::RangeInclusive<u64>>) -> Result<Part, Refusal> {
        Ok(Part::Ranges(ranges.into_boxed_slice()))
    }

    const FULL: Result<Part, Refusal> = Ok(Part::Whole);

    #[test]
    fn single_ranges() {
        assert_eq!(select("bytes=0-0", 10), partial(0, 0));
        assert_eq!(select("bytes=-1", 10), partial(9, 9));
        assert_eq!(select("bytes=5-", 10), partial(5, 9));
        assert_eq!(select("bytes=2-100", 10), partial(2, 9));
        assert_eq!(select("bytes=-100", 10), partial(0, 9));
        assert_eq!(select("BYTES = 1-2", 10), partial(1, 2));
        assert_eq!(select("bytes=0-99999999999999999999999", 10), partial(0, 9));
    }

    #[test]
    fn unsatisfiable_ranges() {
        assert_eq!(select("bytes=10-", 10), Err(Refusal::Unsatisfiable));
        assert_eq!(select("bytes=10-20", 10), Err(Refusal::Unsatisfiable));
        assert_eq!(select("bytes=-0", 10), Err(Refusal::Unsatisfiable));
        assert_eq!(select("bytes=0-0", 0), Err(Refusal::Unsatisfiable));
        assert_eq!(
            select("bytes=99999999999999999999999-", 10),
            Err(Refusal::Unsatisfiable)
        );
        assert_eq!(select("bytes=10-11, 20-", 10), Err(Refusal::Unsatisfiable));
    }

    #[test]
    fn ignored_ranges() {
        for text in [
            "bytes=5-2",
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
            "bytes=0-1,,3-4",
        ] {
            assert_eq!(select(text, 10), FULL, "{text}");
        }
    }

    #[test]
    fn several_ranges_are_sorted_merged_and_kept_apart_when_far() {
        let len = 10_000;
        assert_eq!(
            select("bytes=5000-5009,0-9", len),
            parts(vec![0..=9, 5000..=5009])
        );
        // Overlapping and adjacent ranges become one: no byte is sent twice.
        assert_eq!(select("bytes=0-99,50-149,150-199", len), partial(0, 199));
        assert_eq!(select("bytes=0-1,5-9", len), parts(vec![0..=1, 5..=9]));
        // Unsatisfiable members are dropped when another is satisfiable (RFC 9110 §14.1.1).
        assert_eq!(select("bytes=0-9,20000-", len), partial(0, 9));
    }

    #[test]
    fn many_ranges_or_parts_get_the_whole_representation() {
        let len = 1_000_000;
        let spread = |count: usize| {
            let specs: Vec<String> = (0..count)
                .map(|index| format!("{}-{}", index * 1000, index * 1000 + 9))
                .collect();
            format!("bytes={}", specs.join(","))
        };
        assert!(
            matches!(select(&spread(MAX_PARTS), len), Ok(Part::Ranges(parts)) if parts.len() == MAX_PARTS)
        );
        assert_eq!(select(&spread(MAX_PARTS + 1), len), FULL);
        assert_eq!(select(&spread(MAX_SPECS + 1), len), FULL);
        // The same byte asked for a thousand times is not a thousand copies.
        let repeated = format!("bytes={}", vec!["0-"; 30].join(","));
        assert_eq!(select(&repeated, len), partial(0, len - 1));
    }
}
