//! `cargo xtask bench-cold`: what depending on bindery costs a user's cold build, against the
//! crates they would otherwise pick. Each contender is a crate outside the workspace, built with
//! `cargo build --release` (a user's profile: nothing of the tests' quick profiles) into an empty
//! target folder with a warm registry (fetched before, not timed). Two groups, each with its
//! reference first: a crate that only embeds a two-file folder (rust-embed 8.13's derive, then
//! bindery's defaults and `include_dir!`), and one that serves it over axum (rust-embed with
//! axum-embed on axum 0.7, then bindery's `ServeCatalog` on axum 0.8 and tower-http 0.7's
//! `ServeDir` from disk). Every build runs right after a build of its group's reference; a
//! row's ratio is the median of its pairs'. Crates compiled are cargo's `Compiling` lines, the
//! longest units are read from `--timings`.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};

/// Flags of `cargo xtask bench-cold`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Cold builds of each contender, each right after one of its group's reference.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    /// Only the contenders whose label contains this text (and their references).
    #[arg(long)]
    pub only: Option<String>,
}

/// One crate a user might write.
struct Contender {
    label: &'static str,
    /// The manifest's `[dependencies]` section's body.
    dependencies: String,
    main: &'static str,
    /// More arguments of `cargo build` (`--target`: host and target then differ, as when
    /// cross-compiling, and what both sides use is built twice).
    build_args: &'static [&'static str],
}

const EMBED_MAIN_BINDERY: &str = "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\");\n\n\
fn main() {\n    for file in ASSETS.iter() {\n        println!(\"{} {}\", file.path(), file.len());\n    }\n}\n";

const EMBED_MAIN_RUST_EMBED: &str = "#[derive(rust_embed::Embed)]\n#[folder = \"assets\"]\nstruct Assets;\n\n\
fn main() {\n    for path in Assets::iter() {\n        let len = Assets::get(&path).map_or(0, |file| file.data.len());\n        \
println!(\"{path} {len}\");\n    }\n}\n";

const EMBED_MAIN_INCLUDE_DIR: &str = "static ASSETS: include_dir::Dir<'_> = include_dir::include_dir!(\"$CARGO_MANIFEST_DIR/assets\");\n\n\
fn main() {\n    for file in ASSETS.files() {\n        println!(\"{} {}\", file.path().display(), file.contents().len());\n    }\n}\n";

const SERVE_MAIN_BINDERY: &str = "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\");\n\n\
#[tokio::main]\nasync fn main() -> std::io::Result<()> {\n    \
let app = axum::Router::new().fallback_service(bindery::serve::ServeCatalog::new(&ASSETS));\n    \
let listener = tokio::net::TcpListener::bind(\"127.0.0.1:0\").await?;\n    axum::serve(listener, app).await\n}\n";

const SERVE_MAIN_RUST_EMBED: &str = "#[derive(rust_embed::Embed, Clone)]\n#[folder = \"assets\"]\nstruct Assets;\n\n\
#[tokio::main]\nasync fn main() -> std::io::Result<()> {\n    \
let app = axum::Router::new().fallback_service(axum_embed::ServeEmbed::<Assets>::new());\n    \
let listener = tokio::net::TcpListener::bind(\"127.0.0.1:0\").await?;\n    axum::serve(listener, app).await\n}\n";

const SERVE_MAIN_SERVE_DIR: &str = "#[tokio::main]\nasync fn main() -> std::io::Result<()> {\n    \
let app = axum::Router::new().fallback_service(tower_http::services::ServeDir::new(\"assets\"));\n    \
let listener = tokio::net::TcpListener::bind(\"127.0.0.1:0\").await?;\n    axum::serve(listener, app).await\n}\n";

