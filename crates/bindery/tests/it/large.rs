//! Large files through the assembler (`.incbin`): byte-exact in every mode, one symbol per
//! distinct blob however many catalogs hold it, apart per crate, the `include_bytes!` fallback
//! identical, rebuilds correct.

use std::process::Command;

use bindery_test_support::noise;

use crate::project::{Project, crate_path};

const BUILD: &str = "fn main() {\n    bindery_codegen::track(\"assets\");\n    println!(\"cargo::rerun-if-changed=build.rs\");\n}\n";

const MAIN: &str = r#"
use bindery::Catalog;

static DEFAULT: Catalog = bindery::embed!("assets");
static FORCED: Catalog = bindery::embed!("assets", large = 0);
static FORCED_AGAIN: Catalog = bindery::embed!("assets", large = 0);
static FORCED_GZIP: Catalog = bindery::embed!("assets", mode = "gzip", large = 0);
static FORCED_COPY: Catalog = bindery::embed!("assets", mode = "copy", large = 0);
static OFF: Catalog = bindery::embed!("assets", large = "off");

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut reads = 0;
    for catalog in [&DEFAULT, &FORCED, &FORCED_AGAIN, &FORCED_GZIP, &FORCED_COPY, &OFF] {
        for file in catalog {
            let on_disk = std::fs::read(root.join(file.path())).unwrap();
            assert!(catalog.get(file.path()).unwrap()[..] == on_disk[..], "{}", file.path());
            reads += 1;
        }
    }
    let dep = dep::DEP.get("odd-7.bin").unwrap();
    assert!(dep[..] == FORCED.get("odd-7.bin").unwrap()[..]);
    let probe = FORCED.get("just-over.bin").unwrap();
    println!("{reads} reads ok; just-over.bin starts {:?}", &probe[..4]);
}
"#;

fn symbols(binary: &std::path::Path, prefix: &str) -> Vec<String> {
    let output = Command::new("nm").arg(binary).output().expect("nm runs");
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().last())
        .filter(|symbol| symbol.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

#[test]
fn large_files_round_trip_without_duplicate_symbols_and_rebuild_when_changed() {
    let codegen = crate_path("bindery-codegen");
    let extra = format!(
        "dep = {{ path = \"dep\", package = \"bindery_large_dep\" }}\n\n\
         [build-dependencies]\nbindery-codegen = {{ path = \"{codegen}\" }}\n"
    );
    let project = Project::with_features("bindery_large", &["gzip"], &extra);
    let mib = 1024 * 1024;
    project.write("build.rs", BUILD);
    project.write("src/main.rs", MAIN);
    project.write("assets/just-under.bin", noise(mib - 1, 1));
    project.write("assets/just-over.bin", noise(mib + 1, 2));
    project.write("assets/empty.bin", b"");
    project.write("assets/odd-7.bin", b"1234567");
    project.write(
        "assets/text with spaces.txt",
        "compressible text ".repeat(70_000),
    );
    project.write("assets/quote\"name.bin", noise(2 * mib, 3));
    project.write("assets/brace{name}.bin", noise(10, 4));
    project.write(
        "dep/Cargo.toml",
        format!(
            "[package]\nname = \"bindery_large_dep\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nbindery = {{ path = \"{}\" }}\n\n[build-dependencies]\nbindery-codegen = {{ path = \"{codegen}\" }}\n",
            crate_path("bindery")
        ),
    );
    project.write("dep/build.rs", BUILD);
    project.write(
        "dep/src/lib.rs",
        "pub static DEP: bindery::Catalog = bindery::embed!(\"assets\", large = 0);\n",
    );
    project.write("dep/assets/odd-7.bin", b"1234567");

    project.build(&[]);
    let output = project.run();
    assert!(output.starts_with("42 reads ok"), "{output}");

    let binary = project.binary();
    let dep_symbols = symbols(&binary, "__bindery_bindery_large_dep_");
    let main_symbols: Vec<String> = symbols(&binary, "__bindery_bindery_large_")
        .into_iter()
        .filter(|symbol| !dep_symbols.contains(symbol))
        .collect();
    // Forced catalogs put every file through the assembler: the seven files stored raw by every
    // mode (names the assembler cannot quote included: it reads bindery's copy, named by hash),
    // and the text's gzip blob. The catalogs share them, as do the default threshold's files of
    // 1 MiB and more: one symbol per distinct blob.
    assert_eq!(main_symbols.len(), 8, "{main_symbols:?}");
    assert_eq!(
        dep_symbols.len(),
        1,
        "another crate has its own: {dep_symbols:?}"
    );
    let mut unique = main_symbols.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), main_symbols.len(), "no symbol defined twice");

    // Same size, new bytes: the assembler reads the file again.
    let changed = noise(mib + 1, 99);
    project.write("assets/just-over.bin", &changed);
    project.build(&[]);
    let output = project.run();
    assert!(output.contains(&format!("{:?}", &changed[..4])), "{output}");
    // A new size too.
    project.write("assets/just-over.bin", noise(mib + 4096, 7));
    project.build(&[]);
    assert!(project.run().starts_with("42 reads ok"));
}

/// A module a build script rendered (as a generated module, with `.incbin` of the source file)
/// and did not render again: when the file shrinks or grows and the crate is compiled again
/// (without incremental reuse, as release builds are), the build fails naming the file; its
/// bytes are never zero-padded or cut under the ETag the module records.
#[test]
fn a_rendered_module_whose_large_file_changed_size_fails_to_build_naming_it() {
    let codegen = crate_path("bindery-codegen");
    let project = Project::new(
        "bindery_large_stale",
        &format!(
            "[build-dependencies]\nbindery-codegen = {{ path = \"{codegen}\", features = [\"render\"] }}\n"
        ),
    );
    // Rendered once (the build script reruns only when it changes), the source named by path.
    project.write(
        "build.rs",
        r#"fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let manifest_dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let manifest = bindery_codegen::Options::new(manifest_dir.join("assets"))
        .large_threshold(Some(0))
        .build()
        .unwrap();
    let locator = bindery_codegen::emit::Locator::Module {
        module_dir: out.clone(),
        blob_dir: out.join("blobs"),
        manifest_dir: Some(manifest_dir),
        dev: false,
    };
    let text = bindery_codegen::render::module(&manifest, &locator, "ASSETS", "test", "rebuild").unwrap();
    std::fs::write(out.join("assets.rs"), text).unwrap();
}
"#,
    );
    let main = |mark: &str| {
        format!(
            "include!(concat!(env!(\"OUT_DIR\"), \"/assets.rs\"));\n\nfn main() {{\n    \
             print!(\"{{}}\", ASSETS.get(\"big.bin\").unwrap().len());\n}}\n// {mark}\n"
        )
    };
    let build = || {
        let output = project
            .cargo_command(&["build"])
            .env("CARGO_INCREMENTAL", "0")
            .output()
            .expect("cargo runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    project.write("assets/big.bin", noise(4096, 1));
    project.write("src/main.rs", main("fresh"));
    let (built, stderr) = build();
    assert!(built, "{stderr}");
    assert_eq!(project.run(), "4096");
    for (what, len) in [("shrank", 4000), ("grew", 5000)] {
        project.write("assets/big.bin", noise(len, 1));
        project.write("src/main.rs", main(what));
        let (built, error) = build();
        assert!(!built, "{what}: a stale module must not build");
        assert!(
            error.contains("big.bin is no longer 4096 bytes, as when its catalog was made"),
            "{what}: {error}"
        );
    }
}
