//! The floors `cargo xtask bench-nginx` measures bindery against must answer what bindery
//! answers, or the comparison is not one: `bench-plain --handler bare-axum|bare-hyper` sends the
//! same bytes as `ServeCatalog` at the same paths, and `bench-bare --geo` the same JSON as
//! geo-server's lookup; `bench-bare --geo-floor fixed|walk` one of those answers, after no lookup
//! or after the walk down the tree.

use std::process::{Child, Command};

use bindery_test_support::{raw_request, spawn_with_first_line};

/// A bench server started on a free port, killed when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(program: &str, args: &[&str]) -> Server {
        let (child, line) = spawn_with_first_line(Command::new(program).args(args));
        let address = line
            .strip_prefix("listening addr=")
            .unwrap_or_else(|| panic!("a listening line, not {line:?}"))
            .to_owned();
        Server { child, address }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const PLAIN: &str = env!("CARGO_BIN_EXE_bench-plain");
const BARE: &str = env!("CARGO_BIN_EXE_bench-bare");

#[test]
fn the_floors_send_the_bytes_serve_catalog_sends() {
    let catalog = Server::start(PLAIN, &[]);
    let floors = [
        Server::start(PLAIN, &["--handler", "bare-axum"]),
        Server::start(PLAIN, &["--handler", "bare-axum", "--zero-copy"]),
        Server::start(PLAIN, &["--handler", "bare-hyper"]),
        Server::start(PLAIN, &["--handler", "bare-hyper", "--zero-copy"]),
    ];
    for path in ["/web/vue.min.js", "/large/noise.bin"] {
        let expected = raw_request(&catalog.address, "GET", path, &[]);
        assert_eq!(expected.status, 200, "{path}");
        assert!(expected.body.len() > 100_000, "{path}: a real file");
        for floor in &floors {
            let answer = raw_request(&floor.address, "GET", path, &[]);
            assert_eq!(answer.status, 200, "{path}");
            assert_eq!(
                answer.header("content-type"),
                expected.header("content-type"),
                "{path}"
            );
            assert!(answer.body == expected.body, "{path}: the same bytes");
        }
    }
    for floor in &floors {
        for path in ["/web/missing.js", "/web/vue.min.js/x", "/"] {
            assert_eq!(
                raw_request(&floor.address, "GET", path, &[]).status,
                404,
                "{path}"
            );
        }
    }
}

#[test]
fn the_geo_floor_answers_geo_servers_json() {
    let db = geo_server::db::GeoDb::embedded_with_hash(
        geodb::DATABASE,
        geodb::ORIGIN,
        geodb::DATABASE_BLAKE3,
    )
    .expect("the embedded database opens");
    let floor = Server::start(BARE, &["--geo"]);
    let mut found = 0;
    for address in ["8.8.8.8", "81.2.69.142", "2.125.160.216", "10.0.0.1", "::1"] {
        let answer = raw_request(&floor.address, "GET", &format!("/geo/{address}"), &[]);
        let ip = address.parse().expect("an address");
        match db
            .lookup(ip, geo_server::language::Language::English)
            .expect("a lookup")
        {
            Some(json) => {
                found += 1;
                assert_eq!(answer.status, 200, "{address}");
                assert_eq!(answer.header("content-type"), Some("application/json"));
                assert_eq!(answer.body, json, "{address}");
            }
            None => assert_eq!(answer.status, 404, "{address}"),
        }
    }
    assert!(found > 0, "some address is in the database");
    assert_eq!(
        raw_request(&floor.address, "GET", "/geo/not-an-address", &[]).status,
        400
    );
    // Without `--geo` the reference has no such route: its route table is the one measured.
    let reference = Server::start(BARE, &[]);
    assert_eq!(
        raw_request(&reference.address, "GET", "/geo/8.8.8.8", &[]).status,
        404
    );
    assert_eq!(
        raw_request(&reference.address, "GET", "/small.txt", &[]).status,
        200
    );
}

#[test]
fn the_lookup_floors_answer_one_of_geo_servers_answers_after_as_much_of_a_lookup_as_they_say() {
    let db = geo_server::db::GeoDb::embedded_with_hash(
        geodb::DATABASE,
        geodb::ORIGIN,
        geodb::DATABASE_BLAKE3,
    )
    .expect("the embedded database opens");
    let fixed = Server::start(BARE, &["--geo-floor", "fixed"]);
    let walk = Server::start(BARE, &["--geo-floor", "walk"]);
    let typical = raw_request(&fixed.address, "GET", "/geo/8.8.8.8", &[]);
    assert_eq!(typical.status, 200);
    assert_eq!(typical.header("content-type"), Some("application/json"));
    // The fixed answer is geo-server's own answer for the address it names.
    let json: serde_json::Value = serde_json::from_slice(&typical.body).expect("JSON");
    let named = json["ip"]
        .as_str()
        .expect("an ip field")
        .parse()
        .expect("an address");
    let expected = db
        .lookup(named, geo_server::language::Language::English)
        .expect("a lookup")
        .expect("an answer for the address the fixed answer names");
    assert_eq!(typical.body, expected);
    let named = named.to_string();
    let mut answered = 0;
    for address in [named.as_str(), "8.8.8.8", "81.2.69.142", "10.0.0.1", "::1"] {
        let path = format!("/geo/{address}");
        // No lookup: every address gets the same answer.
        let answer = raw_request(&fixed.address, "GET", &path, &[]);
        assert_eq!(
            (answer.status, &answer.body),
            (200, &typical.body),
            "{address}"
        );
        // After the walk: the same answer, or 404 where the tree has nothing, as geo-server's.
        let found = db
            .lookup(
                address.parse().expect("an address"),
                geo_server::language::Language::English,
            )
            .expect("a lookup")
            .is_some();
        let answer = raw_request(&walk.address, "GET", &path, &[]);
        if found {
            answered += 1;
            assert_eq!(
                (answer.status, &answer.body),
                (200, &typical.body),
                "{address}"
            );
        } else {
            assert_eq!(answer.status, 404, "{address}");
        }
    }
    // The named address and at least one of the private ones: both branches were taken.
    assert!((1..5).contains(&answered), "{answered}");
    for floor in [&fixed, &walk] {
        assert_eq!(
            raw_request(&floor.address, "GET", "/geo/not-an-address", &[]).status,
            400
        );
    }
}
