//! Conditional requests (RFC 9110 §13): the preconditions `If-Match` and
//! `If-Unmodified-Since` (412), `If-None-Match` and `If-Modified-Since` (304), evaluated in the
//! order of §13.2.2, and `If-Range` (§13.1.5), which decides whether a range is served.

use std::time::{SystemTime, UNIX_EPOCH};

use http::HeaderMap;
use http::header::{IF_MATCH, IF_MODIFIED_SINCE, IF_NONE_MATCH, IF_UNMODIFIED_SINCE};

use crate::serve::head::{RequestHead, first_text, text};
use crate::serve::http::Refusal;

/// Evaluates the preconditions of a GET or HEAD for the representation whose strong tag is
/// `etag` (quoted) and that was last modified at `modified`, in the order of RFC 9110 §13.2.2:
/// `If-Match` (§13.1.1, strong comparison; false: 412), else `If-Unmodified-Since` (§13.1.4;
/// later than the date: 412), then `If-None-Match` (§13.1.2, weak comparison; true: 304),
/// else `If-Modified-Since` (§13.1.3; not later: 304). A malformed field matches nothing; a
/// date that does not parse, or a representation without a time, leaves its condition out.
/// `Ok` to go on and serve the representation (or its range).
pub(crate) fn evaluate(
    request: &impl RequestHead,
    etag: &str,
    modified: Option<SystemTime>,
) -> Result<(), Refusal> {
    let mut if_match = request.header_values(&IF_MATCH).peekable();
    if if_match.peek().is_some() {
        if !if_match.any(|value| text(value).is_some_and(|list| matches_strongly(list, etag))) {
            return Err(Refusal::PreconditionFailed);
        }
    } else if let (Some(since), Some(modified)) = (
        first_text(request, &IF_UNMODIFIED_SINCE).and_then(parse_date),
        modified,
    ) && seconds(modified) > seconds(since)
    {
        return Err(Refusal::PreconditionFailed);
    }
    let mut if_none_match = request.header_values(&IF_NONE_MATCH).peekable();
    if if_none_match.peek().is_some() {
        let matches =
            if_none_match.any(|value| text(value).is_some_and(|list| matches_weakly(list, etag)));
        return if matches {
            Err(Refusal::NotModified)
        } else {
            Ok(())
        };
    }
    match (
        first_text(request, &IF_MODIFIED_SINCE).and_then(parse_date),
        modified,
    ) {
        (Some(since), Some(modified)) if seconds(modified) <= seconds(since) => {
            Err(Refusal::NotModified)
        }
        _ => Ok(()),
    }
}

/// Whether a request's conditionals let it be answered with 304 Not Modified, per RFC 9110
/// §13.2.2: `If-None-Match` decides when present (any of its field lines, by the weak
/// comparison, `*` included); otherwise `If-Modified-Since` at or after `modified`, when the
/// answer has a modification time. `etag` is the quoted tag of the representation selected for
/// this request. For any handler with validators of its own, not only for catalogs.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use bindery::serve::conditional::is_not_modified;
///
/// let mut headers = http::HeaderMap::new();
/// headers.insert("if-none-match", "W/\"a\", \"b\"".parse().unwrap());
/// assert!(is_not_modified(&headers, "\"b\"", None));
/// assert!(!is_not_modified(&headers, "\"c\"", None));
///
/// let mut headers = http::HeaderMap::new();
/// headers.insert("if-modified-since", "Tue, 03 Jul 2018 21:26:56 GMT".parse().unwrap());
/// let built = UNIX_EPOCH + Duration::from_secs(1_530_653_216);
/// assert!(is_not_modified(&headers, "\"x\"", Some(built)));
/// assert!(!is_not_modified(&headers, "\"x\"", None), "no date of our own: no 304");
/// ```
pub fn is_not_modified(headers: &HeaderMap, etag: &str, modified: Option<SystemTime>) -> bool {
    let mut if_none_match = headers.get_all(IF_NONE_MATCH).iter().peekable();
    if if_none_match.peek().is_some() {
        return if_none_match
            .any(|value| text(value.as_bytes()).is_some_and(|list| matches_weakly(list, etag)));
    }
    headers
        .get(IF_MODIFIED_SINCE)
        .and_then(|value| text(value.as_bytes()))
        .and_then(parse_date)
        .zip(modified)
        .is_some_and(|(since, modified)| seconds(modified) <= seconds(since))
}

/// Whether an `If-None-Match` list matches `etag` by the weak comparison (§8.8.3.2): `*`, or
/// any listed tag whose opaque part equals ours, with or without `W/`.
fn matches_weakly(list: &str, etag: &str) -> bool {
    if list.trim() == "*" {
        return true;
    }
    let ours = opaque(etag);
    entity_tags(list).any(|(_, tag)| tag == ours)
}

/// Whether an `If-Match` list matches `etag` by the strong comparison (§8.8.3.2): `*` (the
/// representation exists), or a listed tag that is not weak and whose opaque part equals ours.
fn matches_strongly(list: &str, etag: &str) -> bool {
    if list.trim() == "*" {
        return true;
    }
    let ours = opaque(etag);
    entity_tags(list).any(|(is_weak, tag)| !is_weak && tag == ours)
}

