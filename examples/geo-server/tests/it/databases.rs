//! Loading databases: each mode's costs, and bad files refused with a typed error.

use geo_server::db::{DbError, DbMode, GeoDb};
use geo_server::private_copy::PrivateCopy;

use crate::support::{sample_file, write_other_database};

#[test]
fn every_mode_loads_and_reports_itself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let embedded = GeoDb::embedded(geodb::SAMPLE, "sample")
        .expect("embed")
        .info();
    let copied = GeoDb::copied(geodb::SAMPLE, "sample").expect("copy").info();
    // SAFETY: the test's own file, never modified while mapped.
    let mapped = unsafe { GeoDb::mapped(&sample_file(dir.path())) }
        .expect("mmap")
        .info();
    assert_eq!(
        (embedded.mode, copied.mode, mapped.mode),
        (DbMode::Embed, DbMode::Copy, DbMode::Mmap)
    );
    // The heap counter is process-wide and other tests allocate and free concurrently (a free
    // during the copy made its count smaller than the copy): what each mode keeps on the heap
    // is compared one process each, in tests/it/process.rs.
    assert_eq!(embedded.size, geodb::SAMPLE.len());
    assert_eq!(mapped.size, geodb::SAMPLE.len());
    assert_eq!(mapped.database_type, "bindery-Sample-City");
}

fn bad_files(dir: &std::path::Path) -> Vec<(&'static str, std::path::PathBuf)> {
    let empty = dir.join("empty.mmdb");
    std::fs::write(&empty, b"").expect("write");
    let truncated = dir.join("truncated.mmdb");
    std::fs::write(&truncated, &geodb::SAMPLE[..geodb::SAMPLE.len() / 2]).expect("write");
    let random = dir.join("random.mmdb");
    std::fs::write(
        &random,
        (0..4096u32)
            .map(|index| (index.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect::<Vec<u8>>(),
    )
    .expect("write");
    let asn = dir.join("asn.mmdb");
    write_other_database(&asn, "GeoLite2-ASN", "nowhere");
    vec![
        ("missing", dir.join("missing.mmdb")),
        ("empty", empty),
        ("truncated", truncated),
        ("random", random),
        ("wrong type", asn),
    ]
}

#[test]
fn bad_files_are_refused_in_every_mode_that_reads_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (what, path) in bad_files(dir.path()) {
        for (mode, result) in [
            ("copy", GeoDb::copied_from_file(&path)),
            // SAFETY: the test's own file, never modified while mapped.
            ("mmap", unsafe { GeoDb::mapped(&path) }),
            (
                "mmap tmpfile",
                GeoDb::mapped_copy(&path, PrivateCopy::Tmpfile),
            ),
            ("mmap memfd", GeoDb::mapped_copy(&path, PrivateCopy::Memfd)),
        ] {
            let error = result.expect_err(what);
            let message = error.to_string();
            assert!(
                !message.contains('\n'),
                "{mode} {what}: one line: {message}"
            );
            let expected = match what {
                "missing" => matches!(error, DbError::Open { .. }),
                "empty" => matches!(error, DbError::Empty { .. }),
                "wrong type" => matches!(error, DbError::WrongType { .. }),
                _ => matches!(error, DbError::Invalid { .. }),
            };
            assert!(expected, "{mode} {what}: {error:?}");
        }
    }
}

#[test]
fn non_mapped_databases_do_not_reload() {
    let db = GeoDb::embedded(geodb::SAMPLE, "sample").expect("embed");
    assert!(matches!(db.reload(), Err(DbError::NotReloadable)));
}