/// The two groups, each with its reference first.
fn groups(workspace: &Path) -> [(&'static str, Vec<Contender>); 2] {
    let bindery = workspace.join("crates/bindery");
    let bindery = bindery.display();
    let tokio =
        "tokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\", \"net\"] }";
    let embed = vec![
        Contender {
            label: "rust-embed 8.13, `#[derive(Embed)]` (reference)",
            dependencies: "rust-embed = \"=8.13.0\"\n".into(),
            main: EMBED_MAIN_RUST_EMBED,
            build_args: &[],
        },
        Contender {
            label: "bindery, default features, `embed!`",
            dependencies: format!("bindery = {{ path = \"{bindery}\" }}\n"),
            main: EMBED_MAIN_BINDERY,
            build_args: &[],
        },
        Contender {
            label: "bindery, default features, `embed!`, `--target x86_64-unknown-linux-gnu`",
            dependencies: format!("bindery = {{ path = \"{bindery}\" }}\n"),
            main: EMBED_MAIN_BINDERY,
            build_args: &["--target", "x86_64-unknown-linux-gnu"],
        },
        Contender {
            label: "include_dir 0.7, `include_dir!`",
            dependencies: "include_dir = \"0.7\"\n".into(),
            main: EMBED_MAIN_INCLUDE_DIR,
            build_args: &[],
        },
    ];
    let serve = vec![
        Contender {
            label: "rust-embed 8.13 + axum-embed 0.1, axum 0.7 (reference)",
            dependencies: format!(
                "rust-embed = \"=8.13.0\"\naxum-embed = \"0.1\"\naxum = \"0.7\"\n{tokio}\n"
            ),
            main: SERVE_MAIN_RUST_EMBED,
            build_args: &[],
        },
        Contender {
            label: "bindery `serve` (`ServeCatalog`), axum 0.8",
            dependencies: format!(
                "bindery = {{ path = \"{bindery}\", features = [\"serve\"] }}\naxum = \"0.8\"\n{tokio}\n"
            ),
            main: SERVE_MAIN_BINDERY,
            build_args: &[],
        },
        Contender {
            label: "tower-http 0.7 `ServeDir` (from disk), axum 0.8",
            dependencies: format!(
                "tower-http = {{ version = \"0.7\", features = [\"fs\"] }}\naxum = \"0.8\"\n{tokio}\n"
            ),
            main: SERVE_MAIN_SERVE_DIR,
            build_args: &[],
        },
    ];
    [
        ("A crate that embeds a two-file folder", embed),
        ("A crate that serves it over axum", serve),
    ]
}

/// What one cold build cost.
#[derive(Debug, Clone)]
struct Build {
    wall: f64,
    /// User plus system seconds of every process of the build.
    cpu: f64,
    crates: usize,
    /// The crates compiled twice (for the host and for the target), by name.
    twice: Vec<String>,
    /// The build's longest units, longest first: name and seconds.
    path: Vec<(String, f64)>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let workspace = std::env::current_dir()?;
    let mut tables = vec![format!(
        "`cargo build --release`, empty target, warm registry; median of {} cold builds, each right \
         after one of its group's reference.\n",
        args.rounds
    )];
    for (title, contenders) in groups(&workspace) {
        let projects: Vec<tempfile::TempDir> = contenders
            .iter()
            .map(project)
            .collect::<anyhow::Result<_>>()?;
        let wanted = |contender: &Contender| {
            args.only
                .as_deref()
                .is_none_or(|only| contender.label.contains(only))
        };
        if !contenders[1..].iter().any(wanted) {
            continue;
        }
        let mut runs: Vec<Vec<(Build, Build)>> = vec![Vec::new(); contenders.len()];
        for round in 0..args.rounds {
            for (index, contender) in contenders.iter().enumerate().skip(1) {
                if !wanted(contender) {
                    continue;
                }
                eprintln!("bench-cold: round {}, {}", round + 1, contender.label);
                let reference = cold_build(projects[0].path(), contenders[0].build_args)?;
                let this = cold_build(projects[index].path(), contender.build_args)?;
                runs[index].push((reference, this));
            }
        }
        tables.push(table(title, &contenders, &runs));
    }
    let tables = tables.join("\n");
    println!("{tables}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/cold.md", &tables)?;
    Ok(())
}

/// A contender's crate in a folder of its own, its dependencies fetched (the warm registry).
fn project(contender: &Contender) -> anyhow::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let path = dir.path();
    std::fs::create_dir_all(path.join("src"))?;
    std::fs::create_dir_all(path.join("assets"))?;
    std::fs::write(
        path.join("assets/index.html"),
        "<!doctype html><h1>hello</h1>\n",
    )?;
    std::fs::write(path.join("assets/style.css"), "body { margin: 0 }\n")?;
    std::fs::write(
        path.join("Cargo.toml"),
        format!(
            "[package]\nname = \"cold\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [workspace]\n\n[dependencies]\n{}",
            contender.dependencies
        ),
    )?;
    std::fs::write(path.join("src/main.rs"), contender.main)?;
    let status = user_cargo(path, None)
        .args(["fetch", "--quiet"])
        .status()
        .context("cannot run cargo fetch")?;
    if !status.success() {
        bail!("cargo fetch failed for {}", contender.label);
    }
    Ok(dir)
}

/// `cargo` as a user runs it in `path`: the outer build's settings removed.
pub(crate) fn user_cargo(path: &Path, target: Option<&Path>) -> std::process::Command {
    let mut command =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(path)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("BINDERY_CACHE_DIR")
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER")
        .env_remove("RUSTC_WRAPPER");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("CARGO_PROFILE_") {
            command.env_remove(key);
        }
    }
    if let Some(target) = target {
        command.env("CARGO_TARGET_DIR", target);
    }
    command
}

