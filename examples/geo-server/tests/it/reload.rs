//! Swapping a mapped database: replaced by rename, verified, swapped; a corrupt one refused.

use geo_server::db::GeoDb;
use geo_server::language::Language;

use crate::support::{sample_file, write_other_database};

fn city_of(db: &GeoDb, ip: &str) -> String {
    let json = db
        .lookup(ip.parse().expect("address"), Language::English)
        .expect("lookup")
        .expect("found");
    let value: serde_json::Value = serde_json::from_slice(&json).expect("json");
    value["city"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_database_replaced_by_rename_is_swapped_in_and_a_corrupt_one_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = sample_file(dir.path());
    // SAFETY: the test replaces `live` only by rename, as the contract asks.
    let db = unsafe { GeoDb::mapped(&live) }.expect("mapped");
    assert_eq!(city_of(&db, "81.2.69.160"), "London");

    // A lookup in flight keeps using the old map: hold its answer across the swap.
    let next = dir.path().join("next.mmdb");
    write_other_database(&next, "Test-City", "Testville");
    std::fs::rename(&next, &live).expect("rename");
    assert_eq!(
        city_of(&db, "81.2.69.160"),
        "London",
        "nothing changes before the reload"
    );
    let info = db.reload().expect("valid replacement");
    assert_eq!(info.database_type, "Test-City");
    assert_eq!(city_of(&db, "81.2.69.160"), "Testville");

    let corrupt = dir.path().join("corrupt.mmdb");
    std::fs::write(&corrupt, b"definitely not a MaxMind database").expect("write");
    std::fs::rename(&corrupt, &live).expect("rename");
    let error = db.reload().expect_err("corrupt replacement");
    assert!(
        error.to_string().contains("not a valid MaxMind DB"),
        "{error}"
    );
    assert_eq!(
        city_of(&db, "81.2.69.160"),
        "Testville",
        "the old database stays"
    );
    assert_eq!(db.info().database_type, "Test-City");
}

#[test]
fn the_identity_recorded_is_of_the_file_that_was_read() {
    use geo_server::private_copy::{FileIdentity, PrivateCopy};
    let dir = tempfile::tempdir().expect("tempdir");
    let live = sample_file(dir.path());
    let db = GeoDb::mapped_copy(&live, PrivateCopy::Tmpfile).expect("mapped");
    let read = FileIdentity::at(&live);
    assert_eq!(
        db.info().file,
        read,
        "the descriptor read is the file at the path"
    );
    // Another file renamed over the path after the load: the watcher compares the path with
    // what was loaded, so it sees the change whenever it looks.
    let next = dir.path().join("next.mmdb");
    write_other_database(&next, "Test-City", "Testville");
    std::fs::rename(&next, &live).expect("rename");
    assert_ne!(db.info().file, FileIdentity::at(&live));
    db.reload().expect("reload");
    assert_eq!(db.info().file, FileIdentity::at(&live));
    assert_eq!(city_of(&db, "81.2.69.160"), "Testville");
    // The ETag identity is of the bytes mapped: another file, another identity.
    let first = GeoDb::mapped_copy(&sample_file(dir.path()), PrivateCopy::Memfd)
        .expect("sample")
        .info()
        .identity;
    assert_ne!(first, db.info().identity);
}

#[test]
fn a_path_that_is_not_a_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo.mmdb");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Opening a FIFO for reading waits for a writer: a load must never hang on one.
    let refused = GeoDb::mapped_copy(&fifo, geo_server::private_copy::PrivateCopy::Tmpfile)
        .expect_err("a FIFO is no database");
    assert!(
        refused.to_string().contains("not a regular file"),
        "{refused}"
    );
    let refused = GeoDb::copied_from_file(dir.path()).expect_err("a directory is no database");
    assert!(
        refused.to_string().contains("not a regular file"),
        "{refused}"
    );
}
