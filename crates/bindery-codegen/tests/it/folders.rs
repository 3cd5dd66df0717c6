//! Several folders in one catalog: each with its own prefix and rules, the whole catalog's
//! settings given once, a path two folders give refused naming both, the size guards over
//! every folder together.

use bindery_codegen::options::{Given, SETTINGS, Takes};
use bindery_codegen::{Concern, Error, Mode, Options};

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, contents) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }
    dir
}

fn paths(options: Options) -> Vec<String> {
    let cache = tempfile::tempdir().expect("cache");
    let manifest = options.cache_dir(cache.path()).build().expect("builds");
    manifest
        .entries
        .into_iter()
        .map(|entry| entry.path)
        .collect()
}

#[test]
fn each_folder_has_its_own_prefix_and_rules_in_one_sorted_catalog() {
    let site = tree(&[("index.html", "<p>"), ("app.js", "1"), ("app.js.map", "{}")]);
    let docs = tree(&[
        ("a.md", "# a"),
        (".b.md", "# b"),
        ("c.txt", "c"),
        ("sub/d.md", "# d"),
    ]);
    let options = Options::new(site.path()).exclude("*.map").folder(
        Options::new(docs.path())
            .prefix("docs")
            .include("**/*.md")
            .hidden(true),
    );
    assert_eq!(
        paths(options),
        [
            "app.js",
            "docs/.b.md",
            "docs/a.md",
            "docs/sub/d.md",
            "index.html"
        ]
    );
}

#[test]
fn a_path_two_folders_give_fails_naming_both_files_and_folders() {
    let first = tree(&[("index.html", "first")]);
    let second = tree(&[("index.html", "second"), ("other.html", "o")]);
    let cache = tempfile::tempdir().expect("cache");
    let error = Options::new(first.path())
        .folder(Options::new(second.path()))
        .cache_dir(cache.path())
        .build()
        .expect_err("two folders give index.html");
    match &error {
        Error::FolderOverlap {
            key,
            files,
            folders,
        } => {
            assert_eq!(key, "index.html");
            assert_eq!(folders[0], first.path());
            assert_eq!(folders[1], second.path());
            assert!(files[0].starts_with(first.path()));
            assert!(files[1].starts_with(second.path()));
        }
        other => panic!("{other:?}"),
    }
    let text = error.to_string();
    assert!(text.contains(&first.path().display().to_string()), "{text}");
    assert!(
        text.contains(&second.path().display().to_string()),
        "{text}"
    );
    // Another prefix, or a rule that leaves one out, resolves it.
    let resolved = Options::new(first.path()).folder(Options::new(second.path()).prefix("two"));
    assert_eq!(
        paths(resolved),
        ["index.html", "two/index.html", "two/other.html"]
    );
    let excluded =
        Options::new(first.path()).folder(Options::new(second.path()).exclude("index.html"));
    assert_eq!(paths(excluded), ["index.html", "other.html"]);
}

/// A value of each kind other than the default, for every setting.
fn not_default(takes: Takes) -> Given {
    match takes {
        Takes::Bool => Given::Bool(true),
        Takes::Word(words) => Given::Text(words[words.len() - 1].to_owned()),
        Takes::Text => Given::Text("my_crate::bindery".to_owned()),
        Takes::Globs => Given::List(vec!["**/*.js".to_owned()]),
        Takes::Texts(_) => Given::List(vec![".well-known".to_owned()]),
        Takes::Words(words) => Given::List(vec![words[2].to_owned()]),
        Takes::Number(max) => Given::Number(max - 1),
        Takes::Size | Takes::Threshold => Given::Number(4096),
    }
}

