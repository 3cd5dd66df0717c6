//! Bad input gets a typed error naming the file, never a panic; odd but valid input works.

use std::os::unix::ffi::OsStrExt;

use bindery_codegen::{Error, Mode, Options};

use crate::tree;

fn build(root: &std::path::Path) -> Result<bindery_codegen::Manifest, Error> {
    let cache = root.with_extension("cache");
    Options::new(root).mode(Mode::Gzip).cache_dir(cache).build()
}

#[test]
fn missing_folder_is_an_error_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("dist");
    assert!(
        matches!(build(&missing), Err(Error::MissingFolder { path, hint: None }) if path == missing)
    );
    let manifest = Options::new(&missing)
        .allow_missing(true)
        .build()
        .expect("allowed");
    assert!(manifest.entries.is_empty());
}

#[test]
fn a_file_is_not_a_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("file.txt");
    std::fs::write(&file, b"x").expect("write");
    assert!(matches!(build(&file), Err(Error::NotAFolder { .. })));
}

#[test]
fn an_empty_folder_gives_an_empty_manifest() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(build(dir.path()).expect("empty is fine").entries.is_empty());
}

#[test]
fn a_dangling_symlink_is_an_unreadable_file_named_in_the_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("ok.txt", b"ok")]);
    std::os::unix::fs::symlink("nowhere.txt", dir.path().join("broken.txt")).expect("symlink");
    let error = build(dir.path()).expect_err("dangling link");
    assert!(matches!(error, Error::Read { .. }), "{error:?}");
    assert!(error.to_string().contains("broken.txt"), "{error}");
}

#[test]
fn a_symlink_loop_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("sub/file.txt", b"x")]);
    std::os::unix::fs::symlink("..", dir.path().join("sub/up")).expect("symlink");
    let error = build(dir.path()).expect_err("loop");
    assert!(matches!(error, Error::SymlinkLoop { .. }), "{error:?}");
    assert!(error.to_string().contains("up"), "{error}");
}

#[test]
fn symlinks_are_followed_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    tree::write(outside.path(), &[("shared/logo.svg", b"<svg/>")]);
    tree::write(dir.path(), &[("index.html", b"<html>")]);
    std::os::unix::fs::symlink(outside.path().join("shared"), dir.path().join("shared"))
        .expect("symlink");
    let manifest = build(dir.path()).expect("links are fine");
    let paths: Vec<&str> = manifest
        .entries
        .iter()
        .map(|entry| entry.path.as_str())
        .collect();
    assert_eq!(paths, ["index.html", "shared/logo.svg"]);
}

#[test]
fn a_name_that_is_not_utf8_is_named_in_the_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff-name.txt");
    std::fs::write(dir.path().join(name), b"x").expect("write");
    let error = build(dir.path()).expect_err("not UTF-8");
    assert!(matches!(error, Error::NonUtf8Name { .. }), "{error:?}");
    assert!(error.to_string().contains("bad-"), "{error}");
}

#[test]
fn a_backslash_in_a_name_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("back\\slash.txt", b"x")]);
    let error = build(dir.path()).expect_err("backslash");
    assert!(matches!(error, Error::UnsupportedName { .. }), "{error:?}");
}

#[test]
fn a_backslash_name_can_be_excluded() {
    let dir = tempfile::tempdir().expect("tempdir");
    tree::write(dir.path(), &[("back\\slash.txt", b"x"), ("fine.txt", b"y")]);
    let manifest = Options::new(dir.path())
        .exclude("back*")
        .build()
        .expect("excluded");
    assert_eq!(manifest.entries.len(), 1);
}

#[test]
fn a_fifo_is_not_a_regular_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let error = build(dir.path()).expect_err("fifo");
    assert!(error.to_string().contains("not a regular file"), "{error}");
}

#[test]
fn bad_globs_prefixes_and_levels_are_typed_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let glob = Options::new(root).include("a[").build().expect_err("glob");
    assert!(
        matches!(glob, Error::Glob { ref glob, .. } if glob == "a["),
        "{glob:?}"
    );
    for prefix in ["/abs", "../up", "a//b", "./a", "a\\b"] {
        let error = Options::new(root).prefix(prefix).build().expect_err(prefix);
        assert!(matches!(error, Error::Prefix { .. }), "{prefix}: {error:?}");
    }
    let level = Options::new(root)
        .mode(Mode::Gzip)
        .level(10)
        .build()
        .expect_err("level");
    assert!(matches!(level, Error::Level { level: 10 }));
}

#[test]
fn odd_names_deep_trees_empty_and_large_files_all_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    let large = tree::noise(20 * 1024 * 1024, 7);
    tree::write(
        dir.path(),
        &[
            ("with space.txt", b"space"),
            ("unicodé-日本.txt", b"unicode"),
            ("hash#name%20?.txt", b"url characters"),
            ("a/b/c/d/e/f/six.txt", b"deep"),
            ("empty.txt", b""),
            ("large.bin", &large),
        ],
    );
    let manifest = build(dir.path()).expect("all valid");
    let paths: Vec<&str> = manifest
        .entries
        .iter()
        .map(|entry| entry.path.as_str())
        .collect();
    assert_eq!(
        paths,
        [
            "a/b/c/d/e/f/six.txt",
            "empty.txt",
            "hash#name%20?.txt",
            "large.bin",
            "unicodé-日本.txt",
            "with space.txt"
        ]
    );
    let large_entry = &manifest.entries[3];
    assert_eq!(large_entry.len, 20 * 1024 * 1024);
    // Noise does not compress: it is stored raw even in gzip mode.
    assert_eq!(large_entry.stored, bindery_codegen::Stored::Raw);
    assert_eq!(
        large_entry.etag,
        format!("\"{:032x}\"", xxhash_rust::xxh3::xxh3_128(&large))
    );
}

#[test]
fn a_missing_bundler_manifest_or_releases_folder_is_a_typed_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::write(root.join("index.html"), "<p>hi</p>").expect("file");
    let manifest = Options::new(root)
        .manifest(Some(bindery_codegen::Bundler::Vite))
        .build()
        .expect_err("no manifest");
    let text = manifest.to_string();
    assert!(
        matches!(manifest, Error::BundleManifest { .. })
            && text.contains(".vite/manifest.json")
            && text.contains("build with the bundler's manifest on"),
        "{manifest:?}"
    );
    let releases = Options::new(root)
        .releases(Some(root.join("index.html")))
        .build()
        .expect_err("not a folder");
    let text = releases.to_string();
    assert!(
        text.contains("index.html") && text.contains("cannot read the releases folder"),
        "{releases:?}"
    );
}
