//! Parsing the address of `/geo/<ip>` strictly: no octal, no zone ids, mapped IPv6 normalised.

use std::net::IpAddr;

/// Why an address was refused (answered with 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// Nothing was given.
    #[error("missing IP address")]
    Empty,
    /// Longer than any IP address can be.
    #[error("not an IP address: too long")]
    TooLong,
    /// An IPv6 zone id (`fe80::1%eth0`) names an interface of the client's machine.
    #[error("IPv6 zone ids are not supported")]
    ZoneId,
    /// Anything else that is not an IPv4 or IPv6 address.
    #[error("not an IP address (leading zeros, trailing dots and spaces are not accepted)")]
    Malformed,
}

/// Parses an IPv4 or IPv6 address. Leading zeros (`010.1.1.1`) are refused rather than read as
/// octal or decimal; IPv4-mapped IPv6 (`::ffff:8.8.8.8`) becomes the IPv4 address.
///
/// ```
/// use geo_server::address::{AddressError, parse};
/// assert_eq!(parse("::ffff:8.8.8.8").unwrap().to_string(), "8.8.8.8");
/// assert_eq!(parse("010.1.1.1"), Err(AddressError::Malformed));
/// assert_eq!(parse("fe80::1%eth0"), Err(AddressError::ZoneId));
/// ```
pub fn parse(text: &str) -> Result<IpAddr, AddressError> {
    if text.is_empty() {
        return Err(AddressError::Empty);
    }
    // The longest IPv6 text form (IPv4-mapped, full width) is 45 characters.
    if text.len() > 45 {
        return Err(AddressError::TooLong);
    }
    if text.contains('%') {
        return Err(AddressError::ZoneId);
    }
    // The standard parser already refuses leading zeros in IPv4 octets, trailing dots and
    // whitespace; a test pins that down.
    let address: IpAddr = text.parse().map_err(|_| AddressError::Malformed)?;
    Ok(address.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::{AddressError, parse};

    #[test]
    fn accepts_v4_v6_and_mapped() {
        assert_eq!(parse("8.8.8.8").expect("valid").to_string(), "8.8.8.8");
        assert_eq!(
            parse("2001:4860:4860::8888").expect("valid").to_string(),
            "2001:4860:4860::8888"
        );
        assert_eq!(
            parse("2001:4860:4860:0:0:0:0:8888")
                .expect("valid")
                .to_string(),
            "2001:4860:4860::8888"
        );
        assert_eq!(
            parse("::FFFF:81.2.69.160").expect("valid").to_string(),
            "81.2.69.160"
        );
        assert_eq!(parse("::1").expect("valid").to_string(), "::1");
    }

    #[test]
    fn refuses_everything_else() {
        for text in [
            "010.1.1.1",
            "8.8.8.08",
            "8.8.8.8.",
            "8.8.8",
            "8.8.8.8.8",
            "256.1.1.1",
            " 8.8.8.8",
            "8.8.8.8 ",
            "0x8.8.8.8",
            "8.8.8.8/24",
            "[::1]",
            "::ffff:010.1.1.1",
            "abc",
            "1.2.3.-4",
            "١.١.١.١",
            "8.8.8.8\0",
        ] {
            assert_eq!(parse(text), Err(AddressError::Malformed), "{text:?}");
        }
        assert_eq!(parse(""), Err(AddressError::Empty));
        assert_eq!(parse(&"1".repeat(10_000)), Err(AddressError::TooLong));
        assert_eq!(parse("fe80::1%eth0"), Err(AddressError::ZoneId));
        assert_eq!(parse("%00"), Err(AddressError::ZoneId));
    }
}