/// Whether an `If-Range` validator still holds, so the range may be served (§13.1.5): a strong
/// ETag equal to ours. A weak one never holds, and neither does a date: §13.1.5 allows a date
/// only where it is a strong validator (§8.8.2.2), one that changes whenever the bytes do, and
/// here it need not (every file of a build can carry one `source_date`, an overlay file keeps
/// its modification time across a copy), so a range by date could splice the bytes of two
/// versions. The whole file is sent instead, which is always right. Browsers send the ETag.
pub(crate) fn if_range_holds(text: &str, etag: &str) -> bool {
    let text = text.trim();
    let mut tags = entity_tags(text);
    match (tags.next(), tags.next()) {
        (Some((is_weak, tag)), None) => !is_weak && tag == opaque(etag),
        _ => false,
    }
}

fn parse_date(text: &str) -> Option<SystemTime> {
    httpdate::parse_http_date(text.trim()).ok()
}

fn seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The part of a quoted ETag between the quotes.
fn opaque(etag: &str) -> &str {
    etag.trim_start_matches("W/").trim_matches('"')
}

/// Iterates the entity tags of a list as (is weak, opaque part), stopping at the first malformed one.
fn entity_tags(list: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = list;
    std::iter::from_fn(move || {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            return None;
        }
        let is_weak = rest.starts_with("W/");
        if is_weak {
            rest = &rest[2..];
        }
        let after_quote = rest.strip_prefix('"')?;
        let end = after_quote.find('"')?;
        let tag = &after_quote[..end];
        rest = &after_quote[end + 1..];
        Some((is_weak, tag))
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::{Refusal, evaluate, if_range_holds, matches_strongly, matches_weakly};

    const TAG: &str = "\"abc\"";

    #[test]
    fn if_none_match_uses_weak_comparison_over_lists() {
        assert!(matches_weakly("\"abc\"", TAG));
        assert!(matches_weakly("W/\"abc\"", TAG));
        assert!(matches_weakly("\"x\", \"abc\"", TAG));
        assert!(
            matches_weakly("\"a,b\",W/\"abc\"", TAG),
            "commas inside tags"
        );
        assert!(matches_weakly("*", TAG));
        assert!(!matches_weakly("\"abd\"", TAG));
        assert!(!matches_weakly("abc", TAG), "unquoted is malformed");
        assert!(!matches_weakly("\"abc", TAG), "unterminated");
        assert!(!matches_weakly("", TAG));
    }

    #[test]
    fn if_match_uses_strong_comparison() {
        assert!(matches_strongly("\"abc\"", TAG));
        assert!(matches_strongly("\"x\", \"abc\"", TAG));
        assert!(matches_strongly("*", TAG));
        assert!(
            !matches_strongly("W/\"abc\"", TAG),
            "a weak tag never matches strongly"
        );
        assert!(!matches_strongly("\"abd\"", TAG));
        assert!(!matches_strongly("", TAG));
    }

    fn request(headers: &[(&str, &str)]) -> http::Request<()> {
        let mut builder = http::Request::get("/");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).expect("request")
    }

    #[test]
    fn preconditions_follow_the_order_of_rfc_9110_13_2_2() {
        let modified = Some(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
        let before = "Mon, 13 Nov 2023 00:00:00 GMT";
        let after = "Wed, 15 Nov 2023 00:00:00 GMT";
        let verdict = |headers: &[(&str, &str)]| evaluate(&request(headers), TAG, modified);
        assert_eq!(verdict(&[]), Ok(()));
        assert_eq!(
            verdict(&[("if-match", "\"x\"")]),
            Err(Refusal::PreconditionFailed)
        );
        // Step 1 decides: If-Unmodified-Since is not evaluated when If-Match is present.
        assert_eq!(
            verdict(&[("if-match", "\"abc\""), ("if-unmodified-since", before)]),
            Ok(())
        );
        assert_eq!(
            verdict(&[("if-unmodified-since", before)]),
            Err(Refusal::PreconditionFailed)
        );
        assert_eq!(verdict(&[("if-unmodified-since", after)]), Ok(()));
        assert_eq!(verdict(&[("if-unmodified-since", "not a date")]), Ok(()));
        // Step 3 after a passing step 1: 304.
        assert_eq!(
            verdict(&[("if-match", "*"), ("if-none-match", "\"abc\"")]),
            Err(Refusal::NotModified)
        );
        // A failed If-Match wins over a matching If-None-Match.
        assert_eq!(
            verdict(&[("if-match", "\"x\""), ("if-none-match", "\"abc\"")]),
            Err(Refusal::PreconditionFailed)
        );
        // If-None-Match present: If-Modified-Since is ignored.
        assert_eq!(
            verdict(&[("if-none-match", "\"x\""), ("if-modified-since", after)]),
            Ok(())
        );
        assert_eq!(
            verdict(&[("if-modified-since", after)]),
            Err(Refusal::NotModified)
        );
        assert_eq!(verdict(&[("if-modified-since", before)]), Ok(()));
        // Without a time of our own, date conditions are left out.
        assert_eq!(
            evaluate(&request(&[("if-unmodified-since", before)]), TAG, None),
            Ok(())
        );
    }

    #[test]
    fn if_range_needs_a_strong_etag_and_never_holds_by_date() {
        assert!(if_range_holds("\"abc\"", TAG));
        assert!(!if_range_holds("W/\"abc\"", TAG));
        assert!(!if_range_holds("\"abd\"", TAG));
        assert!(!if_range_holds("\"abc\", \"abc\"", TAG));
        // The file's own date, exactly: still the whole file.
        assert!(!if_range_holds("Tue, 14 Nov 2023 22:13:20 GMT", TAG));
        assert!(!if_range_holds("garbage", TAG));
    }
}
