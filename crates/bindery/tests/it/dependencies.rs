//! What a crate that uses bindery compiles and links: no brotli or zstd code in the binary,
//! whatever the features (the encoders run inside the `embed!` macro at build time; at run time
//! variants are only sent); an embed-only build with the defaults compiles what embedding needs
//! and nothing of what only an option asks for (README, "Features"); and no bindery crate is on
//! both sides of a build (the macro's host and the runtime's target), so none is compiled twice.

use std::process::Command;

/// `cargo tree -p bindery` with `features` and `edges`, one crate per line.
fn tree(features: &str, edges: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            "bindery",
            "--prefix",
            "none",
        ])
        .args(["--features", features, "--edges", edges])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_runtime_links_no_brotli_or_zstd_code_even_with_their_features() {
    let runtime = tree("serve,br,zstd", "normal,no-proc-macro");
    assert!(runtime.contains("\nhttp "), "the tree is real: {runtime}");
    for crate_name in ["brotli", "zstd"] {
        assert!(
            !runtime.lines().any(|line| line.starts_with(crate_name)),
            "{crate_name} in the runtime's dependencies:\n{runtime}"
        );
    }
    // With the macro's dependencies shown, the encoders are there: the features do something.
    let with_macro = tree("br,zstd", "normal");
    assert!(
        with_macro.lines().any(|line| line.starts_with("brotli ")),
        "{with_macro}"
    );
    assert!(
        with_macro.lines().any(|line| line.starts_with("zstd ")),
        "{with_macro}"
    );
}

#[test]
fn an_embed_only_build_compiles_no_json_crate_unless_a_feature_reads_json() {
    // Everything a build with the defaults compiles, the macro's dependencies included.
    let defaults = tree("", "normal,build");
    assert!(
        defaults
            .lines()
            .any(|line| line.starts_with("bindery-macros ")),
        "the tree is real: {defaults}"
    );
    for crate_name in ["serde_json ", "serde_derive ", "serde "] {
        assert!(
            !defaults.lines().any(|line| line.starts_with(crate_name)),
            "{crate_name}in an embed-only build:\n{defaults}"
        );
    }
    for feature in ["vite", "releases"] {
        let with = tree(feature, "normal,build");
        assert!(
            with.lines().any(|line| line.starts_with("serde_json ")),
            "`{feature}` reads JSON: {with}"
        );
    }
}

/// Whether `tree` lists `crate_name` (a line starting with its name and a space).
fn lists(tree: &str, crate_name: &str) -> bool {
    tree.lines()
        .any(|line| line.starts_with(&format!("{crate_name} ")))
}

#[test]
fn an_embed_only_build_compiles_no_regex_engine_c_compiler_decompressor_or_second_hash() {
    let defaults = tree("", "normal,build");
    assert!(lists(&defaults, "walkdir"), "the tree is real: {defaults}");
    for crate_name in [
        "regex-automata",
        "regex-syntax",
        "globset",
        "ignore",
        "cc",
        "flate2",
        "miniz_oxide",
        "blake3",
        "sha2",
    ] {
        assert!(
            !lists(&defaults, crate_name),
            "{crate_name} in an embed-only build:\n{defaults}"
        );
    }
    // Each comes with the feature that asks for it, and only then.
    for (feature, crate_name) in [
        ("gzip", "flate2"),
        ("integrity", "sha2"),
        ("gitignore", "ignore"),
    ] {
        let with = tree(feature, "normal,build");
        assert!(
            lists(&with, crate_name),
            "`{feature}` adds {crate_name}: {with}"
        );
    }
}

#[test]
fn the_runtime_shares_no_bindery_crate_with_the_macro_so_none_is_compiled_twice() {
    // The runtime's own dependencies (the macro and what it runs left out): none of the crates
    // the macro runs, which a build compiles for the host, would be compiled for the target too.
    for features in [
        "",
        "serve",
        "serve,server,zerocopy,axum,gzip,integrity,vite",
    ] {
        let runtime = tree(features, "normal,no-proc-macro");
        assert!(lists(&runtime, "thiserror"), "the tree is real: {runtime}");
        for crate_name in ["bindery-core", "bindery-codegen", "syn"] {
            assert!(
                !lists(&runtime, crate_name),
                "{crate_name} in the runtime's tree with `{features}`:\n{runtime}"
            );
        }
    }
    // Dev mode and the overlay run the build's scan and description at run time: there it is.
    assert!(lists(
        &tree("overlay", "normal,no-proc-macro"),
        "bindery-core"
    ));
}

