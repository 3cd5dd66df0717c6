//! The runtime's copy of the shared facts (`crates/bindery/src/facts/`) is this crate's
//! `src/facts/`, file for file: the same text under a header, the public types' examples naming
//! `bindery` instead of `bindery_core`. The runtime compiles the copy instead of depending on
//! this crate, which a build would otherwise compile twice (for the proc macro's host and for
//! the target). `BINDERY_BLESS=1 cargo test -p bindery-core --test facts_copy` rewrites it.

use std::path::Path;

/// The shared files, by name.
const FILES: [&str; 7] = [
    "contract",
    "encoding",
    "glob",
    "glob_parse",
    "integrity",
    "key",
    "mode",
];

/// The types the runtime exports under the same names: their examples name `bindery`.
const RUNTIME_TYPES: [&str; 6] = [
    "Encoding",
    "Integrity",
    "Mode",
    "ParseEncodingError",
    "ParseIntegrityError",
    "ParseModeError",
];

fn copy_of(name: &str, source: &str) -> String {
    let mut text = format!(
        "// Generated from crates/bindery-core/src/facts/{name}.rs, which is the one to edit; then\n\
         // run `BINDERY_BLESS=1 cargo test -p bindery-core --test facts_copy`.\n"
    );
    let mut body = source.to_owned();
    for name in RUNTIME_TYPES {
        body = body
            .replace(
                &format!("bindery_core::{name}"),
                &format!("bindery::{name}"),
            )
            .replace(
                &format!("use bindery_core::{{{name}"),
                &format!("use bindery::{{{name}"),
            );
    }
    text.push_str(&body);
    text
}

#[test]
fn the_runtime_holds_a_true_copy_of_the_shared_facts() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let runtime = here.join("../bindery/src/facts");
    let bless = std::env::var_os("BINDERY_BLESS").is_some();
    let mut stale = Vec::new();
    for name in FILES {
        let source = std::fs::read_to_string(here.join(format!("src/facts/{name}.rs")))
            .expect("the shared file");
        let expected = copy_of(name, &source);
        let path = runtime.join(format!("{name}.rs"));
        if std::fs::read_to_string(&path).ok().as_deref() != Some(expected.as_str()) {
            if bless {
                std::fs::write(&path, &expected).expect("write the copy");
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale copies of crates/bindery-core/src/facts: {stale:?}; run \
         `BINDERY_BLESS=1 cargo test -p bindery-core --test facts_copy`"
    );
}

#[test]
fn a_copy_is_the_file_under_a_header_with_the_runtime_s_names() {
    let copy = copy_of(
        "mode",
        "/// use bindery_core::Mode;\n/// bindery_core::key::normalise\n",
    );
    assert!(copy.starts_with("// Generated from crates/bindery-core/src/facts/mode.rs"));
    assert!(copy.ends_with("/// use bindery::Mode;\n/// bindery_core::key::normalise\n"));
}
