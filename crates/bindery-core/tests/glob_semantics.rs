//! bindery's own glob matcher against globset's semantics (the regex-based matcher bindery used
//! before, as it configured it: `*` crossing `/`, `\` escaping), on random patterns of the
//! documented syntax and random paths: both accept or refuse the same patterns, and match the
//! same paths.

use bindery_core::glob::compile_glob;
use proptest::prelude::*;

/// One piece of a pattern of the documented syntax.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["a", "b", "c", ".", "/", "ab", "x.js"]).prop_map(str::to_owned),
        2 => Just("*".to_owned()),
        1 => Just("**".to_owned()),
        1 => Just("/**/".to_owned()),
        1 => Just("**/".to_owned()),
        1 => Just("/**".to_owned()),
        1 => Just("?".to_owned()),
        1 => prop::sample::select(vec!["[ab]", "[!a]", "[^b]", "[a-c]", "[]a]", "[/]", "[.-/]"]).prop_map(str::to_owned),
        1 => prop::sample::select(vec!["\\*", "\\?", "\\[", "\\{", "\\\\"]).prop_map(str::to_owned),
    ]
}

/// A pattern: pieces, and now and then a group of pieces' alternatives (nested once).
fn pattern() -> impl Strategy<Value = String> {
    let plain = prop::collection::vec(piece(), 0..5).prop_map(|pieces| pieces.concat());
    fn group() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::collection::vec(piece(), 1..3).prop_map(|p| p.concat()),
            1..4,
        )
        .prop_map(|alternatives| format!("{{{}}}", alternatives.join(",")))
    }
    let nested = (group(), group()).prop_map(|(inner, other)| {
        format!(
            "{{{},{}}}",
            inner,
            other.trim_start_matches('{').trim_end_matches('}')
        )
    });
    let group = group();
    prop::collection::vec(prop_oneof![3 => plain, 1 => group, 1 => nested], 1..4)
        .prop_map(|parts| parts.concat())
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "c", "/", ".", "x.js", "*", "?", "]"]),
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

fn globset_verdict(pattern: &str, paths: &[String]) -> Option<Vec<bool>> {
    let glob = globset::GlobBuilder::new(pattern)
        .backslash_escape(true)
        .build()
        .ok()?
        .compile_matcher();
    Some(paths.iter().map(|path| glob.is_match(path)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn bindery_globs_match_as_globset_does(pattern in pattern(), paths in prop::collection::vec(path(), 1..12)) {
        let expected = globset_verdict(&pattern, &paths);
        let ours = bindery_core::glob::compile_glob(&pattern)
            .ok()
            .map(|glob| paths.iter().map(|path| glob.is_match(path)).collect::<Vec<bool>>());
        prop_assert_eq!(ours, expected, "pattern {:?} against {:?}", pattern, paths);
    }
}

// The documented forms, and a worst case for backtracking.
#[test]
fn the_documented_forms_match_as_globset_does() {
    let cases = [
        ("**", "a/b", true),
        ("**", "", true),
        ("a/**", "a", false),
        ("a/**", "a/b/c", true),
        ("a/**", "a/", true),
        ("**/b", "b", true),
        ("**/b", "x/y/b", true),
        ("a/**/b", "a/b", true),
        ("a/**/b", "a/x/y/b", true),
        ("a/**/b", "ab", false),
        ("a**b", "a/x/b", true),
        ("*.css", "d/x.css", true),
        ("?", "/", true),
        ("[!a]", "/", true),
        ("[^a]", "b", true),
        ("[]a]", "]", true),
        ("{a,b}", "b", true),
        ("{a,{b,c}}", "c", true),
        ("a\\*", "a*", true),
        ("a\\*", "ab", false),
        ("**a", "x/a", true),
        ("{}", "", true),
        ("{,a}", "", false),
        ("[a/b]", "/", true),
        ("{*.js,*.css}", "x/y.css", true),
    ];
    for (pattern, path, expected) in cases {
        let glob = compile_glob(pattern).expect(pattern);
        assert_eq!(glob.is_match(path), expected, "{pattern} against {path:?}");
    }
    for bad in ["a\\", "[a-", "{a,b", "a[]", "[z-a]", "a}"] {
        assert!(compile_glob(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_long_path_with_many_stars_matches_in_polynomial_time() {
    let glob = compile_glob("*a*a*a*a*a*a*a*a*b").expect("glob");
    let path = "a".repeat(2_000);
    assert!(!glob.is_match(&path));
}
