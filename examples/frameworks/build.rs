//! Rebuilds the programs when a file of `site/` is added, edited or deleted.

fn main() {
    bindery_codegen::track("site");
    println!("cargo::rerun-if-changed=build.rs");
}
