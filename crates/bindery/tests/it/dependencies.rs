//! What a crate that uses bindery compiles and links: no brotli or zstd code in the binary,
//! whatever the features (the encoders run inside the `embed!` macro at build time; at run time
//! variants are only sent), and no JSON crate in an embed-only build (only `manifest = "vite"`
//! and `releases` read JSON, behind features of those names).

use std::process::Command;

/// `cargo tree -p bindery` with `features` and `edges`, one crate per line.
fn tree(features: &str, edges: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            "bindery",
            "--prefix",
            "none",
        ])
        .args(["--features", features, "--edges", edges])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_runtime_links_no_brotli_or_zstd_code_even_with_their_features() {
    let runtime = tree("serve,br,zstd", "normal,no-proc-macro");
    assert!(runtime.contains("flate2"), "the tree is real: {runtime}");
    for crate_name in ["brotli", "zstd"] {
        assert!(
            !runtime.lines().any(|line| line.starts_with(crate_name)),
            "{crate_name} in the runtime's dependencies:\n{runtime}"
        );
    }
    // With the macro's dependencies shown, the encoders are there: the features do something.
    let with_macro = tree("br,zstd", "normal");
    assert!(
        with_macro.lines().any(|line| line.starts_with("brotli ")),
        "{with_macro}"
    );
    assert!(
        with_macro.lines().any(|line| line.starts_with("zstd ")),
        "{with_macro}"
    );
}

#[test]
fn an_embed_only_build_compiles_no_json_crate_unless_a_feature_reads_json() {
    // Everything a build with the defaults compiles, the macro's dependencies included.
    let defaults = tree("", "normal,build");
    assert!(
        defaults
            .lines()
            .any(|line| line.starts_with("bindery-macros ")),
        "the tree is real: {defaults}"
    );
    for crate_name in ["serde_json ", "serde_derive ", "serde "] {
        assert!(
            !defaults.lines().any(|line| line.starts_with(crate_name)),
            "{crate_name}in an embed-only build:\n{defaults}"
        );
    }
    for feature in ["vite", "releases"] {
        let with = tree(feature, "normal,build");
        assert!(
            with.lines().any(|line| line.starts_with("serde_json ")),
            "`{feature}` reads JSON: {with}"
        );
    }
}
