//! `cargo xtask bench-build`: what embedding many small files costs a rebuild. Three crates
//! outside the workspace embed the same tree (default 5,000 files of 1 KB in 50 folders): with
//! `bindery::embed!`, with a hand-written table of `include_bytes!` (the floor), and with
//! rust-embed 8.13. Each is built once, then `main.rs` is touched and the crate rebuilt, rounds
//! interleaved; the table shows the median rebuild time and the ratio to the hand-written one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::process::cargo_binary;

/// Flags of `cargo xtask bench-build`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files in the tree (spread over 50 folders).
    #[arg(long, default_value_t = 5000)]
    pub files: usize,
    /// Bytes per file.
    #[arg(long, default_value_t = 1024)]
    pub size: usize,
    /// Interleaved rebuilds per crate; the table shows the median.
    #[arg(long, default_value_t = 7)]
    pub rounds: u32,
    /// Build profile: `dev` or `release`.
    #[arg(long, default_value = "release")]
    pub profile: String,
}

const FOLDERS: usize = 50;

/// One way of embedding the tree.
struct Variant {
    name: &'static str,
    label: &'static str,
    dependencies: String,
    main: String,
}

fn variants(files: &[String], workspace: &Path) -> Vec<Variant> {
    let bindery = workspace.join("crates/bindery");
    let table: String = files
        .iter()
        .map(|path| {
            format!("    (\"{path}\", include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/assets/{path}\"))),\n")
        })
        .collect();
    let metadata_table: String = files
        .iter()
        .map(|path| {
            format!("    File {{ path: \"{path}\", bytes: include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/assets/{path}\")), etag: \"\\\"0123456789abcdef0123456789abcdef\\\"\", mime: \"text/plain\", content_type: \"text/plain; charset=utf-8\" }},\n")
        })
        .collect();
    let count_check = "    let total: usize = FILES.iter().map(|(_, bytes)| bytes.len()).sum();\n    println!(\"{} files, {total} bytes\", FILES.len());\n";
    vec![
        Variant {
            name: "hand_written",
            label: "hand-written `include_bytes!` table",
            dependencies: String::new(),
            main: format!(
                "static FILES: &[(&str, &[u8])] = &[\n{table}];\n\nfn main() {{\n{count_check}}}\n"
            ),
        },
        Variant {
            name: "hand_written_metadata",
            label: "hand-written table with the same metadata (path, bytes, ETag, media type)",
            dependencies: String::new(),
            main: format!(
                "struct File {{ path: &'static str, bytes: &'static [u8], etag: &'static str, mime: &'static str, content_type: &'static str }}\n\n\
                 static FILES: &[File] = &[\n{metadata_table}];\n\nfn main() {{\n    \
                 let total: usize = FILES.iter().map(|file| file.bytes.len() + file.path.len() + file.etag.len() + file.mime.len() + file.content_type.len()).sum();\n    \
                 println!(\"{{}} files, {{total}} bytes\", FILES.len());\n}}\n"
            ),
        },
        Variant {
            name: "bindery_embed",
            label: "`bindery::embed!` (static mode)",
            dependencies: format!("bindery = {{ path = {:?} }}\n", bindery.display().to_string()),
            main: "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\");\n\nfn main() {\n    \
                   let total: usize = ASSETS.iter().map(|file| file.len()).sum();\n    \
                   println!(\"{} files, {total} bytes\", ASSETS.len());\n}\n"
                .to_owned(),
        },
        Variant {
            name: "rust_embed",
            label: "rust-embed 8.13 (`#[derive(Embed)]`)",
            dependencies: "rust-embed = \"=8.13.0\"\n".to_owned(),
            main: "#[derive(rust_embed::Embed)]\n#[folder = \"assets\"]\nstruct Assets;\n\nfn main() {\n    \
                   let total: usize = Assets::iter().filter_map(|path| Assets::get(&path)).map(|file| file.data.len()).sum();\n    \
                   println!(\"{} files, {total} bytes\", Assets::iter().count());\n}\n"
                .to_owned(),
        },
    ]
}

/// Runs the benchmark and prints the table (also written to `target/bench/build.md`).
pub fn run(args: &Args) -> anyhow::Result<()> {
    let workspace = std::env::current_dir()?;
    let scratch = tempfile::tempdir()?;
    let target = workspace.join("target/bench-build");
    let files: Vec<String> = (0..args.files)
        .map(|index| format!("folder{:02}/file{index:05}.txt", index % FOLDERS))
        .collect();
    let variants = variants(&files, &workspace);
    let mut numbers = 0x2545_F491_4F6C_DD1Du64;
    for variant in &variants {
        let dir = scratch.path().join(variant.name);
        for path in &files {
            let file = dir.join("assets").join(path);
            std::fs::create_dir_all(file.parent().context("parent")?)?;
            // Text with some variety, the same in every crate.
            let mut text = String::with_capacity(args.size);
            while text.len() < args.size {
                numbers ^= numbers << 13;
                numbers ^= numbers >> 7;
                numbers ^= numbers << 17;
                text.push_str(&format!("{path} {numbers:x}\n"));
            }
            text.truncate(args.size);
            std::fs::write(file, text)?;
        }
        numbers = 0x2545_F491_4F6C_DD1D;
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\n{}",
                variant.name, variant.dependencies
            ),
        )?;
        std::fs::create_dir_all(dir.join("src"))?;
        std::fs::write(dir.join("src/main.rs"), &variant.main)?;
        std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock"))?;
        eprintln!("bench-build: first build of {}", variant.name);
        build(&dir, &target, &args.profile)?;
    }
    let mut times: Vec<Vec<Duration>> = variants.iter().map(|_| Vec::new()).collect();
    for round in 1..=args.rounds {
        for (variant, times) in variants.iter().zip(&mut times) {
            let dir = scratch.path().join(variant.name);
            let main = dir.join("src/main.rs");
            std::fs::write(&main, format!("{}// round {round}\n", variant.main))?;
            times.push(build(&dir, &target, &args.profile)?);
        }
        eprintln!("bench-build: round {round}/{} done", args.rounds);
    }
    let medians: Vec<Duration> = times
        .iter_mut()
        .map(|times| {
            times.sort();
            times[times.len() / 2]
        })
        .collect();
    let floor = medians[0].as_secs_f64();
    let mut table = format!(
        "{} files of {} bytes in {FOLDERS} folders; `cargo build --profile {}` after touching `main.rs` (wall time, link included), median of {} interleaved rebuilds.\n\n\
         | embedded with | rebuild | vs hand-written |\n| --- | --- | --- |\n",
        args.files, args.size, args.profile, args.rounds
    );
    for (variant, median) in variants.iter().zip(&medians) {
        table.push_str(&format!(
            "| {} | {:.2} s | {:.2}x |\n",
            variant.label,
            median.as_secs_f64(),
            median.as_secs_f64() / floor
        ));
    }
    println!("{table}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/build.md", &table)?;
    Ok(())
}

/// `cargo build` of the crate in `dir`; its wall time.
fn build(dir: &Path, target: &PathBuf, profile: &str) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let output = Command::new(cargo_binary())
        .args(["build", "--quiet", "--offline", "--profile", profile])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .context("cannot run cargo")?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        bail!(
            "build of {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(elapsed)
}
