//! Any `/geo/<ip>` text: accepted addresses print back to an address that parses to itself, are
//! canonical (no IPv4-mapped IPv6), and never come from text with a zone id or leading zeros.
#![no_main]

use std::net::IpAddr;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(ip) = geo_server::address::parse(text) {
        assert!(!text.contains('%'));
        assert_eq!(ip.to_string().parse::<IpAddr>().ok(), Some(ip));
        assert_eq!(ip.to_canonical(), ip);
        let has_leading_zero = text.split('.').any(|octet| {
            octet.len() > 1 && octet.starts_with('0') && octet.bytes().all(|b| b.is_ascii_digit())
        });
        assert!(!has_leading_zero, "{text:?} has a leading zero");
    }
});
