//! Releases kept beside a build (`releases`) and the deltas made against them
//! (`dictionaries`): a release saved, read back and verified; every way a kept release can be
//! wrong refused naming it; only the newest kept; every delta decoded by the reference `zstd`
//! tool with its dictionary to the exact file.

use std::path::Path;
use std::process::Command;

use bindery_codegen::{DCZ_MAGIC, Error, Manifest, Options, release};

/// A bundle of many small functions, one of which says `version`.
fn bundle(version: u32) -> String {
    let mut text = String::new();
    for index in 0..300 {
        let tag = if index == 150 { version } else { 0 };
        text.push_str(&format!(
            "export function item{index}(value) {{ return \"item {index} {tag}\" + value * {index}; }}\n"
        ));
    }
    text
}

/// A site whose app bundle is `app.js` at `version`, and a stylesheet that never changes.
fn site(version: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("app.js"), bundle(version)).expect("app.js");
    std::fs::write(
        dir.path().join("site.css"),
        "body { margin: 0 }\n".repeat(20),
    )
    .expect("css");
    std::fs::write(dir.path().join("index.html"), "<!doctype html><p>hi</p>").expect("html");
    std::fs::write(dir.path().join("logo.png"), b"\x89PNG\r\n\x1a\n not really").expect("png");
    dir
}

fn options(root: &Path, cache: &Path) -> Options {
    Options::new(root).fingerprint(true).cache_dir(cache)
}

/// Saves releases 1..=`count` of the site (`app.js` at each version) into `releases`.
fn save_releases(releases: &Path, cache: &Path, count: u32, keep: u64) {
    for version in 1..=count {
        let dir = site(version);
        let manifest = options(dir.path(), cache).build().expect("builds");
        let saved = release::save(&manifest, releases, keep).expect("saves");
        assert_eq!(saved.number, u64::from(version));
    }
}

fn with_releases(root: &Path, cache: &Path, releases: &Path) -> Result<Manifest, Error> {
    options(root, cache)
        .releases(Some(releases.to_owned()))
        .dictionaries(true)
        .precompress(vec![
            bindery_codegen::Encoding::Br,
            bindery_codegen::Encoding::Zstd,
        ])
        .build()
}

#[test]
fn a_saved_release_is_served_beside_the_next_build_with_a_delta_against_it() {
    let cache = tempfile::tempdir().expect("cache");
    let releases = tempfile::tempdir().expect("releases");
    save_releases(releases.path(), cache.path(), 1, 3);
    let record =
        std::fs::read_to_string(releases.path().join("1").join(release::RECORD)).expect("record");
    // Every fingerprinted name (the page's too: it is served under it).
    assert_eq!(record.matches("\"path\"").count(), 4, "{record}");
    let current = site(2);
    let manifest = with_releases(current.path(), cache.path(), releases.path()).expect("builds");
    let kept: Vec<&str> = manifest
        .entries
        .iter()
        .filter(|entry| entry.kept.is_some())
        .map(|entry| entry.path.as_str())
        .collect();
    // The stylesheet and the page did not change: their fingerprinted names are this build's.
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].starts_with("app."), "{kept:?}");
    let app = manifest
        .entries
        .iter()
        .find(|entry| entry.path == "app.js")
        .expect("app.js");
    let dictionary = app.dictionary.as_ref().expect("a dictionary pattern");
    assert_eq!(dictionary.pattern, "app.*.js");
    assert_eq!(dictionary.destination, Some("script"));
    assert_eq!(dictionary.deltas.len(), 1);
    let delta = &dictionary.deltas[0];
    let old = manifest
        .entries
        .iter()
        .find(|entry| entry.path == delta.dictionary_path)
        .expect("the dictionary is served");
    assert_eq!(Some(delta.dictionary), old.sha256);
    let smallest = app
        .variants
        .iter()
        .map(|variant| variant.len)
        .min()
        .expect("variants");
    assert!(
        delta.len * 10 < smallest,
        "delta {} vs {smallest}",
        delta.len
    );
    let bytes = std::fs::read(&delta.blob).expect("blob");
    assert_eq!(&bytes[..8], DCZ_MAGIC);
    assert_eq!(
        Some(&bytes[8..40]),
        old.sha256.as_ref().map(|sha256| &sha256[..])
    );
    // The kept bundle is a dictionary for what follows; HTML is never one.
    assert!(
        old.dictionary
            .as_ref()
            .is_some_and(|kept| kept.deltas.is_empty())
    );
    let page = manifest
        .entries
        .iter()
        .find(|entry| entry.path == "index.html")
        .expect("page");
    assert!(page.dictionary.is_none());
    // An image is no dictionary: a delta would gain nothing.
    let logo = manifest
        .entries
        .iter()
        .find(|entry| entry.path == "logo.png")
        .expect("logo");
    assert!(logo.dictionary.is_none());
}

