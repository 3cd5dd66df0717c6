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
    let project = Project::new("bindery_external_tree", "");
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
    // bindery with default features: neither `br` nor `zstd`.
    let project = Project::new("bindery_external_no_br", "");
    project.write(
        "src/main.rs",
        "static SITE: bindery::Catalog =\n    bindery::embed!(\"assets\", precompress = [\"gzip\", \"br\", \"zstd\"]);\n\n\
         fn main() {\n    println!(\"{}\", SITE.len());\n}\n",
    );
    project.write("assets/index.html", "<p>compressible</p>\n".repeat(100));
    let stderr = project.build_error();
    for feature in ["br", "zstd"] {
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
    assert!(
        !stderr.contains("gzip` needs"),
        "gzip needs no feature: {stderr}"
    );
}
