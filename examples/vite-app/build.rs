//! Builds the front end with Vite into `$OUT_DIR/dist`, where `embed!("$OUT_DIR/dist")` finds it.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=frontend/src");
    println!("cargo::rerun-if-changed=frontend/vite.config.mjs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("dist");
    let vite = PathBuf::from("node_modules/vite/bin/vite.js");
    if !vite.exists() {
        panic!("vite is not installed: run `npm ci` in this crate's folder first");
    }
    let status = Command::new("node")
        .arg(&vite)
        .args(["build", "--config", "frontend/vite.config.mjs", "--outDir"])
        .arg(&out)
        .status()
        .expect("node runs (Node.js must be installed)");
    assert!(status.success(), "vite build failed: {status}");
}
