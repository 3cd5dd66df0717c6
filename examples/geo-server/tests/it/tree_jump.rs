//! The jump table into the search tree finds what maxminddb's own walk finds, for IPv4 and
//! IPv6, found and not found, in trees of every record size and both IP versions; on a broken
//! tree it defers to maxminddb and the answer is its error, never another record's bytes.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use bindery_test_support::Xorshift;
use geo_server::db::GeoDb;
use geo_server::language::Language;
use geo_server::tree_jump::{Found, TreeJump};
use maxminddb::Reader;
use mmdb_writer::{IpVersion, RecordSize, Writer};

/// Networks of every depth around the table's 16 bits, and IPv6 ones beside them.
const IPV4_NETWORKS: [&str; 12] = [
    "1.0.0.0/8",
    "20.16.0.0/12",
    "30.2.0.0/15",
    "40.3.0.0/16",
    "50.4.128.0/17",
    "60.5.6.0/23",
    "70.6.7.0/24",
    "80.7.8.128/25",
    "90.8.9.10/31",
    "100.9.10.11/32",
    "81.2.68.0/22",
    "223.255.255.0/24",
];
const IPV6_NETWORKS: [&str; 6] = [
    "2001:db8::/32",
    "2a00::/12",
    "2c0f:f000::/20",
    "2600:1f00::/24",
    "2400:cb00:2048::/48",
    "2001:4860:4860::8888/128",
];

/// A database of the networks above, each with a record naming it.
fn database(version: IpVersion, size: RecordSize) -> Vec<u8> {
    let mut writer = Writer::builder("GeoIP2-City")
        .ip_version(version)
        .record_size(size)
        .build_epoch(std::time::UNIX_EPOCH)
        .build();
    #[derive(serde::Serialize)]
    struct Record<'a> {
        network: &'a str,
    }
    let v6 = matches!(version, IpVersion::V6);
    let networks = IPV4_NETWORKS
        .iter()
        .chain(IPV6_NETWORKS.iter().filter(|_| v6));
    for network in networks {
        let parsed: ipnet::IpNet = network.parse().expect("a network");
        writer.insert(parsed, &Record { network }).expect("insert");
    }
    writer.to_bytes().expect("bytes")
}

/// Addresses at the edges of and inside every network, and random ones of both families.
fn addresses(count: usize) -> Vec<IpAddr> {
    let mut random = Xorshift::new(3);
    let mut addresses = Vec::new();
    for network in IPV4_NETWORKS.iter().chain(&IPV6_NETWORKS) {
        let network: ipnet::IpNet = network.parse().expect("a network");
        addresses.extend([network.network(), network.broadcast()]);
        // One past each end, where the neighbouring branch of the tree starts.
        match (network.network(), network.broadcast()) {
            (IpAddr::V4(first), IpAddr::V4(last)) => addresses.extend([
                IpAddr::V4(Ipv4Addr::from(u32::from(first).wrapping_sub(1))),
                IpAddr::V4(Ipv4Addr::from(u32::from(last).wrapping_add(1))),
            ]),
            (IpAddr::V6(first), IpAddr::V6(last)) => addresses.extend([
                IpAddr::V6(Ipv6Addr::from(u128::from(first).wrapping_sub(1))),
                IpAddr::V6(Ipv6Addr::from(u128::from(last).wrapping_add(1))),
            ]),
            _ => unreachable!("a network's ends are of one family"),
        }
    }
    while addresses.len() < count {
        let word = random.next().expect("endless");
        addresses.push(IpAddr::V4(Ipv4Addr::from((word >> 32) as u32)));
        // Mostly under 2000::/3, where the IPv6 networks are.
        let high = 0x2000_u128 | u128::from(word as u16 & 0x0fff);
        addresses.push(IpAddr::V6(Ipv6Addr::from(
            high << 112 | u128::from(word.rotate_left(9)),
        )));
    }
    addresses
}

/// What maxminddb answers for `ip`: the record's offset and the network's prefix, or nothing.
fn expected<S: AsRef<[u8]>>(reader: &Reader<S>, ip: IpAddr) -> Option<Found> {
    let result = reader.lookup(ip).ok()?;
    Some(match result.offset() {
        Some(offset) => Found::Data {
            offset,
            prefix: result.network().expect("a network").prefix(),
        },
        None => Found::Nothing,
    })
}

#[test]
fn the_jump_table_finds_what_maxminddb_finds_in_trees_of_every_record_size() {
    let addresses = addresses(10_000);
    for version in [IpVersion::V6, IpVersion::V4] {
        for size in [RecordSize::Bits24, RecordSize::Bits28, RecordSize::Bits32] {
            let bytes = database(version, size);
            let reader = Reader::from_source(bytes.as_slice()).expect("a reader");
            let jump = TreeJump::new(bytes.as_slice(), reader.metadata()).expect("a tree");
            let (mut found, mut nothing) = (0, 0);
            for ip in &addresses {
                let expected = expected(&reader, *ip);
                if ip.is_ipv6() && matches!(version, IpVersion::V4) {
                    // maxminddb refuses IPv6 in an IPv4 tree; the table has nothing to say.
                    assert_eq!(expected, None);
                    assert_eq!(jump.find(*ip), None, "{ip}");
                    continue;
                }
                assert_eq!(jump.find(*ip), expected, "{ip} in {version:?} {size:?}");
                match expected {
                    Some(Found::Data { .. }) => found += 1,
                    _ => nothing += 1,
                }
            }
            assert!(
                found > 40 && nothing > 1_000,
                "{found} found, {nothing} not"
            );
        }
    }
}

