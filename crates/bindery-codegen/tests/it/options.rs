//! The options table of the docs is made from the one list of options, not written by hand.

#[test]
fn the_docs_table_is_the_option_list() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bindery/src/options.md");
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    let made = bindery_codegen::options::markdown();
    if written != made {
        // `BINDERY_WRITE_OPTIONS=1 cargo test -p bindery-codegen --test it options` rewrites it.
        if std::env::var_os("BINDERY_WRITE_OPTIONS").is_some() {
            std::fs::write(&path, &made).expect("write");
        } else {
            panic!(
                "{} is not the option list's table; rerun with BINDERY_WRITE_OPTIONS=1:\n{made}",
                path.display()
            );
        }
    }
}
