//! Rebuild tracking: with `bindery_codegen::track` in build.rs, adding, editing and deleting files
//! re-embeds on the next `cargo build`; with nothing changed, nothing is compiled; an edit
//! recompresses only the edited file.

use std::collections::BTreeMap;
use std::path::Path;

use crate::project::{Project, crate_path};

const BUILD: &str = r#"
fn main() {
    bindery_codegen::track("assets");
    println!("cargo::rerun-if-changed=build.rs");
}
"#;

const MAIN: &str = r#"
static GZIP: bindery::Catalog = bindery::embed!("assets", mode = "gzip");
static STATIC: bindery::Catalog = bindery::embed!("assets");

fn main() {
    for catalog in [&GZIP, &STATIC] {
        for file in catalog {
            let text = catalog.get(file.path()).unwrap();
            println!("{} {}={}", catalog.mode(), file.path(), String::from_utf8_lossy(&text).len());
        }
    }
}
"#;

/// Blob names with their status-change time: any rewrite, rename or touch changes it.
fn blobs(cache: &Path) -> BTreeMap<String, (i64, i64)> {
    bindery_test_support::ctimes(&cache.join("gzip"))
}

fn listing(lines: &[(&str, usize)]) -> String {
    let mut out = String::new();
    for mode in ["gzip", "static"] {
        for (path, len) in lines {
            out.push_str(&format!("{mode} {path}={len}\n"));
        }
    }
    out
}

#[test]
fn adding_editing_and_deleting_files_re_embeds_and_nothing_else_recompresses() {
    let extra = format!(
        "[build-dependencies]\nbindery-codegen = {{ path = \"{}\" }}\n",
        crate_path("bindery-codegen")
    );
    let project = Project::with_features("bindery_rebuild_tracking", &["gzip"], &extra);
    let cache = tempfile::tempdir().expect("cache");
    let env = [("BINDERY_CACHE_DIR", cache.path())];
    let a = "compressible a ".repeat(100);
    let c = "compressible c ".repeat(100);
    project.write("build.rs", BUILD);
    project.write("src/main.rs", MAIN);
    project.write("assets/a.txt", &a);
    project.write("assets/sub/c.txt", &c);

    project.build(&env);
    assert_eq!(
        project.run(),
        listing(&[("a.txt", a.len()), ("sub/c.txt", c.len())])
    );

    let again = project.build(&env);
    assert!(
        !again.contains("Compiling"),
        "a no-op build compiled something:\n{again}"
    );

    project.write("assets/sub/new.txt", "new file");
    let added = project.build(&env);
    assert!(project.compiled_itself(&added), "{added}");
    assert_eq!(
        project.run(),
        listing(&[
            ("a.txt", a.len()),
            ("sub/c.txt", c.len()),
            ("sub/new.txt", 8)
        ])
    );

    let before_edit = blobs(cache.path());
    let edited = format!("{a} and more");
    project.write("assets/a.txt", &edited);
    project.build(&env);
    assert_eq!(
        project.run(),
        listing(&[
            ("a.txt", edited.len()),
            ("sub/c.txt", c.len()),
            ("sub/new.txt", 8)
        ])
    );
    let after_edit = blobs(cache.path());
    let new_blobs: Vec<&String> = after_edit
        .keys()
        .filter(|name| !before_edit.contains_key(*name))
        .collect();
    assert_eq!(
        new_blobs.len(),
        1,
        "only the edited file was compressed: {new_blobs:?}"
    );
    for (name, modified) in &before_edit {
        assert_eq!(after_edit.get(name), Some(modified), "{name} was rewritten");
    }

    project.remove("assets/sub/new.txt");
    project.build(&env);
    assert_eq!(
        project.run(),
        listing(&[("a.txt", edited.len()), ("sub/c.txt", c.len())])
    );
}

const PACKED_MAIN: &str = r#"
static STATIC: bindery::Catalog = bindery::embed!("assets");

fn main() {
    for file in &STATIC {
        let text = String::from_utf8(file.raw().unwrap().to_vec()).unwrap();
        println!("{}={text} {}", file.path(), file.etag());
    }
}
"#;

