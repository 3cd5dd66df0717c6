//! geo-server's answers equal what MaxMind's own C library, libmaxminddb, reads from the same
//! file: the same record (projected onto the answer's fields, English names) and the same
//! network, for 10,000 addresses of both families, found and not found, first rendered and then
//! from the answer cache through the tree's jump table. libmaxminddb is reached through
//! Debian's `python3-maxminddb` in its C-extension mode, which refuses to run without it.

use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::process::{Command, Stdio};

use bindery_test_support::Xorshift;
use geo_server::db::GeoDb;
use geo_server::language::Language;
use serde_json::{Value, json};

use crate::answers::{inside, sample_networks};

/// Reads addresses from stdin and prints `[prefix length, record or null]` per line.
const LOOKUPS: &str = r#"
import json, sys, maxminddb, maxminddb.extension
reader = maxminddb.open_database(sys.argv[1], maxminddb.MODE_MMAP_EXT)
assert type(reader) is maxminddb.extension.Reader, type(reader)
for line in sys.stdin:
    record, prefix = reader.get_with_prefix_len(line.strip())
    print(json.dumps([prefix, record]))
"#;

/// Addresses inside the sample's networks (found in the sample, and mostly in GeoLite2), and
/// random ones of both families.
fn addresses() -> Vec<IpAddr> {
    let mut random = Xorshift::new(2024);
    let mut next = move || random.next().expect("endless");
    let networks = sample_networks();
    let mut addresses = Vec::new();
    while addresses.len() < 4_000 {
        for network in &networks {
            addresses.push(inside(network, next()));
        }
    }
    while addresses.len() < 10_000 {
        let word = next();
        addresses.push(IpAddr::V4(Ipv4Addr::from((word >> 32) as u32)));
        // Under the regional registries' busiest blocks, where GeoLite2 has most of its data.
        let block = [0x2001_u128, 0x2400, 0x2600, 0x2a00][(word % 4) as usize];
        let high = block | u128::from(word as u16 >> 12);
        addresses.push(IpAddr::V6(Ipv6Addr::from(
            high << 112 | u128::from(word.rotate_left(7)),
        )));
    }
    addresses
}

/// libmaxminddb's `[prefix, record]` for each address.
fn libmaxminddb(database: &std::path::Path, addresses: &[IpAddr]) -> Vec<(u8, Value)> {
    let mut child = Command::new("/usr/bin/python3")
        .args(["-c", LOOKUPS])
        .arg(database)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Debian's python3 (`apt-get install python3-maxminddb`)");
    let mut input = child.stdin.take().expect("stdin");
    let text: String = addresses.iter().map(|ip| format!("{ip}\n")).collect();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let output = child.wait_with_output().expect("python3");
    assert!(
        output.status.success(),
        "libmaxminddb through python3-maxminddb failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    writer.join().expect("writer").expect("addresses written");
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let [prefix, record]: [Value; 2] =
                serde_json::from_str(line).expect("[prefix, record]");
            let prefix = u8::try_from(prefix.as_u64().expect("a prefix")).expect("at most 128");
            (prefix, record)
        })
        .collect()
}

/// The answer geo-server should give from libmaxminddb's record: its fields, names in English.
fn projected(ip: IpAddr, prefix: u8, record: &Value) -> Value {
    let name = |place: &Value| place["names"]["en"].clone();
    let place = |place: &Value| json!({ "iso_code": place["iso_code"], "name": name(place) });
    let subdivisions: Vec<Value> = record["subdivisions"]
        .as_array()
        .map(|all| all.iter().map(place).collect())
        .unwrap_or_default();
    let location = &record["location"];
    let network = geo_server::address::mask(ip, prefix);
    json!({
        "ip": ip.to_string(),
        "network": format!("{network}/{prefix}"),
        "continent": { "code": record["continent"]["code"], "name": name(&record["continent"]) },
        "country": place(&record["country"]),
        "subdivisions": subdivisions,
        "city": name(&record["city"]),
        "postal": record["postal"]["code"],
        "location": {
            "latitude": location["latitude"],
            "longitude": location["longitude"],
            "accuracy_radius": location["accuracy_radius"],
            "time_zone": location["time_zone"],
        },
        "registered_country": place(&record["registered_country"]),
    })
}

#[test]
fn answers_equal_libmaxminddb_on_ten_thousand_addresses() {
    if !bindery_test_support::slow_test(
        "geo-server",
        "answers_equal_libmaxminddb_on_ten_thousand_addresses",
        "Debian's python3-maxminddb, MaxMind's C reader",
    ) {
        return;
    }
    // The sample, or GeoLite2 City where `cargo xtask geodb` fetched it.
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("city.mmdb");
    std::fs::write(&path, geodb::DATABASE).expect("the database written");
    let addresses = addresses();
    let expected = libmaxminddb(&path, &addresses);
    assert_eq!(expected.len(), addresses.len());
    let db = GeoDb::embedded(geodb::DATABASE, geodb::ORIGIN).expect("the database");
    let (mut found, mut missing) = ([0; 2], [0; 2]);
    // First rendered from the record, then the same again from the answer cache.
    for pass in ["rendered", "cached"] {
        for (ip, (prefix, record)) in addresses.iter().zip(&expected) {
            let answer = db.lookup(*ip, Language::English).expect("a lookup");
            let family = usize::from(ip.is_ipv6());
            match (answer, record.is_null()) {
                (None, true) => missing[family] += 1,
                (Some(json), false) => {
                    let served: Value = serde_json::from_slice(&json).expect("JSON");
                    assert_eq!(served, projected(*ip, *prefix, record), "{ip} ({pass})");
                    found[family] += 1;
                }
                (answer, _) => {
                    panic!("{ip} ({pass}): geo-server {answer:?}, libmaxminddb {record}")
                }
            }
        }
    }
    // Both families, found and not found, in each pass.
    for family in 0..2 {
        assert!(found[family] >= 2 * 50, "{found:?} found");
        assert!(missing[family] >= 2 * 50, "{missing:?} missing");
    }
    assert!(db.answer_cache_stats().hits > 0);
}
