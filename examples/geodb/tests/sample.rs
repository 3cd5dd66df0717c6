//! The sample database reads back with `maxminddb` as the text source describes.

use std::net::IpAddr;

use maxminddb::{Reader, geoip2};

fn reader() -> Reader<&'static [u8]> {
    Reader::from_source(geodb::SAMPLE).expect("sample opens")
}

fn city(ip: &str) -> Option<geoip2::City<'static>> {
    static READER: std::sync::LazyLock<Reader<&'static [u8]>> = std::sync::LazyLock::new(reader);
    let ip: IpAddr = ip.parse().expect("address");
    READER.lookup(ip).expect("lookup").decode().expect("decode")
}

#[test]
fn spot_checks_match_geolite2() {
    let google = city("8.8.8.8").expect("8.8.8.8 is in the sample");
    assert_eq!(google.country.iso_code, Some("US"));
    assert_eq!(
        google.city.names.english, None,
        "country-only, as in GeoLite2"
    );

    let london = city("81.2.69.160").expect("81.2.69.160 is in the sample");
    assert_eq!(london.country.iso_code, Some("GB"));
    assert_eq!(london.city.names.english, Some("London"));
    assert_eq!(london.city.names.german, Some("London"));
    assert_eq!(london.location.time_zone, Some("Europe/London"));
    assert_eq!(london.subdivisions[0].iso_code, Some("ENG"));

    let v6 = city("2001:4860:4860::8888").expect("IPv6 is in the sample");
    assert_eq!(v6.city.names.english, Some("Mountain View"));
    assert_eq!(v6.postal.code, Some("94043"));
}

#[test]
fn private_and_reserved_space_has_no_data() {
    for ip in [
        "10.0.0.1",
        "192.168.1.1",
        "127.0.0.1",
        "::1",
        "fe80::1",
        "0.0.0.0",
    ] {
        assert!(city(ip).is_none(), "{ip}");
    }
}

#[test]
fn every_network_of_the_source_resolves_to_its_city() {
    let source: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/geo/sample-city.json")).expect("json");
    let networks = source["networks"].as_array().expect("networks");
    assert!(networks.len() >= 300);
    let mut v6 = 0;
    for network in networks {
        let parsed: ipnet::IpNet = network["network"]
            .as_str()
            .expect("text")
            .parse()
            .expect("network");
        v6 += usize::from(matches!(parsed, ipnet::IpNet::V6(_)));
        let found = city(&parsed.addr().to_string()).unwrap_or_else(|| panic!("{parsed} missing"));
        let key = network["city"].as_str().expect("key");
        let expected = source["cities"]
            .as_array()
            .expect("cities")
            .iter()
            .find(|city| city["key"] == key)
            .expect("city");
        assert_eq!(
            found.location.latitude,
            expected["latitude"].as_f64(),
            "{parsed}"
        );
    }
    assert!(v6 >= 20, "IPv6 networks: {v6}");
}

#[test]
fn the_sample_verifies_and_carries_its_metadata() {
    let reader = reader();
    reader.verify().expect("valid");
    let metadata = reader.metadata();
    assert_eq!(metadata.database_type, "bindery-Sample-City");
    assert_eq!(metadata.ip_version, 6);
    assert_eq!(metadata.build_epoch, 1_543_449_600);
    assert!(metadata.languages.iter().any(|language| language == "de"));
}
