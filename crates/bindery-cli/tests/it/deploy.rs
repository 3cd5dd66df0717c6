//! A deploy through the generator: `bindery release` saves release 1 of a Vite build, release 2
//! is embedded by `bindery embed --releases --dictionaries` and by the macro with the same
//! options, and the two catalogs answer every URL of either release alike, byte for byte
//! (the deltas included).

use base64::Engine as _;
use sha2::Digest as _;

use bindery_test_support::{Project, crate_path};

use crate::support::{BINDERY, stderr, stdout};

/// A bundle of many small functions, one of which says `version`.
fn bundle(version: u32) -> String {
    (0..300)
        .map(|index| {
            let tag = if index == 150 { version } else { 0 };
            format!("export function item{index}(v) {{ return \"item {index} {tag}\" + v; }}\n")
        })
        .collect()
}

/// Vite's output of release `version`: its app bundle (named `app_name`), an unchanged lazy
/// chunk, the page and the manifest.
fn write_release(project: &Project, version: u32, app_name: &str) {
    let _ = std::fs::remove_dir_all(project.path().join("dist"));
    project.write(&format!("dist/assets/{app_name}"), bundle(version));
    project.write("dist/assets/lazy-La2yChnk.js", "export const lazy = 1;\n");
    project.write(
        "dist/index.html",
        format!("<!doctype html><p>release {version}</p>"),
    );
    project.write(
        "dist/.vite/manifest.json",
        format!(
            r#"{{"index.html": {{"file": "assets/{app_name}", "isEntry": true, "src": "index.html", "dynamicImports": ["src/lazy.js"]}},
               "src/lazy.js": {{"file": "assets/lazy-La2yChnk.js", "isDynamicEntry": true}}}}"#
        ),
    );
}

const MAIN: &str = r#"mod generated;

use bindery::serve::ServeCatalog;

static BY_MACRO: bindery::Catalog = bindery::embed!(
    "dist",
    manifest = "vite",
    releases = "releases",
    dictionaries = true,
    precompress = ["br", "zstd"]
);

fn answer(service: &ServeCatalog, path: &str, headers: &[(&str, &str)]) -> String {
    let mut request = http::Request::get(format!("/{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = service.respond(&request.body(()).unwrap());
    let shown: Vec<String> = ["content-encoding", "etag", "vary", "use-as-dictionary", "cache-control"]
        .iter()
        .map(|name| format!("{name}={:?}", response.headers().get(*name)))
        .collect();
    let status = response.status();
    let body = response.into_body().into_bytes();
    format!("{status} {} {} bytes {}", shown.join(" "), body.len(), blake3_like(&body))
}

/// A cheap digest of a body (FNV-1a), enough to tell two bodies apart.
fn blake3_like(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x100000001b3))
}

fn main() {
    let (left, right) = (&generated::GENERATED, &BY_MACRO);
    assert_eq!(left.kept(), ["assets/app-0ld11111.js"]);
    assert_eq!(left.kept(), right.kept());
    assert_eq!(left.len(), right.len());
    let dictionary = std::env::var("OLD_DICTIONARY").unwrap();
    let cases: [&[(&str, &str)]; 3] = [
        &[],
        &[("accept-encoding", "gzip, br, zstd")],
        &[("accept-encoding", "gzip, br, zstd, dcz"), ("available-dictionary", &dictionary)],
    ];
    let services = [left, right].map(|catalog| ServeCatalog::new(catalog));
    let mut deltas = 0;
    for file in left.iter() {
        for headers in cases {
            let [a, b] = [0, 1].map(|side| answer(&services[side], file.path(), headers));
            assert_eq!(a, b, "{} {headers:?}", file.path());
            deltas += usize::from(a.contains("\"dcz\""));
        }
    }
    assert_eq!(deltas, 1, "one delta: the new bundle against the old");
    println!("{} files agree", left.len());
}
"#;

#[test]
fn a_release_saved_by_the_generator_is_served_alike_by_both_doors_with_its_delta() {
    if !bindery_test_support::slow_test(
        "bindery-cli",
        "a_release_saved_by_the_generator_is_served_alike_by_both_doors_with_its_delta",
        "builds a throwaway crate",
    ) {
        return;
    }
    let project = Project::new(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects"));
    project.write(
        "Cargo.toml",
        format!(
            "[package]\nname = \"deploy_agrees\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [workspace]\n\n[dependencies]\nbindery = {{ path = {:?}, features = [\"serve\", \"vite\", \"releases\", \"br\", \"zstd\"] }}\nhttp = \"1\"\n",
            crate_path("bindery")
        ),
    );
    write_release(&project, 1, "app-0ld11111.js");
    let old = bundle(1);
    let bindery = |args: &[&str]| {
        std::process::Command::new(BINDERY)
            .args(args)
            .current_dir(project.path())
            .output()
            .expect("bindery runs")
    };
    let saved = bindery(&[
        "release",
        "dist",
        "--into",
        "releases",
        "--manifest",
        "vite",
    ]);
    assert!(saved.status.success(), "{}", stderr(&saved));
    assert!(
        stderr(&saved).contains("saved release 1 (2 files)"),
        "{}",
        stderr(&saved)
    );
    write_release(&project, 2, "app-N3w22222.js");
    let generated = bindery(&[
        "embed",
        "dist",
        "--manifest",
        "vite",
        "--releases",
        "releases",
        "--dictionaries",
        "--precompress",
        "br,zstd",
        "--out",
        "src/generated.rs",
        "--name",
        "GENERATED",
    ]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    project.write("src/main.rs", MAIN);
    let dictionary = format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(old.as_bytes()))
    );
    let run = project
        .cargo(&["run", "--quiet"])
        .env("OLD_DICTIONARY", dictionary)
        .output()
        .expect("cargo runs");
    assert!(run.status.success(), "{}", stderr(&run));
    // The two bundles, the lazy chunk, the page (the manifest is hidden).
    assert_eq!(stdout(&run).trim(), "4 files agree");
}

