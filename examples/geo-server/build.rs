//! Rebuild when anything under the embedded SPA folder changes (added and deleted files too).

fn main() {
    bindery_codegen::track("../../assets/spa");
    println!("cargo::rerun-if-changed=build.rs");
}
