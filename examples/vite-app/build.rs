//! Builds the front end (Vite's stock vanilla template, in `frontend/`) into `$OUT_DIR/dist`,
//! where `embed!("$OUT_DIR/dist", manifest = "vite")` finds it with Vite's manifest.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the server mounts the front end: Vite's `base`, so the URLs it writes into the
/// bundles (`/assets/…`) are the ones the server answers. Under a sub-path (`"/static/"`),
/// paths the front end spells itself (a `public/` file named in JSX or a Vue template) must
/// be prefixed with `import.meta.env.BASE_URL`: Vite rewrites only the imports it sees.
const BASE: &str = "/";

/// The front end's folder: its `index.html`, `src/`, `public/` and config.
const FRONTEND: &str = "frontend";

fn main() {
    // The front end's sources, not its output (`OUT_DIR/dist`, which this script writes, would
    // rerun it on every build) nor its `node_modules` (thousands of files npm rewrites).
    println!("cargo::rerun-if-changed=build.rs");
    for source in sources(Path::new(FRONTEND)) {
        println!("cargo::rerun-if-changed={}", source.display());
    }
    println!("cargo::rustc-env=VITE_BASE={BASE}");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("dist");
    // Vite's templates keep their own `package.json` in the front end's folder; a crate may
    // keep one beside `Cargo.toml` instead. Either is where `npm ci` installed Vite.
    let vite = ["frontend/node_modules", "node_modules"]
        .map(|modules| Path::new(modules).join("vite/bin/vite.js"))
        .into_iter()
        .find(|vite| vite.exists())
        .unwrap_or_else(|| panic!("vite is not installed: run `npm ci` where package.json is"));
    let status = Command::new("node")
        .arg(&vite)
        .args([
            "build",
            FRONTEND,
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

/// What cargo watches of the front end: every entry of its folder but `node_modules` and a
/// `dist` of its own, and the lock files that pin what builds it.
fn sources(frontend: &Path) -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(frontend)
        .expect("the front end's folder")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| !path.ends_with("node_modules") && !path.ends_with("dist"))
        .collect();
    sources.extend(
        [Path::new("package-lock.json"), &frontend.join("package-lock.json")]
            .into_iter()
            .filter(|lock| lock.exists())
            .map(Path::to_path_buf),
    );
    sources.sort();
    sources
}