/// One `cargo build --release --timings` (and `build_args`) of the crate in `path` into an
/// empty target folder, with an empty bindery cache.
fn cold_build(path: &Path, build_args: &[&str]) -> anyhow::Result<Build> {
    let target = tempfile::tempdir()?;
    let cache = tempfile::tempdir()?;
    let cpu_before = crate::process::children_cpu_seconds()?;
    let started = Instant::now();
    let output = user_cargo(path, Some(target.path()))
        .env("BINDERY_CACHE_DIR", cache.path())
        .args(["build", "--release", "--timings"])
        .args(build_args)
        .output()
        .context("cannot run cargo build")?;
    let wall = started.elapsed().as_secs_f64();
    let cpu = crate::process::children_cpu_seconds()? - cpu_before;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("cold build in {} failed:\n{stderr}", path.display());
    }
    let compiled: Vec<&str> = stderr
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("Compiling "))
        .filter_map(|rest| rest.split(' ').next())
        .collect();
    let crates = compiled.len();
    let mut twice: Vec<String> = compiled
        .iter()
        .filter(|name| compiled.iter().filter(|other| other == name).count() > 1)
        .map(|name| (*name).to_owned())
        .collect();
    twice.sort();
    twice.dedup();
    let timings = std::fs::read_to_string(target.path().join("cargo-timings/cargo-timing.html"))
        .context("cargo wrote no --timings report")?;
    Ok(Build {
        wall,
        cpu,
        crates,
        twice,
        path: longest_units(&timings)?,
    })
}

/// One unit of `--timings`' `UNIT_DATA`.
#[derive(Debug, serde::Deserialize)]
struct Unit {
    name: String,
    target: String,
    duration: f64,
}

/// The build's four longest units, longest first. On two cores a cold build is bound by the
/// CPU its units take, not by one chain of them, so these are what holds it.
fn longest_units(html: &str) -> anyhow::Result<Vec<(String, f64)>> {
    let data = html
        .split_once("const UNIT_DATA = ")
        .and_then(|(_, rest)| rest.split_once(";\n"))
        .map(|(data, _)| data)
        .context("no UNIT_DATA in the --timings report")?;
    let mut units: Vec<Unit> = serde_json::from_str(data).context("UNIT_DATA")?;
    units.sort_by(|a, b| b.duration.total_cmp(&a.duration));
    Ok(units
        .iter()
        .take(4)
        .map(|unit| {
            let name = if unit.target.contains("build-script") {
                format!("{} (build script)", unit.name)
            } else {
                unit.name.clone()
            };
            (name, unit.duration)
        })
        .collect())
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// A group's table: the reference's row, then each contender's with every pair.
fn table(title: &str, contenders: &[Contender], runs: &[Vec<(Build, Build)>]) -> String {
    let mut out = format!(
        "{title}:\n\n| crate | wall (median) | CPU | crates compiled (twice) | wall vs reference (pairs) | \
         CPU vs reference | longest units (`--timings`) |\n| --- | --- | --- | --- | --- | --- | --- |\n"
    );
    let references: Vec<&Build> = runs
        .iter()
        .flatten()
        .map(|(reference, _)| reference)
        .collect();
    let row = |label: &str, builds: &[&Build], pairs: Option<&[(Build, Build)]>| {
        let wall = median(builds.iter().map(|build| build.wall).collect());
        let cpu = median(builds.iter().map(|build| build.cpu).collect());
        let (ratio, cpu_ratio) = match pairs {
            None => ("1.00x".to_owned(), "1.00x".to_owned()),
            Some(pairs) => {
                let each: Vec<f64> = pairs.iter().map(|(r, t)| t.wall / r.wall).collect();
                let listed: Vec<String> = each.iter().map(|ratio| format!("{ratio:.2}")).collect();
                let cpu = median(pairs.iter().map(|(r, t)| t.cpu / r.cpu).collect());
                (
                    format!("**{:.2}x** ({})", median(each), listed.join(", ")),
                    format!("{cpu:.2}x"),
                )
            }
        };
        let last = builds.last().map(|build| {
            let units: Vec<String> = build
                .path
                .iter()
                .map(|(name, seconds)| format!("{name} {seconds:.1} s"))
                .collect();
            let crates = if build.twice.is_empty() {
                build.crates.to_string()
            } else {
                format!("{} ({})", build.crates, build.twice.join(", "))
            };
            (crates, units.join(", "))
        });
        let (crates, units) = last.unwrap_or_default();
        format!(
            "| {label} | {wall:.1} s | {cpu:.1} s | {crates} | {ratio} | {cpu_ratio} | {units} |\n"
        )
    };
    if !references.is_empty() {
        out.push_str(&row(contenders[0].label, &references, None));
    }
    for (contender, pairs) in contenders.iter().zip(runs).skip(1) {
        if pairs.is_empty() {
            continue;
        }
        let builds: Vec<&Build> = pairs.iter().map(|(_, this)| this).collect();
        out.push_str(&row(contender.label, &builds, Some(pairs)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::longest_units;

    #[test]
    fn the_longest_units_are_read_from_the_timings_report() {
        let html = r#"<script>
const UNIT_DATA = [
{"i": 0, "name": "a", "target": "", "start": 0.0, "duration": 1.0},
{"i": 1, "name": "b", "target": " build-script", "start": 0.0, "duration": 3.0},
{"i": 2, "name": "c", "target": " bin \"cold\"", "start": 3.0, "duration": 2.0},
{"i": 3, "name": "d", "target": "", "start": 0.0, "duration": 0.5},
{"i": 4, "name": "e", "target": "", "start": 0.0, "duration": 0.1}
];
</script>"#;
        let units = longest_units(html).expect("units");
        let names: Vec<&str> = units.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["b (build script)", "c", "a", "d"]);
        assert!(longest_units("<html></html>").is_err());
    }
}
