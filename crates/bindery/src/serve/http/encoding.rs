//! Content negotiation on `Accept-Encoding` (RFC 9110 §12.5.3): which stored representation a
//! client gets. Highest q-value wins, ties go to the smallest stored variant, `q=0` excludes,
//! `*` covers codings not named, and identity is the answer when nothing else is acceptable.

use crate::Encoding;
use crate::serve::head::text;
use crate::serve::setup::prepared::Representation;

/// What an `Accept-Encoding` header says of the codings bindery can send: q-values in
/// thousandths, `None` where a coding is not named.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Accepted {
    br: Option<u16>,
    zstd: Option<u16>,
    gzip: Option<u16>,
    identity: Option<u16>,
    any: Option<u16>,
    /// `dcz` (RFC 9842), which `*` does not cover: it needs a dictionary the client names.
    dcz: Option<u16>,
}

impl Accepted {
    /// Reads every `Accept-Encoding` field line (several lines are one list). Malformed members
    /// are ignored; no header, an empty one or a malformed one accepts no coding.
    pub(crate) fn parse<'a>(values: impl Iterator<Item = &'a [u8]>) -> Accepted {
        let mut accepted = Accepted::default();
        for text in values.filter_map(text) {
            for member in text.split(',') {
                let mut parts = member.split(';');
                let coding = parts.next().unwrap_or_default().trim();
                let Some(quality) = quality(parts) else {
                    continue;
                };
                let slot = if coding.eq_ignore_ascii_case("gzip")
                    || coding.eq_ignore_ascii_case("x-gzip")
                {
                    &mut accepted.gzip
                } else if coding.eq_ignore_ascii_case("br") {
                    &mut accepted.br
                } else if coding.eq_ignore_ascii_case("zstd") {
                    &mut accepted.zstd
                } else if coding.eq_ignore_ascii_case("dcz") {
                    &mut accepted.dcz
                } else if coding.eq_ignore_ascii_case("identity") {
                    &mut accepted.identity
                } else if coding == "*" {
                    &mut accepted.any
                } else {
                    continue;
                };
                *slot = Some(slot.map_or(quality, |seen| seen.max(quality)));
            }
        }
        accepted
    }

    /// The q-value of `encoding`: as named, else as `*` gives it, else 0 (not acceptable).
    pub(crate) fn quality(&self, encoding: Encoding) -> u16 {
        let named = match encoding {
            Encoding::Br => self.br,
            Encoding::Zstd => self.zstd,
            Encoding::Gzip => self.gzip,
        };
        named.or(self.any).unwrap_or(0)
    }

    /// Whether `dcz` is acceptable: named with a q-value above 0.
    pub(crate) fn accepts_dcz(&self) -> bool {
        self.dcz.is_some_and(|quality| quality > 0)
    }

    /// The representation to send from `available` (sorted smallest first), or `None` for
    /// identity: the acceptable coding with the highest q-value, the smallest on a tie, unless
    /// identity is named (or covered by `*`) with a higher q-value. When no coding is acceptable
    /// the answer is identity, even under `identity;q=0`: a 406 would help no client.
    pub(crate) fn choose<'a>(&self, available: &'a [Representation]) -> Option<&'a Representation> {
        let mut best: Option<(&Representation, u16)> = None;
        for representation in available {
            let quality = self.quality(representation.encoding);
            if quality > 0 && best.is_none_or(|(_, best_quality)| quality > best_quality) {
                best = Some((representation, quality));
            }
        }
        let (representation, quality) = best?;
        match self.identity.or(self.any) {
            Some(identity) if identity > quality => None,
            _ => Some(representation),
        }
    }
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
    use http::{HeaderMap, HeaderValue};

    use super::Accepted;
    use crate::Encoding;
    use crate::serve::setup::prepared::Representation;

    fn accepted(value: &str) -> Accepted {
        let mut headers = HeaderMap::new();
        headers.insert(
            "accept-encoding",
            HeaderValue::from_str(value).expect("valid header"),
        );
        Accepted::parse(
            headers
                .get_all("accept-encoding")
                .iter()
                .map(HeaderValue::as_bytes),
        )
    }

    fn accepts_gzip(value: &str) -> bool {
        accepted(value).quality(Encoding::Gzip) > 0
    }

    /// Representations of made-up sizes, sorted smallest first as `Prepared` keeps them.
    fn available(sizes: &[(Encoding, usize)]) -> Vec<Representation> {
        static BYTES: [u8; 64] = [0; 64];
        let mut representations: Vec<Representation> = sizes
            .iter()
            .map(|&(encoding, len)| Representation::new(encoding, &BYTES[..len], "\"tag\""))
            .collect();
        representations.sort_by_key(|representation| representation.bytes.len());
        representations
    }

    fn chosen(header: &str, sizes: &[(Encoding, usize)]) -> Option<Encoding> {
        let available = available(sizes);
        accepted(header)
            .choose(&available)
            .map(|representation| representation.encoding)
    }

    const ALL: [(Encoding, usize); 3] = [
        (Encoding::Gzip, 30),
        (Encoding::Br, 20),
        (Encoding::Zstd, 24),
    ];

    #[test]
    fn reads_q_values() {
        assert!(accepts_gzip("gzip"));
        assert!(accepts_gzip("br, gzip, deflate"));
        assert!(accepts_gzip("GZIP;q=0.5"));
        assert!(accepts_gzip("x-gzip"));
        assert!(accepts_gzip("*"));
        assert!(accepts_gzip("gzip;q=1.000"));
        assert!(accepts_gzip("gzip ; q=0.001"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("gzip;q=0.000"));
        assert!(!accepts_gzip("*;q=0"));
        assert!(
            !accepts_gzip("gzip;q=0, *"),
            "an explicit gzip;q=0 wins over *"
        );
        assert!(!accepts_gzip("identity"));
        assert!(!accepts_gzip("br"));
        assert!(!accepts_gzip(""));
    }

    #[test]
    fn ignores_malformed_members() {
        assert!(!accepts_gzip("gzip;q=2"));
        assert!(!accepts_gzip("gzip;q=1.5"));
        assert!(!accepts_gzip("gzip;q=0.1234"));
        assert!(!accepts_gzip("gzip;q=abc"));
        assert!(!accepts_gzip("gzip;q"));
        assert!(
            accepts_gzip("gzip;q=bad, *"),
            "malformed gzip member ignored, * still applies"
        );
        assert!(!accepts_gzip(&"gzip;q=0,".repeat(1000)));
    }

    #[test]
    fn the_smallest_of_equal_q_values_wins() {
        assert_eq!(chosen("gzip, deflate, br, zstd", &ALL), Some(Encoding::Br));
        assert_eq!(chosen("zstd, gzip", &ALL), Some(Encoding::Zstd));
        assert_eq!(chosen("*", &ALL), Some(Encoding::Br));
        assert_eq!(
            chosen(
                "br, zstd, gzip",
                &[(Encoding::Gzip, 30), (Encoding::Zstd, 19)]
            ),
            Some(Encoding::Zstd),
            "the smallest stored variant, whatever its name"
        );
    }

    #[test]
    fn the_highest_q_value_wins_over_size() {
        assert_eq!(chosen("br;q=0.5, gzip", &ALL), Some(Encoding::Gzip));
        assert_eq!(
            chosen("br;q=0.5, zstd;q=0.8, gzip;q=0.1", &ALL),
            Some(Encoding::Zstd)
        );
        assert_eq!(chosen("gzip;q=0.2, *;q=0.5", &ALL), Some(Encoding::Br));
    }

    #[test]
    fn q_zero_excludes_and_star_covers_what_is_not_named() {
        assert_eq!(chosen("br;q=0, gzip", &ALL), Some(Encoding::Gzip));
        assert_eq!(chosen("br;q=0, *", &ALL), Some(Encoding::Zstd));
        assert_eq!(chosen("*;q=0", &ALL), None);
        assert_eq!(
            chosen("gzip", &[(Encoding::Br, 20)]),
            None,
            "only what the file has"
        );
        assert_eq!(chosen("br", &[]), None);
    }

    #[test]
    fn identity_is_the_fallback_and_can_be_preferred() {
        assert_eq!(chosen("", &ALL), None, "an empty header asks for no coding");
        assert_eq!(chosen("identity", &ALL), None);
        assert_eq!(chosen("identity;q=1, br;q=0.5", &ALL), None);
        assert_eq!(chosen("identity;q=0.5, br", &ALL), Some(Encoding::Br));
        assert_eq!(
            chosen("identity;q=0.5, br;q=0.5", &ALL),
            Some(Encoding::Br),
            "a tie goes to the smaller"
        );
        assert_eq!(
            chosen("*;q=0.9, br;q=0.5", &ALL),
            Some(Encoding::Zstd),
            "* covers zstd at 0.9"
        );
        assert_eq!(
            chosen("identity;q=0", &ALL),
            None,
            "nothing acceptable: identity regardless"
        );
        let available = available(&ALL);
        let no_header = Accepted::parse(std::iter::empty());
        assert!(
            no_header.choose(&available).is_none(),
            "no header: identity"
        );
    }

    #[test]
    fn several_field_lines_are_one_list() {
        let mut headers = HeaderMap::new();
        headers.append("accept-encoding", HeaderValue::from_static("gzip"));
        headers.append("accept-encoding", HeaderValue::from_static("br"));
        let accepted = Accepted::parse(
            headers
                .get_all("accept-encoding")
                .iter()
                .map(HeaderValue::as_bytes),
        );
        assert_eq!(
            accepted
                .choose(&available(&ALL))
                .map(|representation| representation.encoding),
            Some(Encoding::Br)
        );
    }
}
