//! `cargo xtask bench-build`: what embedding many small files costs a rebuild. Crates outside
//! the workspace embed the same tree (default 5,000 files of 1 KB in 50 folders): with a
//! hand-written table of `include_bytes!` (the floor), with `bindery::embed!` alone and with a
//! build script that tracks the folder (`bindery_codegen::track`), and with rust-embed 8.13. Each is built once, then `main.rs` is touched and the crate rebuilt, rounds
//! interleaved; the table shows the median rebuild time and the ratio to the hand-written one.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bindery_test_support::{Project, Xorshift};

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
    /// The manifest's dependency sections after `[dependencies]`.
    dependencies: String,
    main: String,
    /// A build script, if the crate has one.
    build: Option<&'static str>,
}

fn variants(files: &[String], workspace: &Path) -> Vec<Variant> {
    let bindery = workspace.join("crates/bindery");
    let codegen = workspace.join("crates/bindery-codegen");
    let embed_main = "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\");\n\nfn main() {\n    \
                      let total: usize = ASSETS.iter().map(|file| file.len()).sum();\n    \
                      println!(\"{} files, {total} bytes\", ASSETS.len());\n}\n";
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
            build: None,
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
            build: None,
        },
        Variant {
            name: "bindery_embed",
            label: "`bindery::embed!` (static mode), no build script",
            dependencies: format!("bindery = {{ path = {:?} }}\n", bindery.display().to_string()),
            main: embed_main.to_owned(),
            build: None,
        },
        Variant {
            name: "bindery_embed_tracked",
            label: "`bindery::embed!` (static mode), folder tracked by build.rs (`bindery_codegen::track`)",
            dependencies: format!(
                "bindery = {{ path = {:?} }}\n\n[build-dependencies]\nbindery-codegen = {{ path = {:?} }}\n",
                bindery.display().to_string(),
                codegen.display().to_string()
            ),
            main: embed_main.to_owned(),
            build: Some("fn main() {\n    bindery_codegen::track(\"assets\");\n}\n"),
        },
        Variant {
            name: "rust_embed",
            label: "rust-embed 8.13 (`#[derive(Embed)]`)",
            dependencies: "rust-embed = \"=8.13.0\"\n".to_owned(),
            build: None,
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
    let target = workspace.join("target/bench-build");
    let files: Vec<String> = (0..args.files)
        .map(|index| format!("folder{:02}/file{index:05}.txt", index % FOLDERS))
        .collect();
    // Text with some variety, the same in every crate.
    let mut numbers = Xorshift::new(7);
    let contents: Vec<String> = files
        .iter()
        .map(|path| {
            let mut text = String::with_capacity(args.size + 64);
            while text.len() < args.size {
                let number = numbers.next().unwrap_or_default();
                text.push_str(&format!("{path} {number:x}\n"));
            }
            text.truncate(args.size);
            text
        })
        .collect();
    let variants = variants(&files, &workspace);
    let mut projects = Vec::new();
    for variant in &variants {
        let project = Project::new(&target);
        for (path, text) in files.iter().zip(&contents) {
            project.write(&format!("assets/{path}"), text);
        }
        project.write(
            "Cargo.toml",
            format!(
                "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\n{}",
                variant.name, variant.dependencies
            ),
        );
        project.write("src/main.rs", &variant.main);
        if let Some(build) = variant.build {
            project.write("build.rs", build);
        }
        eprintln!("bench-build: first build of {}", variant.name);
        build(&project, &args.profile)?;
        projects.push(project);
    }
    let mut times: Vec<Vec<Duration>> = variants.iter().map(|_| Vec::new()).collect();
    for round in 1..=args.rounds {
        for ((variant, project), times) in variants.iter().zip(&projects).zip(&mut times) {
            project.write("src/main.rs", format!("{}// round {round}\n", variant.main));
            times.push(build(project, &args.profile)?);
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

/// `cargo build` of the project; its wall time.
fn build(project: &Project, profile: &str) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let output = project
        .cargo(&["build", "--quiet", "--profile", profile])
        .output()
        .context("cannot run cargo")?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        bail!(
            "build of {} failed:\n{}",
            project.path().display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(elapsed)
}
