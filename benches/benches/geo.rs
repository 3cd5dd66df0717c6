//! GeoIP: reader creation in the three database modes, lookups of random addresses, and the
//! stages of a `/geo` answer: the tree walk, decoding, and the JSON, now and as first rendered.
//! Uses the real GeoLite2 City when `cargo xtask geodb` fetched it (embedded by geodb), else the
//! sample; the database in use is named in the benchmark ids.

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use geo_server::language::Language;
use maxminddb::{Reader, geoip2};

/// The first implementation's renderer (full record, every language), the tests' oracle.
#[path = "../../examples/geo-server/tests/it/reference.rs"]
mod reference;

fn random_addresses(count: usize) -> Vec<IpAddr> {
    bindery_test_support::Xorshift::new(0)
        .take(count)
        .map(|state| IpAddr::V4(Ipv4Addr::from((state >> 32) as u32)))
        .collect()
}

fn geo(criterion: &mut Criterion) {
    let origin = geodb::ORIGIN.replace('/', "_");
    reader_creation(criterion, &origin);
    // Enough addresses that the nodes and records they reach do not stay in the CPU's caches
    // from one pass to the next, as under a server's random load (with a few thousand they did,
    // and every stage looked cheaper than it is under load).
    let addresses = random_addresses(1 << 20);
    let reader = Reader::from_source(geodb::DATABASE).expect("database");
    lookup(criterion, &origin, &reader, &addresses);
    answer(criterion, &origin, &reader, &addresses);
    dependent_read(criterion, geodb::DATABASE.len());
}

/// The hardware's floor under a lookup: one read whose address depends on the read before, at
/// random in a buffer as large as the database, as a walk down its tree reads nodes. A random
/// cyclic permutation (Sattolo's algorithm) chased one step per iteration.
fn dependent_read(criterion: &mut Criterion, bytes: usize) {
    let len = bytes / 4;
    let mut next: Vec<u32> = (0..len as u32).collect();
    let mut random = bindery_test_support::Xorshift::new(7);
    for i in (1..len).rev() {
        let j = (random.next().unwrap_or(0) % i as u64) as usize;
        next.swap(i, j);
    }
    let mut at = 0_u32;
    let mut group = criterion.benchmark_group("geo-memory");
    group.bench_function(
        BenchmarkId::new("dependent-read", format!("{} MB", bytes / 1_000_000)),
        |bench| {
            bench.iter(|| {
                at = next[black_box(at) as usize];
                at
            })
        },
    );
    group.finish();
}

/// A reader made over the embedded bytes, over a heap copy of them, over a mapped file.
fn reader_creation(criterion: &mut Criterion, origin: &str) {
    let database = geodb::DATABASE;
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(file.path(), database).expect("write database");
    let mut group = criterion.benchmark_group(format!("geo-reader-creation/{origin}"));
    group.bench_function("embed", |bench| {
        bench.iter(|| {
            Reader::from_source(black_box(database)).map(|reader| reader.metadata().node_count)
        })
    });
    group.bench_function("copy", |bench| {
        bench.iter(|| {
            Reader::from_source(black_box(database).to_vec())
                .map(|reader| reader.metadata().node_count)
        })
    });
    group.bench_function("mmap", |bench| {
        // SAFETY: the temporary file is private to this process and never modified while mapped.
        bench.iter(|| {
            unsafe { Reader::open_mmap(black_box(file.path())) }
                .map(|reader| reader.metadata().node_count)
        })
    });
    group.finish();
}

/// One city lookup and decode.
fn lookup(criterion: &mut Criterion, origin: &str, reader: &Reader<&[u8]>, addresses: &[IpAddr]) {
    let mut group = criterion.benchmark_group(format!("geo-lookup/{origin}"));
    let mut index = 0;
    group.bench_function(BenchmarkId::new("city", "random-ipv4"), |bench| {
        bench.iter(|| {
            index = (index + 1) % addresses.len();
            let result = reader.lookup(black_box(addresses[index]));
            result
                .ok()
                .and_then(|found| found.decode::<geoip2::City<'_>>().ok().flatten())
                .map_or(0, |city| city.location.accuracy_radius.unwrap_or(0))
        })
    });
    group.finish();
}

/// The stages of one `/geo/<ip>` answer.
fn answer(criterion: &mut Criterion, origin: &str, reader: &Reader<&[u8]>, addresses: &[IpAddr]) {
    let database = geodb::DATABASE;
    // On the same addresses: the search tree alone; the tree
    // and a full `geoip2::City` decode; the answer as first rendered (full decode, then the
    // JSON); the answer decoded as served (the fields and the one language shown, then the JSON);
    // the answer as served, its record's part from the answer cache once seen.
    let db = geo_server::db::GeoDb::embedded(database, "bench")
        .expect("database")
        .with_answer_cache(0);
    let cached = geo_server::db::GeoDb::embedded(database, "bench").expect("database");
    let mut group = criterion.benchmark_group(format!("geo-answer/{origin}"));
    let mut index = 0;
    let mut next = || {
        index = (index + 1) % addresses.len();
        black_box(addresses[index])
    };
    group.bench_function("tree", |bench| {
        bench.iter(|| reader.lookup(next()).map(|found| found.has_data()))
    });
    group.bench_function("tree+decode-full-record", |bench| {
        bench.iter(|| {
            reader
                .lookup(next())
                .ok()
                .and_then(|found| found.decode::<geoip2::City<'_>>().ok().flatten())
                .map_or(0, |city| city.subdivisions.len())
        })
    });
    for language in [Language::English, Language::German] {
        let code = language.code();
        group.bench_function(
            BenchmarkId::new("json-full-record (before)", code),
            |bench| {
                bench.iter(|| {
                    reference::render(reader, next(), language).map_or(0, |json| json.len())
                })
            },
        );
        group.bench_function(BenchmarkId::new("json-one-language", code), |bench| {
            bench.iter(|| {
                db.lookup(next(), language)
                    .ok()
                    .flatten()
                    .map_or(0, |json| json.len())
            })
        });
        group.bench_function(
            BenchmarkId::new("json-one-language, answer cache", code),
            |bench| {
                bench.iter(|| {
                    cached
                        .lookup(next(), language)
                        .ok()
                        .flatten()
                        .map_or(0, |json| json.len())
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, geo);
criterion_main!(benches);
