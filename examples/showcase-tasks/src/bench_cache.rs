//! `cargo xtask bench-build --cache`: what checking the build cache costs a rebuild. codegen
//! builds the manifest of a tree in-process (as the macro does: pack, snapshots) with an empty
//! cache, and with the cache warm and every seal current (one `stat` and one small read per
//! cached file); beside it, what reading and hashing every cached file costs (what verifying by
//! re-hashing would pay on every build), and a build after every cached file was touched (each
//! seal stale: the file is hashed, found intact and sealed again, once).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use bindery_codegen::{Mode, Options};
use bindery_test_support::noise;

const ROUNDS: usize = 7;

/// Runs the measurements and returns the table.
pub fn table() -> anyhow::Result<String> {
    let mut table = String::from(
        "codegen in-process, as the macro builds (pack, snapshots); median of 7 builds each.\n\n\
         | tree | empty cache | warm, seals current | hashing every cached file | warm, every cached file touched |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    for (label, count, size, mode) in [
        ("5,000 files of 1 KB, gzip mode", 5000, 1024, Mode::Gzip),
        ("20 files of 5 MiB, static mode", 20, 5 << 20, Mode::Static),
    ] {
        let tree = tempfile::tempdir()?;
        for index in 0..count {
            let path = tree
                .path()
                .join(format!("folder{:02}/file{index:05}.bin", index % 50));
            std::fs::create_dir_all(path.parent().unwrap_or(tree.path()))?;
            // Half compressible, so gzip mode stores blobs.
            let mut bytes = format!("{index} ").repeat(size / 8).into_bytes();
            bytes.extend(noise(size - bytes.len().min(size), index as u64));
            bytes.truncate(size);
            std::fs::write(path, bytes)?;
        }
        // Files changed in the last two seconds are hashed on every build (racily clean).
        std::thread::sleep(Duration::from_millis(2100));
        let options = |cache: &Path| {
            Options::new(tree.path())
                .mode(mode)
                .cache_dir(cache)
                .pack(true)
                .snapshots(true)
        };
        let mut cold = Vec::new();
        for _ in 0..3 {
            let cache = tempfile::tempdir()?;
            cold.push(time(|| options(cache.path()).build().map(drop))?);
        }
        let cache = tempfile::tempdir()?;
        options(cache.path()).build()?;
        let mut warm = Vec::new();
        let mut hashing = Vec::new();
        let mut touched = Vec::new();
        for _ in 0..ROUNDS {
            warm.push(time(|| options(cache.path()).build().map(drop))?);
            let started = Instant::now();
            hash_all(cache.path())?;
            hashing.push(started.elapsed());
            touch_all(cache.path())?;
            touched.push(time(|| options(cache.path()).build().map(drop))?);
        }
        table.push_str(&format!(
            "| {label} | {} | {} | {} | {} |\n",
            millis(&mut cold),
            millis(&mut warm),
            millis(&mut hashing),
            millis(&mut touched)
        ));
    }
    Ok(table)
}

fn time(work: impl FnOnce() -> Result<(), bindery_codegen::Error>) -> anyhow::Result<Duration> {
    let started = Instant::now();
    work()?;
    Ok(started.elapsed())
}

fn millis(times: &mut [Duration]) -> String {
    times.sort();
    format!("{:.1} ms", times[times.len() / 2].as_secs_f64() * 1000.0)
}

/// Reads and hashes every blob, pack and snapshot of the cache.
fn hash_all(dir: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "seals" || name == "hashes" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            hash_all(&entry.path())?;
        } else {
            std::hint::black_box(xxhash_rust::xxh3::xxh3_128(&std::fs::read(entry.path())?));
        }
    }
    Ok(())
}

/// Gives every blob, pack and snapshot of the cache a new modification time.
fn touch_all(dir: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "seals" || name == "hashes" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            touch_all(&entry.path())?;
        } else {
            let file = std::fs::File::options().write(true).open(entry.path())?;
            file.set_modified(SystemTime::now())?;
        }
    }
    Ok(())
}