#[test]
fn the_jump_table_finds_what_maxminddb_finds_in_the_embedded_database() {
    // The sample, or GeoLite2 City where `cargo xtask geodb` fetched it.
    let reader = Reader::from_source(geodb::DATABASE).expect("a reader");
    let jump = TreeJump::new(geodb::DATABASE, reader.metadata()).expect("a tree");
    assert_eq!(jump.heap_bytes(), 2 * (65_536 * 4 + 65_536));
    let mut random = Xorshift::new(11);
    for _ in 0..10_000 {
        let word = random.next().expect("endless");
        for ip in [
            IpAddr::V4(Ipv4Addr::from((word >> 32) as u32)),
            IpAddr::V6(Ipv6Addr::from(u128::from(word) << 64 | u128::from(!word))),
        ] {
            assert_eq!(jump.find(ip), expected(&reader, ip), "{ip}");
        }
    }
    let london: IpAddr = "81.2.69.160".parse().expect("an address");
    assert!(matches!(jump.find(london), Some(Found::Data { .. })));
}

/// Where node `node`'s `bit` record sits in a 28-bit tree, and writes `value` there.
fn set_record_28(bytes: &mut [u8], node: usize, bit: usize, value: u32) {
    let at = node * 7;
    let [top, high, middle, low] = value.to_be_bytes();
    if bit == 0 {
        bytes[at..at + 3].copy_from_slice(&[high, middle, low]);
        bytes[at + 3] = (bytes[at + 3] & 0x0f) | (top << 4);
    } else {
        bytes[at + 3] = (bytes[at + 3] & 0xf0) | (top & 0x0f);
        bytes[at + 4..at + 7].copy_from_slice(&[high, middle, low]);
    }
}

/// The node the walk of `ip`'s first `depth` bits reaches in a 28-bit IPv4 tree.
fn node_at(bytes: &[u8], ip: Ipv4Addr, depth: u32) -> usize {
    let mut node = 0;
    for level in 0..depth {
        let bit = (u32::from(ip) >> (31 - level)) & 1;
        let at = node * 7;
        let b = &bytes[at..at + 7];
        node = if bit == 0 {
            u32::from_be_bytes([b[3] >> 4, b[0], b[1], b[2]])
        } else {
            u32::from_be_bytes([b[3] & 0x0f, b[4], b[5], b[6]])
        } as usize;
    }
    node
}

#[test]
fn a_broken_tree_gets_maxminddb_error_never_an_answer_from_another_record() {
    let good = database(IpVersion::V4, RecordSize::Bits28);
    let reader = Reader::from_source(good.as_slice()).expect("a reader");
    let node_count = reader.metadata().node_count;
    let ip = Ipv4Addr::new(70, 6, 7, 9);
    // The deepest node of 70.6.7.0/24's path: its record now points into the separator, or
    // past the end of the data section, below and above the table's 16 bits.
    for (depth, value) in [
        (23, node_count + 3),
        (23, u32::MAX >> 4),
        (10, node_count + 15),
        (4, (1 << 28) - 1),
    ] {
        let mut broken = good.clone();
        let node = node_at(&broken, ip, depth);
        let bit = ((u32::from(ip) >> (31 - depth)) & 1) as usize;
        set_record_28(&mut broken, node, bit, value);
        let broken: &'static [u8] = Box::leak(broken.into_boxed_slice());
        let db = GeoDb::embedded(broken, "broken").expect("maxminddb reads the metadata");
        // Twice: the second time an answer would come from the cache if the first had one.
        for _ in 0..2 {
            let answer = db.lookup(IpAddr::V4(ip), Language::English);
            assert!(answer.is_err(), "depth {depth}, value {value}: {answer:?}");
        }
        // The rest of the tree answers as before.
        let other = db
            .lookup(
                "100.9.10.11".parse().expect("an address"),
                Language::English,
            )
            .expect("a lookup");
        assert!(other.is_some());
    }
}

#[test]
fn a_tree_longer_than_its_bytes_has_no_table() {
    let bytes = database(IpVersion::V6, RecordSize::Bits24);
    let reader = Reader::from_source(bytes.as_slice()).expect("a reader");
    let metadata = reader.metadata();
    let tree = metadata.node_count as usize * 6;
    assert!(TreeJump::new(&bytes[..tree - 1], metadata).is_none());
    assert!(TreeJump::new(&bytes[..tree], metadata).is_some());
}
