//! A crate outside the workspace embeds a tree of its own in each mode and reads it back.

use bindery_test_support::noise;

use crate::project::Project;

const MAIN: &str = r#"
use std::path::Path;

static STATIC: bindery::Catalog = bindery::embed!("assets", mode = "static");
static GZIP: bindery::Catalog = bindery::embed!("assets", mode = "gzip");
static COPY: bindery::Catalog = bindery::embed!("assets", mode = "copy");

fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let path = format!("{prefix}{name}");
        if entry.file_type().unwrap().is_dir() {
            walk(&entry.path(), &format!("{path}/"), out);
        } else {
            out.push((path, std::fs::read(entry.path()).unwrap()));
        }
    }
}

fn main() {
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"), "", &mut files);
    files.sort();
    let mut checked = 0;
    for catalog in [&STATIC, &GZIP, &COPY] {
        let paths: Vec<&str> = catalog.iter().map(|file| file.path()).collect();
        let expected: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(paths, expected, "{}", catalog.mode());
        for (path, bytes) in &files {
            let got = catalog.get(path).unwrap_or_else(|| panic!("{path} missing"));
            assert!(got[..] == bytes[..], "{}: {path} differs", catalog.mode());
            checked += 1;
        }
    }
    let compressed = GZIP.iter().filter(|file| file.gzip().is_some()).count();
    println!("checked {checked} reads; {compressed} stored compressed");
}
"#;

#[test]
fn a_crate_outside_the_workspace_embeds_its_own_tree_in_every_mode() {
    let project = Project::with_features("bindery_external_tree", &["gzip"], "");
    project.write("src/main.rs", MAIN);
    project.write(
        "assets/index.html",
        "<!doctype html><p>hi</p>\n".repeat(100),
    );
    project.write("assets/empty.txt", "");
    project.write("assets/with space & unicodé 日本.txt", "odd name\n");
    project.write(
        "assets/a/b/c/d/e/f/six-deep.css",
        "body { margin: 0 }\n".repeat(50),
    );
    project.write("assets/big/noise.bin", noise(20 * 1024 * 1024, 0));
    project.build(&[]);
    let output = project.run();
    assert_eq!(output.trim(), "checked 15 reads; 2 stored compressed");
}

#[test]
fn precompress_without_its_feature_is_a_compile_error_naming_the_feature() {
    // bindery with default features: neither `gzip` nor `br` nor `zstd`.
    let project = Project::new("bindery_external_no_br", "");
    project.write(
        "src/main.rs",
        "static SITE: bindery::Catalog =\n    bindery::embed!(\"assets\", precompress = [\"gzip\", \"br\", \"zstd\"]);\n\n\
         fn main() {\n    println!(\"{}\", SITE.len());\n}\n",
    );
    project.write("assets/index.html", "<p>compressible</p>\n".repeat(100));
    let stderr = project.build_error();
    for feature in ["gzip", "br", "zstd"] {
        assert!(
            stderr.contains(&format!(
                "precompress `{feature}` needs the `{feature}` feature of bindery"
            )),
            "{stderr}"
        );
    }
    assert!(
        stderr.contains("src/main.rs:2:"),
        "spanned on the argument: {stderr}"
    );

    // A brotli sibling cannot be checked without the decoder: refused, naming the feature.
    project.write(
        "src/main.rs",
        "static SITE: bindery::Catalog =\n    bindery::embed!(\"assets\", siblings = true);\n\n\
         fn main() {\n    println!(\"{}\", SITE.len());\n}\n",
    );
    project.write("assets/index.html.br", "not checked");
    let stderr = project.build_error();
    assert!(
        stderr.contains("index.html.br` is br: checking it needs the `br` feature of bindery"),
        "{stderr}"
    );
}

#[test]
fn a_crate_that_reexports_bindery_serves_catalogs_through_crate_path() {
    // `user` depends on `kit` only, which re-exports bindery: generated code must name
    // `kit::bindery`, not `::bindery`.
    let project = Project::new("bindery_kit_user", "kit = { path = \"kit\" }\n");
    project.write(
        "kit/Cargo.toml",
        format!(
            "[package]\nname = \"kit\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nbindery = {{ path = {:?}, features = [\"gzip\"] }}\n",
            crate::project::crate_path("bindery")
        ),
    );
    project.write("kit/src/lib.rs", "pub use bindery;\n");
    // The user's own manifest must not name bindery: drop it from the generated one.
    let manifest = std::fs::read_to_string(project.path().join("Cargo.toml")).expect("manifest");
    let manifest: String = manifest
        .lines()
        .filter(|line| !line.starts_with("bindery ="))
        .map(|line| format!("{line}\n"))
        .collect();
    project.write("Cargo.toml", manifest);
    project.write("assets/hello.txt", "hello through kit");
    project.write(
        "assets/other.txt",
        "another small file, so that there is a pack",
    );
    project.write("assets/large.bin", noise(1_100_000, 5));
    project.write(
        "src/main.rs",
        "static ASSETS: kit::bindery::Catalog = kit::bindery::embed!(\n    \"assets\",\n    \
         mode = \"gzip\",\n    crate_path = \"kit::bindery\",\n);\n\n\
         fn main() {\n    let hello = ASSETS.get(\"hello.txt\").unwrap();\n    \
         assert_eq!(ASSETS.get(\"large.bin\").unwrap().len(), 1_100_000);\n    \
         println!(\"{}\", String::from_utf8_lossy(&hello));\n}\n",
    );
    project.build(&[]);
    assert_eq!(project.run().trim(), "hello through kit");
}

