//! Slow tests, as rust-analyzer keeps them: `cargo test` on any machine stays quick and green,
//! and CI (or anyone who asks) runs everything.

use std::io::Write as _;

/// Whether slow tests run here: when `CI` or `RUN_SLOW_TESTS` is set to anything but `0` or
/// an empty value.
pub fn slow_tests_run() -> bool {
    ["RUN_SLOW_TESTS", "CI"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty() && value != "0"))
}

/// Call first in a slow test: `true` when it is to run (see [`slow_tests_run`]); otherwise
/// it prints one line naming the test, why it is slow and the command that runs it, and
/// returns `false`, for the test to return at once. The line goes straight to the terminal's
/// stderr, past the test harness's capture, so that `cargo test` shows what it skipped.
///
/// Under `CI` or `RUN_SLOW_TESTS` the test runs, and a tool it needs that is missing fails it:
/// a slow test never passes by skipping there.
///
/// ```
/// fn a_browser_loads_the_page() {
///     if !bindery_test_support::slow_test("bindery", "a_browser_loads_the_page", "Chromium") {
///         return;
///     }
///     // … the test …
/// }
/// # a_browser_loads_the_page();
/// ```
pub fn slow_test(package: &str, test: &str, why: &str) -> bool {
    if slow_tests_run() {
        return true;
    }
    let line = format!(
        "slow test skipped: {package} {test} ({why}); run it with \
         `RUN_SLOW_TESTS=1 cargo test -p {package} -- {test}`\n"
    );
    // Not `eprintln!`: the harness captures that for a passing test.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    false
}
