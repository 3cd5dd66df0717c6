//! One database mode, measured in a process of its own so that no mode's copy skews another:
//! heap retained by the reader (counting allocator), reader creation time (median of many),
//! RSS split anon/file after creation and after the lookups, and a hash of every lookup result.
//! Prints one JSON line. Driven by `cargo xtask bench-memory`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use geo_server::db::{DbMode, GeoDb};
use geo_server::language::Language;
use geo_server::metrics::resident;

/// This binary measures the heap each mode retains: it opts in to the counting allocator.
#[global_allocator]
static ALLOCATOR: geo_server::alloc::CountingAllocator = geo_server::alloc::CountingAllocator;

/// Measure one GeoIP database mode.
#[derive(Debug, Parser)]
struct Args {
    /// The mode to measure.
    #[arg(long, value_enum)]
    mode: DbMode,
    /// Database file for `mmap` (default: the embedded database written to a temporary file).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Lookups of pseudo-random addresses after creation.
    #[arg(long, default_value_t = 100_000)]
    lookups: u32,
    /// Reader creations timed for the median.
    #[arg(long, default_value_t = 21)]
    creations: u32,
}

fn addresses(count: u32) -> impl Iterator<Item = IpAddr> {
    let mut numbers = bindery_test_support::Xorshift::new(0);
    (0..count).map(move |index| {
        let state = numbers.next().unwrap_or_default();
        if index % 10 == 9 {
            IpAddr::V6(Ipv6Addr::from(
                u128::from(state) << 64 | 0x2000_0000_0000_0000_0000_0000_0000_0000,
            ))
        } else {
            IpAddr::V4(Ipv4Addr::from((state >> 32) as u32))
        }
    })
}

fn create(args: &Args, file: &std::path::Path) -> anyhow::Result<GeoDb> {
    Ok(match args.mode {
        DbMode::Embed => {
            GeoDb::embedded_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?
        }
        DbMode::Copy => {
            GeoDb::copied_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?
        }
        // SAFETY: the measured database file is never modified while this process runs.
        DbMode::Mmap => unsafe { GeoDb::mapped(file) }?,
    })
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let temporary = tempfile::NamedTempFile::new()?;
    let file = match &args.db {
        Some(path) => path.clone(),
        None => {
            if args.mode == DbMode::Mmap {
                std::fs::write(temporary.path(), geodb::DATABASE)?;
            }
            temporary.path().to_path_buf()
        }
    };

    let db = create(&args, &file)?;
    let info = db.info();
    let after_creation = resident();

    let mut hasher = DefaultHasher::new();
    let mut found = 0u32;
    for address in addresses(args.lookups) {
        let answer = db.lookup(address, Language::English);
        match &answer {
            Ok(Some(json)) => {
                found += 1;
                json.hash(&mut hasher);
            }
            Ok(None) => 0u8.hash(&mut hasher),
            Err(error) => error.to_string().hash(&mut hasher),
        }
    }
    let after_lookups = resident();

    // Timed after the RSS readings: each extra creation in copy mode copies the database again.
    // `load_time` is the reader's creation alone (the copy included); mmap's start-up `verify`,
    // which walks the whole file, is timed apart.
    let mut times: Vec<Duration> = Vec::new();
    let mut verify_times: Vec<Duration> = Vec::new();
    for _ in 0..args.creations {
        let started = Instant::now();
        let again = create(&args, &file)?;
        verify_times.push(started.elapsed().saturating_sub(again.info().load_time));
        times.push(again.info().load_time);
    }
    verify_times.sort();
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    println!(
        "{}",
        serde_json::json!({
            "mode": args.mode,
            "database": info.database_type,
            "origin": info.origin,
            "size": info.size,
            "heap_retained": info.reader_heap_bytes,
            "creation_median_ms": median.as_secs_f64() * 1000.0,
            "verify_median_ms": verify_times.get(verify_times.len() / 2).copied().unwrap_or_default().as_secs_f64() * 1000.0,
            "rss_anon_after_creation": after_creation.anon,
            "rss_file_after_creation": after_creation.file,
            "rss_anon_after_lookups": after_lookups.anon,
            "rss_file_after_lookups": after_lookups.file,
            "lookups": args.lookups,
            "found": found,
            "results_hash": format!("{:016x}", hasher.finish()),
        })
    );
    drop(db);
    Ok(())
}
