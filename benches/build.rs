//! Writes the 17 MiB incompressible file into `OUT_DIR` and renders bindery catalogs for it with
//! `bindery-codegen` (the build-script front door), plus the file gzip-compressed as go-bindata
//! would store it, to measure decompress-on-read.

use std::io::Write;
use std::path::{Path, PathBuf};

use bindery_codegen::emit::Locator;
use bindery_codegen::{Mode, Options, render};

/// 17 MiB, the size of the seed's large asset.
const LARGE_LEN: usize = 17 * 1024 * 1024;

fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut bytes = Vec::with_capacity(len);
    while bytes.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(len);
    bytes
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
    let bytes = noise(LARGE_LEN);
    write_if_changed(&large_dir.join("noise.bin"), &bytes);

    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&bytes).expect("in memory");
    write_if_changed(
        &out.join("noise.bin.gz"),
        &encoder.finish().expect("in memory"),
    );

    for (mode, name) in [
        (Mode::Static, "LARGE_STATIC"),
        (Mode::Gzip, "LARGE_GZIP"),
        (Mode::Copy, "LARGE_COPY"),
    ] {
        let manifest = Options::new(&large_dir)
            .mode(mode)
            .cache_dir(out.join("cache"))
            .build()
            .expect("large catalog");
        let locator = Locator::Module {
            module_dir: out.clone(),
            blob_dir: out.join("blobs"),
            manifest_dir: Some(manifest_dir.clone()),
        };
        let text = render::module(&manifest, &locator, name, "Written by benches/build.rs.")
            .expect("valid name");
        write_if_changed(
            &out.join(format!("{}.rs", name.to_lowercase())),
            text.as_bytes(),
        );
    }
}
