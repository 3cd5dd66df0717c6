//! Builds the front end (Vite's stock vanilla template, in `frontend/`) into `$OUT_DIR/dist`,
//! where `embed!("$OUT_DIR/dist", manifest = "vite")` finds it with Vite's manifest.

use std::path::PathBuf;
use std::process::Command;

/// Where the server mounts the front end: Vite's `base`, so the URLs it writes into the
/// bundles (`/assets/…`, `/icons.svg`) are the ones the server answers.
const BASE: &str = "/";

fn main() {
    // The front end's sources, not its output: a build script that tracked `OUT_DIR/dist`, which
    // it writes itself, would run again on every build.
    for source in ["build.rs", "package-lock.json", "frontend"] {
        println!("cargo::rerun-if-changed={source}");
    }
    println!("cargo::rustc-env=VITE_BASE={BASE}");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("dist");
    let vite = PathBuf::from("node_modules/vite/bin/vite.js");
    if !vite.exists() {
        panic!("vite is not installed: run `npm ci` in this crate's folder first");
    }
    let status = Command::new("node")
        .arg(&vite)
        .args([
            "build",
            "frontend",
            "--manifest",
            "--emptyOutDir",
            "--logLevel",
            "warn",
        ])
        .arg(format!("--base={BASE}"))
        .arg("--outDir")
        .arg(&out)
        .status()
        .expect("node runs (Node.js must be installed)");
    assert!(status.success(), "vite build failed: {status}");
}
