//! Macro options and lookups: include/exclude, prefix, hidden files, missing folders, odd paths.

use bindery::{Catalog, DirEntry, Mode};

use crate::catalogs::STATIC;

#[test]
fn hidden_files_are_skipped_unless_asked_for() {
    assert!(STATIC.file(".env").is_none());
    assert!(STATIC.file(".hidden/secret.txt").is_none());
    static WITH_HIDDEN: Catalog = bindery::embed!("../../assets/fixtures", hidden = true);
    assert!(WITH_HIDDEN.file(".env").is_some());
    assert!(WITH_HIDDEN.file(".hidden/secret.txt").is_some());
}

#[test]
fn include_and_exclude_globs_filter_with_exclude_winning() {
    static TEXT: Catalog = bindery::embed!(
        "../../assets/fixtures",
        include = ["**/*.txt", "*.html"],
        exclude = ["deep/**", "copies/two.txt"],
    );
    let paths: Vec<&str> = TEXT.iter().map(|file| file.path()).collect();
    assert!(paths.contains(&"index.html"));
    assert!(paths.contains(&"copies/one.txt"));
    assert!(!paths.contains(&"copies/two.txt"));
    assert!(!paths.iter().any(|path| path.starts_with("deep/")));
    assert!(
        paths
            .iter()
            .all(|path| path.ends_with(".txt") || path.ends_with(".html"))
    );
}

#[test]
fn a_glob_that_matches_nothing_gives_an_empty_catalog() {
    static NOTHING: Catalog =
        bindery::embed!("../../assets/fixtures", include = "*.nothing-has-this");
    assert!(NOTHING.is_empty());
    assert_eq!(NOTHING.iter().count(), 0);
    assert!(NOTHING.get("hello.txt").is_none());
    assert_eq!(NOTHING.dir("").count(), 0);
}

#[test]
fn an_allowed_missing_folder_gives_an_empty_catalog() {
    static LATER: Catalog = bindery::embed!(
        "frontend/dist-not-built-yet",
        allow_missing = true,
        mode = "gzip"
    );
    assert!(LATER.is_empty());
    assert_eq!(LATER.mode(), Mode::Gzip);
}

#[test]
fn prefix_goes_before_every_path() {
    static PREFIXED: Catalog = bindery::embed!("../../assets/fixtures", prefix = "static");
    assert_eq!(PREFIXED.prefix(), "static/");
    assert!(
        PREFIXED
            .iter()
            .all(|file| file.path().starts_with("static/"))
    );
    assert_eq!(
        &*PREFIXED.get("/static/hello.txt").expect("present"),
        b"Hello, bindery!\n"
    );
    assert!(PREFIXED.get("hello.txt").is_none());
}

#[test]
fn the_macro_works_in_a_let_and_a_const_too() {
    const AS_CONST: Catalog = bindery::embed!("../../assets/fixtures", include = "hello.txt");
    let as_local = bindery::embed!(
        "../../assets/fixtures",
        include = "hello.txt",
        mode = "copy"
    );
    assert_eq!(AS_CONST.len(), 1);
    assert_eq!(
        &*as_local.get("hello.txt").expect("present"),
        b"Hello, bindery!\n"
    );
    // Several small files share one pack and descriptions held in `static`s, in a const and a
    // let too.
    const PACKED: Catalog = bindery::embed!("../../assets/fixtures", include = "copies/*");
    let packed_local = bindery::embed!("../../assets/fixtures", include = "copies/*");
    for catalog in [&PACKED, &packed_local] {
        assert_eq!(catalog.len(), 2);
        for file in catalog {
            let on_disk =
                std::fs::read(crate::fixtures::root().join(file.path())).expect("on disk");
            assert_eq!(file.raw(), Some(&on_disk[..]), "{}", file.path());
            assert_eq!(file.mime(), "text/plain");
        }
    }
}

#[test]
fn names_with_spaces_unicode_and_url_characters_are_found_as_written() {
    for path in [
        "with space.txt",
        "unicodé-日本.txt",
        "hash#name.txt",
        "percent%20name.txt",
        "question?.txt",
        "deep/a/b/c/d/e/six.txt",
    ] {
        let bytes = std::fs::read(crate::fixtures::root().join(path)).expect("on disk");
        assert_eq!(&*STATIC.get(path).expect(path), &bytes[..], "{path}");
    }
    // Lookups take catalog paths, not URLs: no percent-decoding happens here.
    assert!(STATIC.get("with%20space.txt").is_none());
}

#[test]
fn escaping_and_malformed_paths_find_nothing() {
    for path in [
        "",
        "/",
        "../hello.txt",
        "/../hello.txt",
        "deep/../hello.txt",
        "./hello.txt",
        "deep//a",
        "hello.txt/",
        "\\hello.txt",
        "deep\\a\\b",
        "hello.txt\0",
        "//hello.txt",
        "images/./logo.svg",
        "deep/a",
        "HELLO.TXT",
    ] {
        assert!(STATIC.get(path).is_none(), "{path:?}");
        assert!(STATIC.file(path).is_none(), "{path:?}");
    }
}

#[test]
fn dir_lists_direct_entries_in_order() {
    let entries: Vec<String> = STATIC
        .dir("/")
        .map(|entry| match entry {
            DirEntry::File(file) => file.path().to_owned(),
            DirEntry::Dir(path) => format!("{path}/"),
        })
        .collect();
    assert!(entries.contains(&"copies/".to_owned()));
    assert!(entries.contains(&"deep/".to_owned()));
    assert!(entries.contains(&"hello.txt".to_owned()));
    assert_eq!(
        entries
            .iter()
            .filter(|entry| entry.as_str() == "deep/")
            .count(),
        1
    );
    assert!(!entries.iter().any(|entry| entry.contains("six")));

    let images: Vec<&str> = STATIC
        .dir("images/")
        .filter_map(|entry| match entry {
            DirEntry::File(file) => Some(file.path()),
            DirEntry::Dir(_) => None,
        })
        .collect();
    assert_eq!(images, ["images/logo.svg", "images/pixel.png"]);

    let deepest: Vec<DirEntry> = STATIC.dir("deep/a/b/c/d/e").collect();
    assert!(
        matches!(deepest[..], [DirEntry::File(file)] if file.path() == "deep/a/b/c/d/e/six.txt")
    );

    for not_a_folder in [
        "hello.txt",
        "dee",
        "deep/a/b/c/d/e/six.txt",
        "../deep",
        "nope",
    ] {
        assert_eq!(STATIC.dir(not_a_folder).count(), 0, "{not_a_folder}");
    }
}
