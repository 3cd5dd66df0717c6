//! `cargo xtask bench-build`: what embedding a tree costs a rebuild. Crates outside the
//! workspace embed the same tree, by default each of two shapes (5,000 files of 1 KB in 50
//! folders, and 20 files of 5 MiB): with a hand-written table of `include_bytes!` (the floor),
//! with `bindery::embed!` alone and with a build script that tracks the folder
//! (`bindery_codegen::track`), and with rust-embed 8.13. Each is built once, then `main.rs` is
//! touched and the crate rebuilt, rounds interleaved; the table shows the median rebuild time
//! and the ratio to the hand-written one.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bindery_test_support::{Project, Xorshift};

/// Flags of `cargo xtask bench-build`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files in the tree (spread over 50 folders); with `--size`, one tree instead of the two
    /// default shapes.
    #[arg(long, requires = "size")]
    pub files: Option<usize>,
    /// Bytes per file.
    #[arg(long, requires = "files")]
    pub size: Option<usize>,
    /// Interleaved rebuilds per crate; the table shows the median.
    #[arg(long, default_value_t = 7)]
    pub rounds: u32,
    /// Build profile: `dev` or `release`.
    #[arg(long, default_value = "release")]
    pub profile: String,
    /// Only what checking the build cache costs (codegen in-process), no crate builds.
    #[arg(long)]
    pub cache: bool,
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
    // Every main hands its table to `black_box`, so the binary carries every byte: a table
    // whose data only its lengths are read from would let LLVM drop the data, and the build
    // would measure nothing of it.
    let embed_main = "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\");\n\nfn main() {\n    \
                      let assets = std::hint::black_box(&ASSETS);\n    \
                      let total: usize = assets.iter().map(|file| file.len()).sum();\n    \
                      println!(\"{} files, {total} bytes\", assets.len());\n}\n";
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
    let count_check = "    let files = std::hint::black_box(FILES);\n    let total: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();\n    println!(\"{} files, {total} bytes\", files.len());\n";
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
                 let files = std::hint::black_box(FILES);\n    \
                 let total: usize = files.iter().map(|file| file.bytes.len() + file.path.len() + file.etag.len() + file.mime.len() + file.content_type.len()).sum();\n    \
                 println!(\"{{}} files, {{total}} bytes\", files.len());\n}}\n"
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

/// The default trees: many small files, and a few large ones.
const TREES: [(usize, usize); 2] = [(5000, 1024), (20, 5 * 1024 * 1024)];

/// Runs the benchmark and prints the tables (also written to `target/bench/build.md`).
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.cache {
        let table = crate::bench_cache::table()?;
        println!("{table}");
        std::fs::create_dir_all("target/bench")?;
        std::fs::write("target/bench/build-cache.md", &table)?;
        return Ok(());
    }
    let trees = match (args.files, args.size) {
        (Some(files), Some(size)) => vec![(files, size)],
        _ => TREES.to_vec(),
    };
    let mut tables = Vec::new();
    for (files, size) in trees {
        tables.push(tree(args, files, size)?);
    }
    let tables = tables.join("\n");
    println!("{tables}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/build.md", &tables)?;
    Ok(())
}

/// The table of one tree of `count` files of `size` bytes.
fn tree(args: &Args, count: usize, size: usize) -> anyhow::Result<String> {
    let workspace = std::env::current_dir()?;
    let target = workspace.join("target/bench-build");
    let files: Vec<String> = (0..count)
        .map(|index| format!("folder{:02}/file{index:05}.txt", index % FOLDERS))
        .collect();
    let contents = contents(&files, size);
    let variants = variants(&files, &workspace);
    let mut projects = Vec::new();
    for variant in &variants {
        projects.push(first_build(
            &target,
            variant,
            &files,
            &contents,
            &args.profile,
        )?);
    }
    // This machine's speed drifts over minutes: each rebuild is paired with a rebuild of the
    // hand-written table made right next to it, and a variant's ratio is the median of its
    // pairs'.
    let mut times: Vec<Vec<Duration>> = variants.iter().map(|_| Vec::new()).collect();
    let mut ratios: Vec<Vec<f64>> = variants.iter().map(|_| Vec::new()).collect();
    let rebuild = |index: usize, round: u32, pass: usize| {
        let main = format!("{}// round {round}.{pass}\n", variants[index].main);
        projects[index].write("src/main.rs", main);
        build(&projects[index], &args.profile)
    };
    for round in 1..=args.rounds {
        for index in 1..variants.len() {
            // The second build of a pair runs a few percent slower here (caches): alternate
            // which goes first, so that the order cancels out of the median.
            let (reference, time) = if round % 2 == 1 {
                let reference = rebuild(0, round, index)?;
                (reference, rebuild(index, round, 0)?)
            } else {
                let time = rebuild(index, round, 0)?;
                (rebuild(0, round, index)?, time)
            };
            times[0].push(reference);
            times[index].push(time);
            ratios[index].push(time.as_secs_f64() / reference.as_secs_f64());
        }
        eprintln!("bench-build: round {round}/{} done", args.rounds);
    }
    ratios[0] = vec![1.0];
    let mut table = format!(
        "{} files of {} bytes in {FOLDERS} folders; `cargo build --profile {}` after touching `main.rs` (wall time, link included); \
         median of {} rebuilds, and the median of each one's ratio to a rebuild of the hand-written table made next to it (first and second in turn).\n\n\
         | embedded with | rebuild | vs hand-written |\n| --- | --- | --- |\n",
        count, size, args.profile, args.rounds
    );
    for ((variant, times), ratios) in variants.iter().zip(&mut times).zip(&mut ratios) {
        table.push_str(&format!(
            "| {} | {:.2} s | {:.2}x |\n",
            variant.label,
            median(times).as_secs_f64(),
            median(ratios)
        ));
    }
    Ok(table)
}

/// Text with some variety for each of `files`, `size` bytes each, the same in every crate.
fn contents(files: &[String], size: usize) -> Vec<String> {
    let mut numbers = Xorshift::new(7);
    files
        .iter()
        .map(|path| {
            let mut text = String::with_capacity(size + 64);
            while text.len() < size {
                let number = numbers.next().unwrap_or_default();
                text.push_str(&format!("{path} {number:x}\n"));
            }
            text.truncate(size);
            text
        })
        .collect()
}

/// A crate under `target` embedding `files` the way `variant` does, built once.
fn first_build(
    target: &Path,
    variant: &Variant,
    files: &[String],
    contents: &[String],
    profile: &str,
) -> anyhow::Result<Project> {
    let project = Project::new(target);
    for (path, text) in files.iter().zip(contents) {
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
    build(&project, profile)?;
    Ok(project)
}

/// The median of `values` (sorted in place).
fn median<T: PartialOrd + Copy>(values: &mut [T]) -> T {
    values.sort_by(|left, right| left.partial_cmp(right).unwrap_or(std::cmp::Ordering::Equal));
    values[values.len() / 2]
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
