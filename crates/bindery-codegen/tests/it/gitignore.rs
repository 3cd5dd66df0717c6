//! `gitignore = true`: what git ignores is not embedded (checked against `git check-ignore`
//! itself), `.ignore` wins over `.gitignore`, a rule about the folder's own ancestors never
//! empties it, and a broken ignore file is an error naming it.

use std::path::Path;
use std::process::Command;

use bindery_codegen::{Error, Options};

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, contents).expect("write");
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs")
}

fn embedded(root: &Path, cache: &Path) -> Vec<String> {
    Options::new(root)
        .gitignore(true)
        .cache_dir(cache)
        .build()
        .expect("build")
        .entries
        .into_iter()
        .map(|entry| entry.path)
        .collect()
}

#[test]
fn what_git_ignores_is_left_out_as_git_check_ignore_says() {
    let repo = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let repo = repo.path();
    assert!(git(repo, &["init", "--quiet"]).status.success());
    write(
        repo,
        ".gitignore",
        "site/generated/\n/site/private.txt\n*.tmp\n",
    );
    write(
        repo,
        "site/.gitignore",
        "*.log\n!keep.log\nbuild/\n/top-only.txt\nnode_modules\n",
    );
    write(repo, "site/sub/.gitignore", "!important.log\nsecret*\n");
    let files = [
        "site/index.html",
        "site/app.log",
        "site/keep.log",
        "site/top-only.txt",
        "site/private.txt",
        "site/draft.tmp",
        "site/generated/x.js",
        "site/build/out.js",
        "site/node_modules/pkg/index.js",
        "site/sub/top-only.txt",
        "site/sub/important.log",
        "site/sub/other.log",
        "site/sub/secret.txt",
        "site/sub/build/y.js",
        "site/sub/public.txt",
    ];
    for file in files {
        write(repo, file, file);
    }
    let kept_by_git: Vec<String> = files
        .iter()
        .filter(|file| {
            // Exit status 1: not ignored.
            git(repo, &["check-ignore", "--quiet", "--no-index", file])
                .status
                .code()
                == Some(1)
        })
        .map(|file| file.trim_start_matches("site/").to_owned())
        .collect();
    let mut kept_by_git = kept_by_git;
    kept_by_git.sort();
    assert_eq!(
        kept_by_git,
        [
            "index.html",
            "keep.log",
            "sub/important.log",
            "sub/public.txt",
            "sub/top-only.txt"
        ],
        "the tree exercises negation, anchoring, folders and parents"
    );
    assert_eq!(embedded(&repo.join("site"), cache.path()), kept_by_git);

    // Without the option everything is embedded.
    let all = Options::new(repo.join("site"))
        .cache_dir(cache.path())
        .build()
        .expect("build");
    assert_eq!(all.entries.len(), files.len());
}

#[test]
fn dot_ignore_wins_and_ancestor_rules_never_empty_the_folder() {
    let repo = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    let repo = repo.path();
    assert!(git(repo, &["init", "--quiet"]).status.success());
    // The work tree ignores `out/` (as a crate's `.gitignore` ignores `target/`): embedding
    // `out/dist` still embeds it; only rules for what lies below `dist` count.
    write(repo, ".gitignore", "/out\n*.map\n");
    write(repo, "out/dist/app.js", "x");
    write(repo, "out/dist/app.js.map", "x");
    write(repo, "out/dist/.gitignore", "*.txt\n");
    write(repo, "out/dist/.ignore", "!notes.txt\n");
    write(repo, "out/dist/notes.txt", "x");
    write(repo, "out/dist/other.txt", "x");
    assert_eq!(
        embedded(&repo.join("out/dist"), cache.path()),
        ["app.js", "notes.txt"]
    );
}

#[test]
fn a_broken_ignore_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("cache");
    write(dir.path(), "a.txt", "a");
    // Not UTF-8: the ignore crate refuses the line rather than guess.
    std::fs::write(dir.path().join(".gitignore"), b"ok.txt\n\xff\xfe[\n").expect("write");
    let error = Options::new(dir.path())
        .gitignore(true)
        .cache_dir(cache.path())
        .build()
        .expect_err("refused");
    match error {
        Error::Ignore { path, .. } => assert!(path.ends_with(".gitignore"), "{}", path.display()),
        other => panic!("not an ignore-file error: {other}"),
    }
}
