//! The JSON of `/geo/<ip>` is exactly what the reference renderer makes from maxminddb's full
//! `geoip2::City` record, for every address of every network of the sample database (and random
//! misses) in every language. The server decodes only the fields and the one language it shows;
//! this keeps it byte for byte what decoding everything gave.

use std::net::IpAddr;

use bindery_test_support::Xorshift;
use geo_server::db::GeoDb;
use geo_server::language::Language;
use maxminddb::Reader;

use crate::reference;

/// Every network of the sample database, from the JSON it is built from.
pub(crate) fn sample_networks() -> Vec<ipnet::IpNet> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/geo/sample-city.json"
    );
    let text = std::fs::read_to_string(path).expect("the sample's source");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["networks"]
        .as_array()
        .expect("networks")
        .iter()
        .map(|entry| {
            entry["network"]
                .as_str()
                .expect("a network")
                .parse()
                .expect("CIDR")
        })
        .collect()
}

/// An address inside `network`, chosen by `random`.
pub(crate) fn inside(network: &ipnet::IpNet, random: u64) -> IpAddr {
    match network {
        ipnet::IpNet::V4(net) => {
            let host_bits = 32 - u32::from(net.prefix_len());
            let offset = if host_bits == 0 {
                0
            } else {
                (random as u32) & (u32::MAX >> (32 - host_bits))
            };
            IpAddr::V4(std::net::Ipv4Addr::from(u32::from(net.network()) | offset))
        }
        ipnet::IpNet::V6(net) => {
            let host_bits = 128 - u32::from(net.prefix_len());
            let wide = u128::from(random) << 64 | u128::from(random.rotate_left(17));
            let offset = if host_bits == 0 {
                0
            } else {
                wide & (u128::MAX >> (128 - host_bits))
            };
            IpAddr::V6(std::net::Ipv6Addr::from(u128::from(net.network()) | offset))
        }
    }
}

/// Addresses of every network of the sample (eight each), then random ones, nearly all misses.
fn addresses() -> Vec<IpAddr> {
    let mut random = Xorshift::new(16);
    let mut addresses = Vec::new();
    for network in sample_networks() {
        for _ in 0..8 {
            addresses.push(inside(&network, random.next().expect("endless")));
        }
    }
    // Random addresses, nearly all outside the sample: both sides must agree there is nothing.
    for _ in 0..500 {
        let word = random.next().expect("endless");
        addresses.push(IpAddr::V4(std::net::Ipv4Addr::from((word >> 32) as u32)));
        addresses.push(IpAddr::V6(std::net::Ipv6Addr::from(
            u128::from(word) << 64 | u128::from(word),
        )));
    }
    addresses
}

/// Compares every answer of `db` with the reference renderer; returns (answers, misses).
fn compare_with_reference(db: &GeoDb, addresses: &[IpAddr]) -> (usize, usize) {
    let reader = Reader::from_source(geodb::SAMPLE).expect("a reader");
    let (mut found, mut missing) = (0, 0);
    for ip in addresses {
        for code in Language::CODES {
            let language = Language::from_code(code).expect("a language");
            let served = db.lookup(*ip, language).expect("lookup");
            let expected = reference::render(&reader, *ip, language);
            assert_eq!(
                served.as_deref().map(String::from_utf8_lossy),
                expected.as_deref().map(String::from_utf8_lossy),
                "{ip} in {code}"
            );
            match served {
                Some(_) => found += 1,
                None => missing += 1,
            }
        }
    }
    (found, missing)
}

#[test]
fn answers_are_byte_for_byte_the_full_record_rendering_in_every_language() {
    let db = GeoDb::embedded(geodb::SAMPLE, "sample")
        .expect("the sample database")
        .with_answer_cache(0);
    let (found, missing) = compare_with_reference(&db, &addresses());
    assert!(found > 20_000, "{found} answers compared");
    assert!(missing > 1_000, "{missing} misses compared");
    assert_eq!(db.answer_cache_stats().hits, 0, "no cache");
}

#[test]
fn answers_from_the_record_cache_are_the_same_bytes() {
    let addresses = addresses();
    // The default budget keeps every record: the first address of a network renders its record,
    // the seven others (and the same address in the other languages) copy it.
    let db = GeoDb::embedded(geodb::SAMPLE, "sample").expect("the sample database");
    let (found, _) = compare_with_reference(&db, &addresses);
    let stats = db.answer_cache_stats();
    assert!(stats.hits > 15_000, "{stats:?} of {found} answers");
    // Each record of the sample once per language.
    assert!(stats.misses >= 8 * 40, "{stats:?}");
    assert_eq!(stats.entries as u64, stats.misses, "{stats:?}");
    assert!(
        stats.bytes > 0 && stats.bytes <= stats.budget as u64,
        "{stats:?}"
    );
    // A budget of a few answers evicts all the time and still answers the same.
    let tight = GeoDb::embedded(geodb::SAMPLE, "sample")
        .expect("the sample database")
        .with_answer_cache(4096);
    compare_with_reference(&tight, &addresses);
    let stats = tight.answer_cache_stats();
    assert!(stats.bytes <= 4096, "{stats:?}");
    assert!(stats.hits > 0, "{stats:?}");
}
