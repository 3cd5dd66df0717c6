//! Parsing the address of `/geo/<ip>` strictly (no octal, no zone ids, mapped IPv6
//! normalised), and writing addresses and networks into an answer as `Display` would, without
//! the formatting machinery on the path of every answer.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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

/// Appends `ip` as its `Display` writes it (IPv4 by hand: four numbers and three dots).
///
/// ```
/// let mut text = Vec::new();
/// geo_server::address::write_ip(&mut text, "81.2.69.160".parse().unwrap());
/// text.push(b' ');
/// geo_server::address::write_ip(&mut text, "2001:db8::1".parse().unwrap());
/// assert_eq!(text, b"81.2.69.160 2001:db8::1");
/// ```
pub fn write_ip(out: &mut Vec<u8>, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, d] = v4.octets();
            for (octet, separator) in [(a, b'.'), (b, b'.'), (c, b'.')] {
                write_decimal(out, octet);
                out.push(separator);
            }
            write_decimal(out, d);
        }
        IpAddr::V6(v6) => {
            use std::io::Write as _;
            // Writing to a `Vec` cannot fail.
            let _ = write!(out, "{v6}");
        }
    }
}

/// Appends `value` in decimal, without leading zeros.
///
/// ```
/// let mut text = Vec::new();
/// for value in [0, 7, 42, 255] {
///     geo_server::address::write_decimal(&mut text, value);
/// }
/// assert_eq!(text, b"0742255");
/// ```
pub fn write_decimal(out: &mut Vec<u8>, value: u8) {
    if value >= 100 {
        out.push(b'0' + value / 100);
    }
    if value >= 10 {
        out.push(b'0' + value / 10 % 10);
    }
    out.push(b'0' + value % 10);
}

/// `ip` with every bit after the first `prefix` cleared: the address of its network.
///
/// ```
/// use std::net::IpAddr;
/// let ip: IpAddr = "81.2.69.160".parse().unwrap();
/// assert_eq!(geo_server::address::mask(ip, 23).to_string(), "81.2.68.0");
/// assert_eq!(geo_server::address::mask(ip, 0).to_string(), "0.0.0.0");
/// assert_eq!(geo_server::address::mask(ip, 32), ip);
/// ```
pub fn mask(ip: IpAddr, prefix: u8) -> IpAddr {
    let prefix = u32::from(prefix);
    match ip {
        IpAddr::V4(v4) => {
            let kept = u32::MAX
                .checked_shl(32_u32.saturating_sub(prefix))
                .unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(v4) & kept))
        }
        IpAddr::V6(v6) => {
            let kept = u128::MAX
                .checked_shl(128_u32.saturating_sub(prefix))
                .unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(v6) & kept))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AddressError, mask, parse, write_ip};
    use std::net::{IpAddr, Ipv4Addr};

    #[test]
    fn writes_every_ipv4_octet_and_masks_at_every_prefix_as_display_does() {
        let mut text = Vec::new();
        for octet in 0..=255_u8 {
            let ip = IpAddr::V4(Ipv4Addr::new(octet, 255 - octet, octet / 3, 10));
            text.clear();
            write_ip(&mut text, ip);
            assert_eq!(text, ip.to_string().as_bytes());
        }
        let ip: IpAddr = "255.254.253.252".parse().expect("valid");
        let v6: IpAddr = "ffff:eeee:dddd:cccc:bbbb:aaaa:9999:8888"
            .parse()
            .expect("valid");
        for prefix in 0..=128_u8 {
            if prefix <= 32 {
                let expected = ipnet::IpNet::new(ip, prefix).expect("prefix").network();
                assert_eq!(mask(ip, prefix), expected, "/{prefix}");
            }
            let expected = ipnet::IpNet::new(v6, prefix).expect("prefix").network();
            assert_eq!(mask(v6, prefix), expected, "/{prefix}");
        }
    }

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