/// Every setting of the whole catalog given with a further folder is refused, naming it and
/// the folder; every per-folder one is accepted there.
#[test]
fn a_further_folder_takes_only_the_settings_each_folder_has_its_own_of() {
    let first = tree(&[("a.txt", "a")]);
    let second = tree(&[("b.txt", "b")]);
    for setting in SETTINGS {
        let value = match (setting.name, not_default(setting.takes)) {
            ("prefix", _) => Given::Text("docs".to_owned()),
            (_, value) => value,
        };
        let folder = setting
            .set(Options::new(second.path()), &value)
            .expect(setting.name);
        let result = Options::new(first.path()).folder(folder).validate();
        if setting.per_folder {
            assert!(result.is_ok(), "{}: {:?}", setting.name, result.err());
        } else {
            let problems = result.expect_err(setting.name);
            assert_eq!(problems.len(), 1, "{}: {problems:?}", setting.name);
            assert_eq!(problems[0].folder, 1);
            assert_eq!(
                problems[0].concern,
                Concern::Setting {
                    name: setting.name,
                    index: None
                }
            );
            assert!(
                matches!(&problems[0].error, Error::CatalogSetting { name } if name == setting.name)
            );
        }
    }
}

/// The settings of the whole catalog hold for every folder: the mode stores the further
/// folder's files too, and a further folder's bad prefix and globs are its own problems.
#[test]
fn whole_catalog_settings_hold_for_every_folder_and_problems_name_their_folder() {
    let first = tree(&[("a.txt", &"compressible ".repeat(100))]);
    let second = tree(&[("b.txt", &"compressible ".repeat(100))]);
    let cache = tempfile::tempdir().expect("cache");
    let manifest = Options::new(first.path())
        .mode(Mode::Gzip)
        .folder(Options::new(second.path()).prefix("two"))
        .cache_dir(cache.path())
        .build()
        .expect("builds");
    assert!(
        manifest
            .entries
            .iter()
            .all(|entry| matches!(entry.stored, bindery_codegen::Stored::Gzip { .. }))
    );
    assert_eq!(manifest.more_folders.len(), 1);
    assert_eq!(manifest.more_folders[0].prefix, "two/");
    let problems = Options::new(first.path())
        .folder(Options::new(second.path()).prefix("../up").exclude("a["))
        .folder(Options::new(first.path().join("missing")))
        .validate()
        .expect_err("a bad prefix, a bad glob and a missing folder");
    let found: Vec<(usize, Concern)> = problems
        .iter()
        .map(|problem| (problem.folder, problem.concern))
        .collect();
    assert_eq!(
        found,
        [
            (
                1,
                Concern::Setting {
                    name: "prefix",
                    index: None
                }
            ),
            (
                1,
                Concern::Setting {
                    name: "exclude",
                    index: Some(0)
                }
            ),
            (2, Concern::Folder),
        ]
    );
    // A missing further folder may be allowed, as the first may.
    let allowed = Options::new(first.path())
        .folder(Options::new(first.path().join("missing")).allow_missing(true));
    assert_eq!(paths(allowed), ["a.txt"]);
}

#[test]
fn the_size_guards_count_every_folder_together() {
    let first = tree(&[("a.bin", &"a".repeat(600))]);
    let second = tree(&[("b.bin", &"b".repeat(600))]);
    let cache = tempfile::tempdir().expect("cache");
    let error = Options::new(first.path())
        .max_total_size(Some(1000))
        .folder(Options::new(second.path()).prefix("two"))
        .cache_dir(cache.path())
        .build()
        .expect_err("1200 bytes over a limit of 1000");
    let text = error.to_string();
    assert!(
        matches!(error, Error::TotalTooLarge { total: 1200, .. }),
        "{text}"
    );
    assert!(
        text.contains("two/b.bin") && text.contains("a.bin"),
        "{text}"
    );
}

#[test]
fn the_catalog_prefix_is_the_folders_the_prefixes_share() {
    let first = tree(&[("a.txt", "a")]);
    let second = tree(&[("b.txt", "b")]);
    let cache = tempfile::tempdir().expect("cache");
    let prefix = |one: &str, two: &str| {
        Options::new(first.path())
            .prefix(one)
            .folder(Options::new(second.path()).prefix(two))
            .cache_dir(cache.path())
            .build()
            .expect("builds")
            .catalog_prefix()
    };
    assert_eq!(prefix("static/a", "static/b"), "static/");
    assert_eq!(prefix("static/app", "static/app2"), "static/");
    assert_eq!(prefix("x/y/z", "x/y/z"), "x/y/z/");
    assert_eq!(prefix("", "docs"), "");
    assert_eq!(prefix("docs", "other"), "");
}
