//! `cargo xtask bench-binary`: what embedding a folder adds to a user's release binary, by way
//! of embedding. Each way is a crate outside the workspace whose `main` hands every file's bytes
//! (or the whole catalog) to `black_box`, so that the linker keeps them all (a `main` that reads
//! only lengths lets LLVM drop the bytes of a one-file folder); it is built with `cargo build
//! --release` once with a one-byte file (the baseline: the code of the crate and its
//! dependencies) and once per folder, and the table shows what the folder added to the binary,
//! in bytes and as a multiple of the folder's own size. The folders: vue.min.js, a Vite build
//! (Vite's react-ts template in `examples/vite-app/react`, built by the Vite `npm ci` installs
//! there) and 17 MiB of random bytes.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Flags of `cargo xtask bench-binary`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the ways whose label contains this text.
    #[arg(long)]
    pub only: Option<String>,
}

/// One way of embedding a folder.
struct Way {
    label: &'static str,
    /// The manifest's `[dependencies]` section's body.
    dependencies: String,
    main: String,
}

/// A `main` for a bindery catalog made with `arguments` after the folder.
fn bindery_main(arguments: &str) -> String {
    format!(
        "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\"{arguments});\n\n\
         fn main() {{\n    let assets = std::hint::black_box(&ASSETS);\n    \
         let total: usize = assets.iter().map(|file| {{\n        \
         std::hint::black_box(assets.get(std::hint::black_box(file.path()))).map_or(0, |bytes| bytes.len())\n    \
         }}).sum();\n    \
         println!(\"{{}} files, {{total}} bytes\", assets.len());\n}}\n"
    )
}

const RUST_EMBED_MAIN: &str = "#[derive(rust_embed::Embed)]\n#[folder = \"assets\"]\nstruct Assets;\n\n\
fn main() {\n    let mut total = 0;\n    for path in Assets::iter() {\n        \
let path = std::hint::black_box(path);\n        \
if let Some(file) = Assets::get(&path) {\n            total += std::hint::black_box(file.data.as_ref()).len();\n        }\n    }\n    \
println!(\"{total} bytes\");\n}\n";

const INCLUDE_DIR_MAIN: &str = "static ASSETS: include_dir::Dir<'_> = include_dir::include_dir!(\"$CARGO_MANIFEST_DIR/assets\");\n\n\
fn total(dir: &include_dir::Dir<'_>) -> usize {\n    \
dir.files().map(|file| file.contents().len()).sum::<usize>() + dir.dirs().map(total).sum::<usize>()\n}\n\n\
fn main() {\n    println!(\"{} bytes\", total(std::hint::black_box(&ASSETS)));\n}\n";

fn ways(workspace: &Path) -> Vec<Way> {
    let bindery = workspace.join("crates/bindery");
    let bindery = bindery.display();
    let with = |features: &str| format!("bindery = {{ path = \"{bindery}\"{features} }}\n");
    let gzip = ", features = [\"gzip\"]";
    let encoders = ", features = [\"br\", \"zstd\", \"gzip\"]";
    vec![
        Way {
            label: "bindery `static`",
            dependencies: with(""),
            main: bindery_main(", mode = \"static\""),
        },
        Way {
            label: "bindery `gzip`",
            dependencies: with(gzip),
            main: bindery_main(", mode = \"gzip\""),
        },
        Way {
            label: "bindery `static`, `precompress = [\"br\", \"zstd\", \"gzip\"]`",
            dependencies: with(encoders),
            main: bindery_main(", mode = \"static\", precompress = [\"br\", \"zstd\", \"gzip\"]"),
        },
        Way {
            label: "bindery `gzip`, `precompress = [\"br\", \"zstd\"]`",
            dependencies: with(encoders),
            main: bindery_main(", mode = \"gzip\", precompress = [\"br\", \"zstd\"]"),
        },
        Way {
            label: "rust-embed 8.13",
            dependencies: "rust-embed = \"=8.13.0\"\n".into(),
            main: RUST_EMBED_MAIN.into(),
        },
        Way {
            label: "rust-embed 8.13, `compression`",
            dependencies: "rust-embed = { version = \"=8.13.0\", features = [\"compression\"] }\n"
                .into(),
            main: RUST_EMBED_MAIN.into(),
        },
        Way {
            label: "include_dir 0.7",
            dependencies: "include_dir = \"0.7\"\n".into(),
            main: INCLUDE_DIR_MAIN.into(),
        },
    ]
}

/// One folder to embed: its name in the table and its files (path, bytes).
struct Folder {
    name: String,
    files: Vec<(String, Vec<u8>)>,
}