#[test]
fn every_delta_decodes_with_the_zstd_tool_and_its_dictionary() {
    if !bindery_test_support::slow_test(
        "bindery-codegen",
        "every_delta_decodes_with_the_zstd_tool_and_its_dictionary",
        "needs the zstd command-line tool",
    ) {
        return;
    }
    let cache = tempfile::tempdir().expect("cache");
    let releases = tempfile::tempdir().expect("releases");
    save_releases(releases.path(), cache.path(), 3, 3);
    let current = site(4);
    let manifest = with_releases(current.path(), cache.path(), releases.path()).expect("builds");
    let scratch = tempfile::tempdir().expect("scratch");
    let mut checked = 0;
    for entry in &manifest.entries {
        for delta in entry
            .dictionary
            .iter()
            .flat_map(|dictionary| &dictionary.deltas)
        {
            let dictionary = manifest
                .entries
                .iter()
                .find(|other| other.path == delta.dictionary_path)
                .expect("dictionary");
            let body = scratch.path().join(format!("{checked}.zst"));
            std::fs::write(&body, &std::fs::read(&delta.blob).expect("blob")[40..]).expect("body");
            let output = Command::new("zstd")
                .args(["-d", "-c", "--long=27", "-D"])
                .arg(&dictionary.source)
                .arg(&body)
                .output()
                .expect("`zstd` is needed: `apt-get install zstd` (cargo xtask ci does)");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(
                output.stdout,
                std::fs::read(&entry.source).expect("source"),
                "{}",
                entry.path
            );
            checked += 1;
        }
    }
    // app.js against each of the three earlier versions.
    assert_eq!(checked, 3);
}

#[test]
fn only_the_newest_releases_are_kept_and_a_save_prunes_the_rest() {
    let cache = tempfile::tempdir().expect("cache");
    let releases = tempfile::tempdir().expect("releases");
    save_releases(releases.path(), cache.path(), 4, 2);
    let numbers: Vec<u64> = release::read(releases.path(), 32)
        .expect("reads")
        .iter()
        .map(|kept| kept.number)
        .collect();
    assert_eq!(numbers, [4, 3]);
    let current = site(5);
    let manifest = options(current.path(), cache.path())
        .releases(Some(releases.path().to_owned()))
        .keep_releases(1)
        .build()
        .expect("builds");
    let kept: Vec<Option<u64>> = manifest
        .entries
        .iter()
        .filter_map(|entry| entry.kept.map(Some))
        .collect();
    assert!(kept.iter().all(|number| *number == Some(4)), "{kept:?}");
    // Saving the same build twice writes nothing.
    let same = site(4);
    let again = options(same.path(), cache.path()).build().expect("builds");
    assert!(
        !release::save(&again, releases.path(), 2)
            .expect("saves")
            .wrote
    );
}

