//! ARCHITECTURE.md as a map that stays true: at most [`MAX_BYTES`] bytes and
//! [`MAX_LINE`] characters a line; every source file (`.rs` under a crate's `src/`, unit-test
//! `tests.rs` files aside) named once, under the heading of its folder, and every name there a
//! file that exists.
//!
//! A heading whose first word is a folder (`### crates/bindery/src/serve`) starts that folder's
//! section; in its bullets (and their indented continuations) every backquoted name ending in
//! `.rs` is a file of the folder, a name with a `/` a path below it, and a backquoted folder name
//! ending in `/` (`facts/`) the folder of the names after it in that bullet.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The map's size at most, in bytes: a page read in a minute.
pub const MAX_BYTES: usize = 12_000;

/// A line of the map at most, in characters.
pub const MAX_LINE: usize = 110;

/// Every source file the map must name, relative to `root`, with `/` separators: the `src/`
/// of every crate of the workspace but the benches (named by their folder).
pub fn source_files(root: &Path) -> anyhow::Result<Vec<String>> {
    let benches = root.join("benches");
    let mut files = Vec::new();
    for folder in crate::process::crate_folders(root)? {
        let src = folder.join("src");
        if folder.starts_with(&benches) || !src.is_dir() {
            continue;
        }
        for file in crate::process::rust_files(&src)? {
            if file.file_name().is_some_and(|name| name == "tests.rs") {
                continue;
            }
            files.push(relative(root, &file));
        }
    }
    files.sort();
    Ok(files)
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The files the map names, each with the lines (1-based) that name it.
fn named(root: &Path, map: &str) -> BTreeMap<String, Vec<usize>> {
    let mut named: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut folder: Option<PathBuf> = None;
    let mut below = String::new();
    for (index, line) in map.lines().enumerate() {
        if line.starts_with('#') {
            let heading = line.trim_start_matches('#').split_whitespace().next();
            folder = heading
                .map(|word| root.join(word.trim_matches('`')))
                .filter(|path| path.is_dir() && heading.is_some_and(|word| word.contains('/')));
            continue;
        }
        let Some(folder) = &folder else { continue };
        if line.starts_with("- ") {
            below.clear();
        } else if !line.starts_with("  ") {
            continue;
        }
        for name in line.split('`').skip(1).step_by(2) {
            if name.ends_with('/') && !name.contains(' ') {
                below = name.to_owned();
            } else if name.ends_with(".rs") && !name.contains(' ') {
                let path = folder.join(format!("{below}{name}"));
                named
                    .entry(relative(root, &path))
                    .or_default()
                    .push(index + 1);
            }
        }
    }
    named
}

/// What is wrong with the map at `root`'s ARCHITECTURE.md, one line each.
pub fn offences(root: &Path) -> anyhow::Result<Vec<String>> {
    let Ok(map) = std::fs::read_to_string(root.join("ARCHITECTURE.md")) else {
        return Ok(vec![
            "ARCHITECTURE.md is missing: the map of the code".to_owned(),
        ]);
    };
    let mut offences = Vec::new();
    if map.len() > MAX_BYTES {
        offences.push(format!(
            "ARCHITECTURE.md: {} bytes, more than {MAX_BYTES}: a map, not a manual (mechanisms \
             go in the files' own //! docs)",
            map.len()
        ));
    }
    for (index, line) in map.lines().enumerate() {
        let length = line.chars().count();
        if length > MAX_LINE {
            offences.push(format!(
                "ARCHITECTURE.md:{}: {length} characters, more than {MAX_LINE}",
                index + 1
            ));
        }
    }
    let named = named(root, &map);
    for (file, lines) in &named {
        if !root.join(file).is_file() {
            offences.push(format!(
                "ARCHITECTURE.md:{}: {file} does not exist",
                lines[0]
            ));
        } else if lines.len() > 1 {
            offences.push(format!(
                "ARCHITECTURE.md: {file} is named on lines {lines:?}"
            ));
        }
    }
    for file in source_files(root)? {
        if !named.contains_key(&file) {
            offences.push(format!(
                "ARCHITECTURE.md: {file} is not on the map (a line under its folder's heading)"
            ));
        }
    }
    Ok(offences)
}

#[cfg(test)]
mod tests {
    use super::offences;

    /// A workspace of two crates' sources, and a map of them.
    fn workspace(map: &str) -> tempfile::TempDir {
        let root = tempfile::tempdir().expect("tempdir");
        for file in [
            "crates/a/src/lib.rs",
            "crates/a/src/part/mod.rs",
            "crates/a/src/part/tests.rs",
            "examples/b/src/main.rs",
            "xtask/src/main.rs",
        ] {
            let path = root.path().join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(path, "").expect("file");
        }
        for krate in ["crates/a", "examples/b", "xtask"] {
            std::fs::write(root.path().join(krate).join("Cargo.toml"), "").expect("manifest");
        }
        std::fs::write(root.path().join("ARCHITECTURE.md"), map).expect("map");
        root
    }

    const TRUE_MAP: &str = "# Map\n\n## crates/a/src\nThe crate.\n- `lib.rs` the root; \
         `part/mod.rs` a part\n## examples/b/src\n- `main.rs` a binary\n## xtask/src\n- \
         `main.rs` tasks\n## Invariants\n- `gone.rs` is prose here\n";

    #[test]
    fn a_true_map_passes() {
        let root = workspace(TRUE_MAP);
        assert_eq!(
            offences(root.path()).expect("offences"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_missing_a_stale_or_a_doubled_name_and_a_long_line_are_offences() {
        let missing = TRUE_MAP.replace("`part/mod.rs` a part", "a part");
        let stale = TRUE_MAP.replace("`lib.rs` the root", "`lib.rs` `old.rs` the root");
        let doubled = TRUE_MAP.replace("- `main.rs` a binary", "- `main.rs` `main.rs` a binary");
        let long = TRUE_MAP.replace("The crate.", &"long ".repeat(30));
        for (map, expected) in [
            (missing, "crates/a/src/part/mod.rs is not on the map"),
            (stale, "crates/a/src/old.rs does not exist"),
            (doubled, "examples/b/src/main.rs is named on lines"),
            (long, "150 characters, more than 110"),
        ] {
            let root = workspace(&map);
            let found = offences(root.path()).expect("offences");
            assert!(
                found.iter().any(|offence| offence.contains(expected)),
                "{expected}: {found:?}"
            );
        }
    }

    #[test]
    fn a_folder_named_in_a_bullet_holds_the_names_after_it() {
        let map = TRUE_MAP.replace("`part/mod.rs` a part", "`part/`: `mod.rs`");
        let root = workspace(&map);
        assert_eq!(
            offences(root.path()).expect("offences"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_map_past_its_size_is_refused() {
        let map = format!("{TRUE_MAP}{}", "- filler line of the map\n".repeat(500));
        let root = workspace(&map);
        let found = offences(root.path()).expect("offences");
        assert!(
            found
                .iter()
                .any(|offence| offence.contains("a map, not a manual")),
            "{found:?}"
        );
    }
}