impl Folder {
    fn bytes(&self) -> usize {
        self.files.iter().map(|(_, bytes)| bytes.len()).sum()
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let workspace = std::env::current_dir()?;
    let folders = folders(&workspace)?;
    let baseline = Folder {
        name: "one byte".into(),
        files: vec![("a.txt".into(), b"a".to_vec())],
    };
    let mut rows = Vec::new();
    for way in ways(&workspace) {
        if args
            .only
            .as_deref()
            .is_some_and(|only| !way.label.contains(only))
        {
            continue;
        }
        let project = project(&way)?;
        let target = tempfile::tempdir()?;
        let base = binary_size(project.path(), target.path(), &baseline)?;
        let mut sizes = Vec::new();
        for folder in &folders {
            eprintln!("bench-binary: {} with {}", way.label, folder.name);
            sizes.push(binary_size(project.path(), target.path(), folder)? as i64 - base as i64);
        }
        rows.push((way.label, base, sizes));
    }
    let table = table(&folders, &rows);
    println!("{table}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/binary.md", &table)?;
    Ok(())
}

/// vue.min.js, the Vite build of the react-ts template, and 17 MiB of random bytes.
fn folders(workspace: &Path) -> anyhow::Result<Vec<Folder>> {
    let vue = std::fs::read(workspace.join("benches/assets/web/vue.min.js"))?;
    let vite = vite_build(workspace)?;
    let random = bindery_test_support::noise(17 * 1024 * 1024, 17);
    Ok(vec![
        Folder {
            name: "vue.min.js".into(),
            files: vec![("vue.min.js".into(), vue)],
        },
        vite,
        Folder {
            name: "17 MiB random".into(),
            files: vec![("random.bin".into(), random)],
        },
    ])
}

/// Vite's react-ts template (`examples/vite-app/react`) as `vite build` writes it, installing
/// the example's npm packages first when they are not there.
fn vite_build(workspace: &Path) -> anyhow::Result<Folder> {
    let example = workspace.join("examples/vite-app");
    let vite = example.join("node_modules/vite/bin/vite.js");
    if !vite.exists() {
        let status = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(&example)
            .status()
            .context("npm runs (Node.js and npm must be installed)")?;
        if !status.success() {
            bail!("npm ci in examples/vite-app failed: {status}");
        }
    }
    let out = tempfile::tempdir()?;
    let status = std::process::Command::new("node")
        .arg(&vite)
        .arg("build")
        .arg(example.join("react"))
        .args(["--emptyOutDir", "--logLevel", "warn", "--outDir"])
        .arg(out.path())
        .status()
        .context("node runs")?;
    if !status.success() {
        bail!("vite build of examples/vite-app/react failed: {status}");
    }
    let mut files = Vec::new();
    collect(out.path(), out.path(), &mut files)?;
    files.sort();
    let count = files.len();
    let folder = Folder {
        name: format!("Vite build (react-ts template, {count} files)"),
        files,
    };
    Ok(folder)
}

/// Every file under `dir`, with its path relative to `root`.
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, Vec<u8>)>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(root, &path, files)?;
        } else {
            let relative = path.strip_prefix(root)?.to_string_lossy().into_owned();
            files.push((relative, std::fs::read(&path)?));
        }
    }
    Ok(())
}

/// A way's crate in a folder of its own; the macros run optimized (the binary is the same,
/// the build of 17 MiB at brotli 11 minutes shorter).
fn project(way: &Way) -> anyhow::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join("src"))?;
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"sized\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [workspace]\n\n[dependencies]\n{}\n[profile.release.build-override]\nopt-level = 3\n",
            way.dependencies
        ),
    )?;
    std::fs::write(dir.path().join("src/main.rs"), &way.main)?;
    Ok(dir)
}

/// The size of the release binary of the crate in `path` embedding `folder` as `assets/`.
fn binary_size(path: &Path, target: &Path, folder: &Folder) -> anyhow::Result<u64> {
    let assets = path.join("assets");
    if assets.exists() {
        std::fs::remove_dir_all(&assets)?;
    }
    for (file, bytes) in &folder.files {
        let file = assets.join(file);
        std::fs::create_dir_all(file.parent().context("a parent")?)?;
        std::fs::write(&file, bytes)?;
    }
    let cache = tempfile::tempdir()?;
    let output = crate::bench_cold::user_cargo(path, Some(target))
        .env("BINDERY_CACHE_DIR", cache.path())
        .args(["build", "--release", "--quiet"])
        .output()
        .context("cannot run cargo build")?;
    if !output.status.success() {
        bail!(
            "release build in {} failed:\n{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let binary: PathBuf = target.join("release/sized");
    Ok(std::fs::metadata(&binary)
        .with_context(|| binary.display().to_string())?
        .len())
}

/// One table: a row per way, for each folder the bytes added and that as a multiple of it.
fn table(folders: &[Folder], rows: &[(&str, u64, Vec<i64>)]) -> String {
    let mut out = String::from("| way | baseline binary |");
    let mut rule = String::from("| --- | --- |");
    for folder in folders {
        out.push_str(&format!(" {} ({} B): added |", folder.name, folder.bytes()));
        rule.push_str(" --- |");
    }
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    for (label, base, sizes) in rows {
        out.push_str(&format!("| {label} | {base} B |"));
        for (folder, added) in folders.iter().zip(sizes) {
            let ratio = *added as f64 / folder.bytes() as f64;
            out.push_str(&format!(" {added} B ({ratio:.2}x) |"));
        }
        out.push('\n');
    }
    out
}