/// Release 1 of the site saved, then `spoil` applied to its folder: the next build must fail
/// naming the release, with `expected` in the message.
fn refused_after(spoil: impl FnOnce(&Path), expected: &str) {
    let cache = tempfile::tempdir().expect("cache");
    let releases = tempfile::tempdir().expect("releases");
    save_releases(releases.path(), cache.path(), 1, 3);
    spoil(&releases.path().join("1"));
    let current = site(2);
    let error = options(current.path(), cache.path())
        .releases(Some(releases.path().to_owned()))
        .build()
        .expect_err("refused");
    assert!(matches!(error, Error::Release { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(expected), "{message}");
}

fn kept_bundle(folder: &Path) -> std::path::PathBuf {
    std::fs::read_dir(folder)
        .expect("folder")
        .filter_map(Result::ok)
        .map(|item| item.path())
        .find(|path| path.extension().is_some_and(|extension| extension == "js"))
        .expect("the kept bundle")
}

fn edit_record(folder: &Path, edit: impl FnOnce(String) -> String) {
    let path = folder.join(release::RECORD);
    let text = std::fs::read_to_string(&path).expect("record");
    std::fs::write(&path, edit(text)).expect("record");
}

#[test]
fn a_kept_file_that_is_not_what_its_record_says_fails_the_build() {
    // The same length, one byte changed: only its hash tells.
    refused_after(
        |folder| {
            let path = kept_bundle(folder);
            let mut bytes = std::fs::read(&path).expect("kept");
            bytes[10] ^= 1;
            std::fs::write(&path, bytes).expect("write");
        },
        "is not the file its record names",
    );
    refused_after(
        |folder| {
            let path = kept_bundle(folder);
            std::fs::write(&path, "export {}").expect("write");
        },
        "bytes recorded",
    );
    refused_after(
        |folder| std::fs::remove_file(kept_bundle(folder)).expect("remove"),
        "No such file",
    );
}

#[test]
fn a_record_that_is_wrong_or_reaches_outside_its_folder_is_refused() {
    refused_after(
        |folder| {
            edit_record(folder, |text| {
                text.replace("\"bindery_release\": 1", "\"bindery_release\": 9")
            })
        },
        "record format 9",
    );
    refused_after(
        |folder| {
            edit_record(folder, |text| {
                text.replace("\"release\": 1", "\"release\": 2")
            })
        },
        "the record is of release 2, in folder 1",
    );
    refused_after(
        |folder| {
            edit_record(folder, |text| {
                text.replacen("\"path\": \"", "\"path\": \"../", 1)
            })
        },
        "is not a catalog path",
    );
    refused_after(
        |folder| std::fs::write(folder.join(release::RECORD), "{").expect("write"),
        "not a release record",
    );
    refused_after(
        |folder| std::fs::remove_file(folder.join(release::RECORD)).expect("remove"),
        "bindery-release.json",
    );
    // A kept file reached through a link (it could point anywhere) is refused.
    refused_after(
        |folder| {
            let path = kept_bundle(folder);
            let moved = folder.with_extension("elsewhere");
            std::fs::rename(&path, &moved).expect("move");
            std::os::unix::fs::symlink(&moved, &path).expect("link");
        },
        "never reached through a link",
    );
}

#[test]
fn a_kept_path_this_build_holds_with_other_bytes_fails_the_build() {
    let cache = tempfile::tempdir().expect("cache");
    let releases = tempfile::tempdir().expect("releases");
    let folder = releases.path().join("1");
    std::fs::create_dir_all(&folder).expect("folder");
    let bytes = b"not the current page";
    std::fs::write(folder.join("index.html"), bytes).expect("write");
    let sha256: String =
        sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(bytes))
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
    std::fs::write(
        folder.join(release::RECORD),
        format!(
            r#"{{"bindery_release": 1, "release": 1, "files": [{{"path": "index.html", "len": {}, "sha256": "{sha256}"}}]}}"#,
            bytes.len()
        ),
    )
    .expect("record");
    let current = site(1);
    let error = options(current.path(), cache.path())
        .releases(Some(releases.path().to_owned()))
        .build()
        .expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("`index.html` is also a file of this build"),
        "{error}"
    );
}

#[test]
fn kept_files_count_against_max_total_size() {
    let cache = tempfile::tempdir().expect("cache");
    let releases = tempfile::tempdir().expect("releases");
    save_releases(releases.path(), cache.path(), 1, 3);
    let current = site(2);
    let alone = options(current.path(), cache.path())
        .build()
        .expect("builds");
    let total: u64 = alone.entries.iter().map(|entry| entry.len).sum();
    let error = options(current.path(), cache.path())
        .releases(Some(releases.path().to_owned()))
        .max_total_size(Some(total + 100))
        .build()
        .expect_err("refused");
    assert!(matches!(error, Error::TotalTooLarge { .. }), "{error:?}");
}