/// A crate that embeds `dist` with the releases kept beside it and prints what it holds.
const KEPT_MAIN: &str = r#"
static SITE: bindery::Catalog = bindery::embed!(
    "dist",
    manifest = "vite",
    releases = "releases",
    dictionaries = true,
    precompress = ["zstd"]
);

fn main() {
    println!("kept {:?}", SITE.kept());
}
"#;

/// The crate of [`KEPT_MAIN`], named `name`, with bundles no earlier run made (their deltas are
/// not in the shared cache yet): `write` writes release `version`'s output with them.
struct KeptCrate {
    project: Project,
    name: &'static str,
    nonce: String,
}

impl KeptCrate {
    fn new(name: &'static str) -> KeptCrate {
        let project =
            Project::new(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects"));
        project.write(
            "Cargo.toml",
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
                 [workspace]\n\n[dependencies]\nbindery = {{ path = {:?}, features = [\"zstd\", \"vite\", \"releases\"] }}\n",
                crate_path("bindery")
            ),
        );
        project.write("src/main.rs", KEPT_MAIN);
        let nonce = format!(
            "// run {:?} {}\n",
            std::time::SystemTime::now(),
            std::process::id()
        );
        KeptCrate {
            project,
            name,
            nonce,
        }
    }

    /// Release `version`'s output in `project`'s `dist/`, its bundle unique to this run.
    fn write(&self, project: &Project, version: u32, app_name: &str) {
        write_release(project, version, app_name);
        project.write(
            &format!("dist/assets/{app_name}"),
            format!("{}{}", bundle(version), self.nonce),
        );
    }

    /// `cargo build`; whether it compiled the crate.
    fn build(&self) -> bool {
        let output = self.project.cargo(&["build"]).output().expect("cargo runs");
        assert!(output.status.success(), "{}", stderr(&output));
        stderr(&output).contains(&format!("Compiling {} ", self.name))
    }

    /// A build that compiles, then one that compiles nothing.
    fn build_once(&self, after: &str) {
        assert!(self.build(), "{after}: the crate is rebuilt");
        assert!(!self.build(), "{after}: a second build compiles again");
    }

    /// What the program says it holds.
    fn run(&self, expected: &str) {
        let output = self
            .project
            .cargo(&["run", "--quiet"])
            .output()
            .expect("cargo runs");
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stdout(&output).trim(), expected);
    }
}

#[test]
fn a_release_saved_under_an_unchanged_crate_rebuilds_it_and_a_new_delta_rebuilds_once() {
    if !bindery_test_support::slow_test(
        "bindery-cli",
        "a_release_saved_under_an_unchanged_crate_rebuilds_it_and_a_new_delta_rebuilds_once",
        "builds a throwaway crate several times",
    ) {
        return;
    }
    let crate_ = KeptCrate::new("release_rebuilds");
    crate_.write(&crate_.project, 2, "app-N3w22222.js");
    // The build writes the releases' index it names to cargo: that alone rebuilds nothing.
    crate_.build_once("the first build");
    crate_.run("kept []");

    // A release saved from another build (an older deploy's output), the crate untouched.
    let older = Project::new(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects"));
    crate_.write(&older, 1, "app-0ld11111.js");
    let saved = std::process::Command::new(BINDERY)
        .args(["release"])
        .arg(older.path().join("dist"))
        .arg("--into")
        .arg(crate_.project.path().join("releases"))
        .args(["--manifest", "vite"])
        .output()
        .expect("bindery runs");
    assert!(saved.status.success(), "{}", stderr(&saved));
    // That build makes a delta (the new bundle against the kept one), then nothing is left.
    crate_.build_once("a release saved");
    crate_.run("kept [\"assets/app-0ld11111.js\"]");

    // An edit makes another delta: one build, then none.
    crate_.write(&crate_.project, 3, "app-Thr33333.js");
    crate_.build_once("an edit");
    crate_.run("kept [\"assets/app-0ld11111.js\"]");
}