#[test]
fn a_crate_path_that_is_no_path_is_a_compile_error_naming_it() {
    let project = Project::new("bindery_bad_crate_path", "");
    project.write("assets/hello.txt", "hi");
    project.write(
        "src/main.rs",
        "static ASSETS: bindery::Catalog = bindery::embed!(\"assets\", crate_path = \"not a path\");\n\nfn main() {\n    let _ = ASSETS.len();\n}\n",
    );
    let stderr = project.build_error();
    assert!(
        stderr.contains("invalid crate path `not a path`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("src/main.rs:1:"),
        "spanned on the argument: {stderr}"
    );
}

/// The size guards and a fingerprint collision are compile errors pointing at their option,
/// naming the offending files, largest first.
#[test]
fn guards_and_fingerprint_collisions_are_compile_errors_at_their_option() {
    let project = Project::new("bindery_guards", "");
    project.write("assets/video.mp4", vec![0u8; 300_000]);
    project.write("assets/big.json", vec![b' '; 200_000]);
    project.write("assets/small.txt", "hi");
    let cases = [
        (
            "max_file_size = \"100 KiB\"",
            "2 files are larger than max_file_size (100.0 KiB): `video.mp4` (293.0 KiB), `big.json` (195.3 KiB)",
        ),
        (
            "max_total_size = 400_000",
            "the catalog holds 488.3 KiB (more than max_total_size, 390.6 KiB); the largest files: `video.mp4` (293.0 KiB), `big.json` (195.3 KiB), `small.txt` (2 B)",
        ),
    ];
    for (option, message) in cases {
        project.write(
            "src/main.rs",
            format!(
                "static ASSETS: bindery::Catalog =\n    bindery::embed!(\"assets\", {option});\n\nfn main() {{\n    let _ = ASSETS.len();\n}}\n"
            ),
        );
        let stderr = project.build_error();
        assert!(stderr.contains(message), "{option}: {stderr}");
        let column = "    bindery::embed!(\"assets\", ".len() + 1;
        assert!(
            stderr.contains(&format!("src/main.rs:2:{column}")),
            "spanned on the option: {stderr}"
        );
    }

    // `a.txt` fingerprinted is `a.<hash>.txt`: a file of that name makes the two meet.
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(b"a"));
    project.write("assets/a.txt", "a");
    project.write(&format!("assets/a.{}.txt", &hash[..12]), "other");
    project.write(
        "src/main.rs",
        "static ASSETS: bindery::Catalog =\n    bindery::embed!(\"assets\", fingerprint = true);\n\nfn main() {\n    let _ = ASSETS.len();\n}\n",
    );
    let stderr = project.build_error();
    assert!(
        stderr.contains(&format!(
            "fingerprint: `a.{}.txt` (for `a.txt`) is also the name of a file of the catalog",
            &hash[..12]
        )),
        "{stderr}"
    );
}

/// Each option a feature compiles works in a user's crate that turns the feature on, and the
/// same crate with bindery's default features compiles the rest: `integrity = false` and
/// `gitignore = false` need nothing.
#[test]
fn options_that_need_a_feature_work_with_it_and_their_off_values_need_none() {
    let project = Project::with_features(
        "bindery_feature_options",
        &["gzip", "integrity", "gitignore"],
        "",
    );
    project.write("assets/.gitignore", "*.log\n");
    project.write("assets/app.js", "console.log('kept');\n".repeat(200));
    project.write("assets/debug.log", "left out by .gitignore");
    project.write(
        "src/main.rs",
        "static ASSETS: bindery::Catalog = bindery::embed!(\n    \"assets\",\n    \
         mode = \"gzip\",\n    integrity = \"sha512\",\n    gitignore = true,\n);\n\n\
         fn main() {\n    let app = ASSETS.file(\"app.js\").unwrap();\n    \
         assert!(app.gzip().is_some(), \"stored gzip\");\n    \
         assert_eq!(&*ASSETS.get(\"app.js\").unwrap(), \"console.log('kept');\\n\".repeat(200).as_bytes());\n    \
         assert!(app.integrity().unwrap().starts_with(\"sha512-\"));\n    \
         assert_eq!(app.sha256().map(|digest| digest.len()), Some(32));\n    \
         assert!(ASSETS.file(\"debug.log\").is_none(), \"ignored\");\n    \
         println!(\"{} files\", ASSETS.len());\n}\n",
    );
    project.build(&[]);
    assert_eq!(project.run().trim(), "1 files");

    let plain = Project::new("bindery_feature_options_off", "");
    plain.write("assets/app.js", "console.log('kept');\n");
    plain.write(
        "src/main.rs",
        "static ASSETS: bindery::Catalog =\n    \
         bindery::embed!(\"assets\", integrity = false, gitignore = false);\n\n\
         fn main() {\n    let app = ASSETS.file(\"app.js\").unwrap();\n    \
         assert_eq!((app.integrity(), app.sha256()), (None, None));\n    \
         println!(\"{} files\", ASSETS.len());\n}\n",
    );
    plain.build(&[]);
    assert_eq!(plain.run().trim(), "1 files");
}
