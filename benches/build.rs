//! Writes the 17 MiB incompressible file into `OUT_DIR` and renders bindery catalogs for it with
//! `bindery-codegen` (the build-script front door), plus the file gzip-compressed as go-bindata
//! would store it, to measure decompress-on-read; and a 4 MiB compressible JSON file in `gzip`
//! mode, whose decompression for clients without gzip is what `bench-stall` measures.

use std::io::Write;
use std::path::{Path, PathBuf};

use bindery_codegen::emit::Locator;
use bindery_codegen::{Mode, Options, render};

/// 17 MiB, the size of the seed's large asset.
const LARGE_LEN: usize = 17 * 1024 * 1024;

/// 4 MiB of JSON lines: compresses well, takes milliseconds to decompress.
const TEXT_LEN: usize = 4 * 1024 * 1024;

fn json_lines(len: usize) -> Vec<u8> {
    let mut text = String::with_capacity(len + 128);
    let mut numbers = bindery_test_support::Xorshift::new(4);
    let mut id = 0u64;
    while text.len() < len {
        let state = numbers.next().unwrap_or_default();
        text.push_str(&format!(
            "{{\"id\":{id},\"name\":\"user-{}\",\"score\":{},\"active\":{}}}\n",
            state % 100_000,
            state % 1000,
            state & 1 == 0
        ));
        id += 1;
    }
    text.truncate(len);
    text.into_bytes()
}

fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).is_ok_and(|existing| existing == bytes) {
        return;
    }
    std::fs::write(path, bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let large_dir = out.join("large");
    std::fs::create_dir_all(&large_dir).expect("out dir");
    let bytes = bindery_test_support::noise(LARGE_LEN, 0x2545_F491_4F6C_DD1D);
    write_if_changed(&large_dir.join("noise.bin"), &bytes);

    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&bytes).expect("in memory");
    write_if_changed(
        &out.join("noise.bin.gz"),
        &encoder.finish().expect("in memory"),
    );

    let text_dir = out.join("text");
    std::fs::create_dir_all(&text_dir).expect("out dir");
    write_if_changed(&text_dir.join("records.json"), &json_lines(TEXT_LEN));

    for (folder, mode, name) in [
        (&large_dir, Mode::Static, "LARGE_STATIC"),
        (&large_dir, Mode::Gzip, "LARGE_GZIP"),
        (&large_dir, Mode::Copy, "LARGE_COPY"),
        (&text_dir, Mode::Gzip, "TEXT_GZIP"),
    ] {
        let manifest = Options::new(folder)
            .mode(mode)
            .cache_dir(out.join("cache"))
            .build()
            .expect("large catalog");
        let locator = Locator::Module {
            module_dir: out.clone(),
            // Blobs are read where codegen cached them: `OUT_DIR` is this crate's alone.
            blob_dir: out.join("cache").join("gzip"),
            manifest_dir: Some(manifest_dir.clone()),
            dev: false,
        };
        let text = render::module(
            &manifest,
            &locator,
            name,
            "Written by benches/build.rs.",
            "cargo build -p bindery-benches",
        )
        .expect("valid name");
        write_if_changed(
            &out.join(format!("{}.rs", name.to_lowercase())),
            text.as_bytes(),
        );
    }
}
