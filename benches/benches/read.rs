//! Read cost per mode, for a 1 KiB text, Vue's 105 KiB minified JS and a 17 MiB incompressible
//! file: bindery static, copy, gzip (decompress on read), gzip passthrough (the stored bytes, as
//! sent to clients that accept gzip); go-bindata's decompress-on-read of the 17 MiB file; and
//! rust-embed and include_dir as baselines. Throughput is in bytes of content.

use std::hint::black_box;
use std::io::Read;

use bindery::Catalog;
use bindery_benches as assets;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Reads the file the way its catalog's mode says, touching every byte's length only.
fn read(catalog: &Catalog, path: &str) -> usize {
    catalog.get(path).map_or(0, |bytes| bytes.len())
}

fn bench_file(criterion: &mut Criterion, label: &str, path: &str, catalogs: [&Catalog; 3]) {
    let [static_catalog, gzip_catalog, copy_catalog] = catalogs;
    let len = static_catalog.file(path).map_or(0, |file| file.len());
    let mut group = criterion.benchmark_group(format!("read/{label}"));
    group.throughput(Throughput::Bytes(len as u64));
    group.bench_function(BenchmarkId::new("bindery", "static"), |bench| {
        bench.iter(|| read(black_box(static_catalog), black_box(path)))
    });
    group.bench_function(BenchmarkId::new("bindery", "copy"), |bench| {
        bench.iter(|| read(black_box(copy_catalog), black_box(path)))
    });
    group.bench_function(BenchmarkId::new("bindery", "gzip"), |bench| {
        bench.iter(|| read(black_box(gzip_catalog), black_box(path)))
    });
    group.bench_function(BenchmarkId::new("bindery", "gzip-passthrough"), |bench| {
        bench.iter(|| {
            let file = black_box(gzip_catalog).file(black_box(path));
            file.map_or(0, |file| file.gzip().or(file.raw()).map_or(0, <[u8]>::len))
        })
    });
    group.bench_function(BenchmarkId::new("rust-embed", "get"), |bench| {
        bench.iter(|| {
            let file = if label == "17MiB" {
                assets::RustEmbedLarge::get(black_box(path))
            } else {
                assets::RustEmbedWeb::get(black_box(path))
            };
            file.map_or(0, |file| file.data.len())
        })
    });
    group.bench_function(BenchmarkId::new("include_dir", "get"), |bench| {
        let dir = if label == "17MiB" {
            &assets::INCLUDE_DIR_LARGE
        } else {
            &assets::INCLUDE_DIR_WEB
        };
        bench.iter(|| {
            black_box(dir)
                .get_file(black_box(path))
                .map_or(0, |file| file.contents().len())
        })
    });
    group.finish();
}

fn reads(criterion: &mut Criterion) {
    let web = [&assets::WEB_STATIC, &assets::WEB_GZIP, &assets::WEB_COPY];
    bench_file(criterion, "1KiB-text", "small.txt", web);
    bench_file(criterion, "vue.min.js", "vue.min.js", web);
    bench_file(
        criterion,
        "17MiB",
        "noise.bin",
        [
            &assets::LARGE_STATIC,
            &assets::LARGE_GZIP,
            &assets::LARGE_COPY,
        ],
    );

    // go-bindata gzips every file, whatever it saves, and decompresses on every read. bindery's
    // gzip mode keeps this file raw (gzip saves < 5%); this row is what it would cost otherwise.
    let mut group = criterion.benchmark_group("read/17MiB");
    group.throughput(Throughput::Bytes(17 << 20));
    group.bench_function(
        BenchmarkId::new("go-bindata-style", "gzip-decompress"),
        |bench| {
            bench.iter(|| {
                let mut out = Vec::with_capacity(17 << 20);
                flate2::read::GzDecoder::new(black_box(assets::NOISE_GZIP))
                    .read_to_end(&mut out)
                    .map_or(0, |_| out.len())
            })
        },
    );
    group.finish();
}

criterion_group!(benches, reads);
criterion_main!(benches);
