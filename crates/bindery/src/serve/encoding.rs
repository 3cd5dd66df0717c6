//! `Accept-Encoding`: does the client take gzip? Parsed with q-values, per RFC 9110 §12.5.3.

use http::HeaderValue;

/// Whether the header allows a gzip response: `gzip` (or `x-gzip`) with q > 0, or no mention of
/// gzip and `*` with q > 0. Malformed members are ignored; a malformed header allows nothing.
pub(crate) fn accepts_gzip(header: Option<&HeaderValue>) -> bool {
    let Some(text) = header.and_then(|value| value.to_str().ok()) else {
        return false;
    };
    let mut gzip = None;
    let mut any = None;
    for member in text.split(',') {
        let mut parts = member.split(';');
        let coding = parts.next().unwrap_or_default().trim();
        let Some(quality) = quality(parts) else {
            continue;
        };
        if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(gzip.map_or(quality, |seen: u16| seen.max(quality)));
        } else if coding == "*" {
            any = Some(quality);
        }
    }
    gzip.or(any).is_some_and(|quality| quality > 0)
}

/// The member's q-value in thousandths (1000 when absent), or `None` when malformed.
fn quality<'a>(parameters: impl Iterator<Item = &'a str>) -> Option<u16> {
    let mut quality = 1000;
    for parameter in parameters {
        let (name, value) = parameter.split_once('=')?;
        if name.trim().eq_ignore_ascii_case("q") {
            quality = parse_qvalue(value.trim())?;
        }
    }
    Some(quality)
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
fn parse_qvalue(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let thousandths = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0u16, |total, digit| total * 10 + u16::from(digit - b'0'));
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::accepts_gzip;

    fn accepts(value: &str) -> bool {
        accepts_gzip(Some(&HeaderValue::from_str(value).expect("valid header")))
    }

    #[test]
    fn reads_q_values() {
        assert!(accepts("gzip"));
        assert!(accepts("br, gzip, deflate"));
        assert!(accepts("GZIP;q=0.5"));
        assert!(accepts("x-gzip"));
        assert!(accepts("*"));
        assert!(accepts("gzip;q=1.000"));
        assert!(accepts("gzip ; q=0.001"));
        assert!(!accepts("gzip;q=0"));
        assert!(!accepts("gzip;q=0.000"));
        assert!(!accepts("*;q=0"));
        assert!(!accepts("gzip;q=0, *"), "an explicit gzip;q=0 wins over *");
        assert!(!accepts("identity"));
        assert!(!accepts("br"));
        assert!(!accepts(""));
        assert!(!accepts_gzip(None));
    }

    #[test]
    fn ignores_malformed_members() {
        assert!(!accepts("gzip;q=2"));
        assert!(!accepts("gzip;q=1.5"));
        assert!(!accepts("gzip;q=0.1234"));
        assert!(!accepts("gzip;q=abc"));
        assert!(!accepts("gzip;q"));
        assert!(
            accepts("gzip;q=bad, *"),
            "malformed gzip member ignored, * still applies"
        );
        assert!(!accepts(&"gzip;q=0,".repeat(1000)));
    }
}
