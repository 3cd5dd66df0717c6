//! Conditional requests: `If-None-Match`, `If-Modified-Since` and `If-Range` (RFC 9110 §13).

use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{IF_MODIFIED_SINCE, IF_NONE_MATCH};
use http::{HeaderMap, HeaderValue};

/// Whether a request's conditionals let it be answered with 304 Not Modified, per RFC 9110
/// §13.2.2: `If-None-Match` decides when present (any of its field lines, by the weak
/// comparison, `*` included); otherwise `If-Modified-Since` at or after `modified`, when the
/// answer has a modification time. `etag` is the quoted tag of the representation selected for
/// this request. For any handler with validators of its own, not only for catalogs.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use bindery::serve::is_not_modified;
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
        return if_none_match.any(|value| none_match(value, etag));
    }
    headers
        .get(IF_MODIFIED_SINCE)
        .is_some_and(|since| not_modified_since(since, modified))
}

/// Whether `If-None-Match` matches `etag` by the weak comparison: `*`, or any listed tag whose
/// opaque part equals ours, with or without `W/`. A malformed header matches nothing.
fn none_match(header: &HeaderValue, etag: &str) -> bool {
    let Ok(text) = header.to_str() else {
        return false;
    };
    if text.trim() == "*" {
        return true;
    }
    let ours = opaque(etag);
    entity_tags(text).any(|(_, tag)| tag == ours)
}

/// Whether `If-Modified-Since` says the client's copy is current: the file carries a time that is
/// not after the given date. Unparseable dates are ignored (`false`).
fn not_modified_since(header: &HeaderValue, modified: Option<SystemTime>) -> bool {
    let (Some(modified), Some(since)) = (modified, parse_date(header)) else {
        return false;
    };
    seconds(modified) <= seconds(since)
}

/// Whether an `If-Range` validator still holds, so the range may be served: a strong ETag equal
/// to ours (a weak one never holds), or a date exactly equal to the file's modification time.
pub(crate) fn if_range_holds(
    header: &HeaderValue,
    etag: &str,
    modified: Option<SystemTime>,
) -> bool {
    let Ok(text) = header.to_str() else {
        return false;
    };
    let text = text.trim();
    if text.starts_with('"') || text.starts_with("W/") {
        let mut tags = entity_tags(text);
        return match (tags.next(), tags.next()) {
            (Some((is_weak, tag)), None) => !is_weak && tag == opaque(etag),
            _ => false,
        };
    }
    match (modified, parse_date(header)) {
        (Some(modified), Some(date)) => seconds(modified) == seconds(date),
        _ => false,
    }
}

fn parse_date(header: &HeaderValue) -> Option<SystemTime> {
    httpdate::parse_http_date(header.to_str().ok()?.trim()).ok()
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

    use http::HeaderValue;

    use super::{if_range_holds, none_match, not_modified_since};

    const TAG: &str = "\"abc\"";

    fn header(text: &str) -> HeaderValue {
        HeaderValue::from_str(text).expect("valid")
    }

    #[test]
    fn if_none_match_uses_weak_comparison_over_lists() {
        assert!(none_match(&header("\"abc\""), TAG));
        assert!(none_match(&header("W/\"abc\""), TAG));
        assert!(none_match(&header("\"x\", \"abc\""), TAG));
        assert!(
            none_match(&header("\"a,b\",W/\"abc\""), TAG),
            "commas inside tags"
        );
        assert!(none_match(&header("*"), TAG));
        assert!(!none_match(&header("\"abd\""), TAG));
        assert!(!none_match(&header("abc"), TAG), "unquoted is malformed");
        assert!(!none_match(&header("\"abc"), TAG), "unterminated");
        assert!(!none_match(&header(""), TAG));
    }

    #[test]
    fn if_modified_since_compares_whole_seconds() {
        let modified = Some(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
        let same = header("Tue, 14 Nov 2023 22:13:20 GMT");
        assert!(not_modified_since(&same, modified));
        assert!(not_modified_since(
            &header("Wed, 15 Nov 2023 00:00:00 GMT"),
            modified
        ));
        assert!(!not_modified_since(
            &header("Mon, 13 Nov 2023 00:00:00 GMT"),
            modified
        ));
        assert!(!not_modified_since(&header("yesterday"), modified));
        assert!(!not_modified_since(&same, None), "no time, no 304");
    }

    #[test]
    fn if_range_needs_a_strong_match() {
        assert!(if_range_holds(&header("\"abc\""), TAG, None));
        assert!(!if_range_holds(&header("W/\"abc\""), TAG, None));
        assert!(!if_range_holds(&header("\"abd\""), TAG, None));
        assert!(!if_range_holds(&header("\"abc\", \"abc\""), TAG, None));
        let modified = Some(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
        assert!(if_range_holds(
            &header("Tue, 14 Nov 2023 22:13:20 GMT"),
            TAG,
            modified
        ));
        assert!(!if_range_holds(
            &header("Tue, 14 Nov 2023 22:13:21 GMT"),
            TAG,
            modified
        ));
        assert!(!if_range_holds(&header("garbage"), TAG, modified));
    }
}
