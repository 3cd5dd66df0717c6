//! What a binary that uses bindery links: no brotli or zstd code, whatever the features. The
//! encoders run inside the `embed!` macro at build time; at run time variants are only sent.

use std::process::Command;

#[test]
fn the_runtime_links_no_brotli_or_zstd_code_even_with_their_features() {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            "bindery",
            "--features",
            "serve,br,zstd",
            "--edges",
            "normal,no-proc-macro",
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(tree.contains("flate2"), "the tree is real: {tree}");
    for crate_name in ["brotli", "zstd"] {
        assert!(
            !tree.lines().any(|line| line.starts_with(crate_name)),
            "{crate_name} in the runtime's dependencies:\n{tree}"
        );
    }

    // With the macro's dependencies shown, the encoders are there: the features do something.
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            "bindery",
            "--features",
            "br,zstd",
            "--edges",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    let with_macro = String::from_utf8_lossy(&output.stdout);
    assert!(
        with_macro.lines().any(|line| line.starts_with("brotli ")),
        "{with_macro}"
    );
    assert!(
        with_macro.lines().any(|line| line.starts_with("zstd ")),
        "{with_macro}"
    );
}
