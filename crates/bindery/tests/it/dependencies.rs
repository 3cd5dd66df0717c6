//! What a binary that uses bindery links: no brotli or zstd code, whatever the features. The
//! encoders run inside the `embed!` macro at build time; at run time variants are only sent.

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
