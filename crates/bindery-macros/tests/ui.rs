//! Compile-fail snapshots: each bad macro argument gives one `compile_error!` spanned on it.
//!
//! trybuild builds each case in `target/tests/trybuild/bindery-macros/`: a case that needs a
//! real folder names it from there (`../../../../assets/fixtures`); the others fail before any
//! folder is looked at.
//!
//! They live in this crate, not in `bindery`'s tests: trybuild builds every case against the
//! testing crate's dependencies and dev-dependencies, and `bindery`'s (axum, reqwest, h2,
//! proptest, every feature) made it CI's longest test.

#[test]
fn bad_macro_arguments_fail_to_compile_with_a_spanned_error() {
    if !bindery_test_support::slow_test(
        "bindery-macros",
        "bad_macro_arguments_fail_to_compile_with_a_spanned_error",
        "trybuild compiles bindery and every case again",
    ) {
        return;
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