/// The packs in the cache, by name.
fn packs(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("packs"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".pack"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn without_a_build_script_packed_files_are_still_tracked_one_by_one() {
    // No build.rs: cargo knows the files only from what rustc read, and the macro reads the pack.
    let project = Project::new("bindery_rebuild_packed", "");
    let cache = tempfile::tempdir().expect("cache");
    let env = [("BINDERY_CACHE_DIR", cache.path())];
    project.write("src/main.rs", PACKED_MAIN);
    project.write("assets/a.txt", "alpha");
    project.write("assets/b.txt", "bravo");
    project.write("assets/sub/c.txt", "charlie");
    project.build(&env);
    let first = project.run();
    assert!(first.starts_with("a.txt=alpha \""), "{first}");
    assert!(first.contains("\nb.txt=bravo \""), "{first}");
    assert!(first.contains("\nsub/c.txt=charlie \""), "{first}");
    assert_eq!(packs(cache.path()).len(), 1, "one pack for the three files");

    let again = project.build(&env);
    assert!(
        !again.contains("Compiling"),
        "a no-op build compiled: {again}"
    );

    // Same length, other bytes: only the file's own tracking can tell.
    project.write("assets/b.txt", "BRAVO");
    let edited = project.build(&env);
    assert!(project.compiled_itself(&edited), "{edited}");
    let second = project.run();
    assert!(second.contains("\nb.txt=BRAVO \""), "{second}");
    assert!(second.starts_with("a.txt=alpha \""), "{second}");
    assert!(second.contains("\nsub/c.txt=charlie \""), "{second}");
    let etag = |listing: &str, path: &str| {
        listing
            .lines()
            .find(|line| line.starts_with(path))
            .and_then(|line| line.split_once(' '))
            .map(|(_, etag)| etag.to_owned())
            .expect("listed")
    };
    assert_ne!(etag(&first, "b.txt"), etag(&second, "b.txt"), "a new ETag");
    assert_eq!(etag(&first, "a.txt"), etag(&second, "a.txt"));
    assert_eq!(
        packs(cache.path()).len(),
        1,
        "the new pack replaced the old one"
    );

    // Back to the first contents: the same bytes and ETags as the first build.
    project.write("assets/b.txt", "bravo");
    project.build(&env);
    assert_eq!(project.run(), first);
    assert_eq!(packs(cache.path()).len(), 1);

    let again = project.build(&env);
    assert!(
        !again.contains("Compiling"),
        "a no-op build compiled: {again}"
    );
}

/// A build script that "bundles" `frontend/` into `$OUT_DIR/dist`, as a Vite step does, and
/// tracks the output folder with `track`, which must not make every build rerun it.
const BUNDLE: &str = r#"
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=frontend");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("dist");
    std::fs::create_dir_all(&out).unwrap();
    let source = std::fs::read_to_string("frontend/app.js").unwrap();
    std::fs::write(out.join("app.js"), format!("/* bundled */ {source}")).unwrap();
    bindery_codegen::track("$OUT_DIR/dist");
}
"#;

const BUNDLED: &str = r#"
static DIST: bindery::Catalog = bindery::embed!("$OUT_DIR/dist");

fn main() {
    print!("{}", String::from_utf8_lossy(&DIST.get("app.js").unwrap()));
}
"#;

#[test]
fn tracking_the_build_scripts_own_output_in_out_dir_makes_no_rebuild_loop() {
    let extra = format!(
        "[build-dependencies]\nbindery-codegen = {{ path = \"{}\" }}\n",
        crate_path("bindery-codegen")
    );
    let project = Project::new("bindery_out_dir_tracking", &extra);
    let cache = tempfile::tempdir().expect("cache");
    let env = [("BINDERY_CACHE_DIR", cache.path())];
    project.write("build.rs", BUNDLE);
    project.write("src/main.rs", BUNDLED);
    project.write("frontend/app.js", "one();");
    project.build(&env);
    assert_eq!(project.run(), "/* bundled */ one();");
    for round in 0..2 {
        let again = project.build(&env);
        assert!(
            !again.contains("Compiling"),
            "no-op build {round} reran the build script or compiled:\n{again}"
        );
    }
    // The front-end's sources are what is watched: an edit there rebuilds and re-embeds.
    project.write("frontend/app.js", "two();");
    let edited = project.build(&env);
    assert!(project.compiled_itself(&edited), "{edited}");
    assert_eq!(project.run(), "/* bundled */ two();");
}