/// The crates `cargo tree` lists for bindery with `features` (the macro's included), each once.
fn crate_count(features: &str) -> usize {
    let listed = tree(features, "normal,build");
    let mut names: Vec<&str> = listed
        .lines()
        .filter_map(|line| line.split(" (").next())
        .filter(|line| !line.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

#[test]
fn the_readme_s_feature_table_counts_what_each_feature_compiles() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README");
    let base = crate_count("");
    // "compiles 19 crates from cold, itself included": bindery's tree and the user's crate.
    assert!(
        readme.contains(&format!(
            "a crate using `embed!` compiles {} crates",
            base + 1
        )),
        "README's count of an embed-only build is not {}",
        base + 1
    );
    let serve = crate_count("serve");
    let over_serve = [
        "server",
        "zerocopy",
        "axum",
        "actix",
        "rocket",
        "minijinja",
        "livereload",
    ];
    let rows: Vec<(&str, usize)> = readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let feature = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((feature, cells.get(3)?.parse().ok()?))
        })
        .collect();
    let mut rows_features: Vec<String> = rows
        .iter()
        .map(|(feature, _)| feature.to_string())
        .collect();
    rows_features.sort_unstable();
    assert_eq!(
        rows_features,
        features()
            .into_iter()
            .map(|(name, _)| name)
            .collect::<Vec<_>>(),
        "one row per feature of Cargo.toml"
    );
    for (feature, claimed) in rows {
        let measured = if over_serve.contains(&feature) {
            crate_count(&format!("serve,{feature}")) - serve
        } else {
            crate_count(feature) - base
        };
        assert_eq!(measured, claimed, "README's row for `{feature}`");
    }
}

/// The features of bindery's Cargo.toml but `default`, sorted, each with its `##` doc comment.
fn features() -> Vec<(String, String)> {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("manifest");
    let table = manifest
        .split("[features]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [features] table");
    let mut features = Vec::new();
    let mut doc = String::new();
    for line in table.lines() {
        if let Some(text) = line.strip_prefix("##") {
            doc.push_str(text.trim());
            doc.push(' ');
        } else if let Some((name, _)) = line.split_once(" = ") {
            let name = name.trim();
            if name != "default" {
                features.push((name.to_owned(), std::mem::take(&mut doc)));
            }
            doc.clear();
        }
    }
    features.sort_unstable();
    features
}

/// The `| `feature` | what it adds |` rows of the crate docs' "Feature flags" section.
fn documented_features(lib_rs: &str) -> Vec<(String, String)> {
    let section = lib_rs
        .split("//! # Feature flags")
        .nth(1)
        .and_then(|rest| rest.split("\n//! # ").next())
        .expect("a \"Feature flags\" section in the crate docs");
    let mut rows: Vec<(String, String)> = section
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix("//! |")?.split(" | ").collect();
            let name = cells.first()?.trim().strip_prefix('`')?.strip_suffix('`')?;
            Some((
                name.to_owned(),
                cells.get(1)?.trim_end_matches(" |").trim().to_owned(),
            ))
        })
        .collect();
    rows.sort_unstable();
    rows
}

#[test]
fn the_crate_docs_list_every_feature_of_cargo_toml_with_what_it_adds() {
    let lib_rs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"))
        .expect("lib.rs");
    let documented = documented_features(&lib_rs);
    let features = features();
    let names = |list: &[(String, String)]| {
        list.iter()
            .map(|(name, _)| name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&documented),
        names(&features),
        "the crate docs' feature table against Cargo.toml"
    );
    for (name, adds) in documented.iter().chain(&features) {
        assert!(
            adds.len() > 20,
            "feature `{name}` says too little of what it adds: {adds:?}"
        );
    }
    // The check sees a row gone or a feature undocumented: it is not vacuous.
    let without_gzip = lib_rs.replace("//! | `gzip` |", "//! | gzip |");
    assert_ne!(names(&documented_features(&without_gzip)), names(&features));
}
