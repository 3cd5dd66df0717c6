//! `bindery embed` on temporary trees: bad input, determinism, `--check`, stale blobs, and a
//! crate that compiles the module.

use std::path::Path;

use bindery_test_support::{Project, crate_path, workspace, write_site};

use crate::support::{embed, listing, stderr, stdout};

/// A throwaway crate outside the workspace that depends on this checkout's bindery, with
/// `features` and `gzip` (the modules these tests generate are often `gzip` mode).
fn crate_using_bindery(name: &str, features: &[&str]) -> Project {
    let features: Vec<&str> = features.iter().copied().chain(["gzip"]).collect();
    let project = Project::new(Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects"));
    project.write(
        "Cargo.toml",
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [workspace]\n\n[dependencies]\nbindery = {{ path = {:?}, features = {features:?} }}\n",
            crate_path("bindery")
        ),
    );
    project
}

#[test]
fn bad_input_gets_one_line_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    std::fs::write(cwd.join("file.txt"), "not a folder").expect("write");
    let cases: [(&[&str], &str); 13] = [
        (&["missing", "--out", "out/a.rs"], "folder `missing`"),
        (
            &["file.txt", "--out", "out/a.rs"],
            "`file.txt` is not a folder",
        ),
        (
            &["site", "--out", "/proc/no-such/a.rs"],
            "--out `/proc/no-such/a.rs`",
        ),
        (
            &["site", "--out", "site/inside.rs"],
            "inside the embedded folder",
        ),
        (
            &["site", "--out", "out/a.rs", "--name", "not-an-ident"],
            "--name `not-an-ident`",
        ),
        (
            &["site", "--out", "out/a.rs", "--name", "fn"],
            "--name `fn`",
        ),
        (&["site", "--out", "out/a.rs", "--mode", "brotli"], "--mode"),
        (&["site", "--out", "out/a.rs", "--include", "a[b"], "a[b"),
        (
            &["site", "--out", "out/a.rs", "--exclude", "{unclosed"],
            "{unclosed",
        ),
        (&["site", "--out", "out/a.rs", "--prefix", "../up"], "../up"),
        (&["site", "--out", "out/a.rs", "--large", "big"], "--large"),
        (
            &[
                "site", "--out", "out/a.rs", "--mode", "gzip", "--level", "10",
            ],
            "--level",
        ),
        // No Cargo.toml above the module: dev mode could not name the folder.
        (&["site", "--out", "out/a.rs", "--dev"], "--dev"),
    ];
    for (args, named) in cases {
        let output = embed(cwd, args);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.starts_with("error:"), "{args:?}: {message}");
        assert!(message.contains(named), "{args:?} names {named}: {message}");
        assert!(
            !cwd.join("out/a.rs").exists() && !cwd.join("site/inside.rs").exists(),
            "{args:?} wrote"
        );
    }
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_is_an_input_error_naming_it() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    std::os::unix::fs::symlink(cwd.join("nowhere"), cwd.join("site/dangling.txt")).expect("link");
    let output = embed(cwd, &["site", "--out", "out/a.rs"]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("dangling.txt"), "{message}");
    assert!(!cwd.join("out/a.rs").exists());

    // A read-only output folder: a usage error before any work, naming --out.
    std::fs::remove_file(cwd.join("site/dangling.txt")).expect("unlink");
    std::fs::create_dir(cwd.join("locked")).expect("mkdir");
    std::fs::set_permissions(cwd.join("locked"), std::fs::Permissions::from_mode(0o555))
        .expect("chmod");
    let is_root = std::fs::write(cwd.join("locked/probe"), "").is_ok();
    if !is_root {
        let output = embed(cwd, &["site", "--out", "locked/a.rs"]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(stderr(&output).contains("--out `locked/a.rs`"));
    }
}

#[test]
fn two_runs_give_byte_identical_output_and_check_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    let args = [
        "site",
        "--mode",
        "gzip",
        "--out",
        "gen/assets.rs",
        "--name",
        "SITE",
    ];
    let first_run = embed(cwd, &args);
    assert!(first_run.status.success(), "{}", stderr(&first_run));
    let summary = stderr(&first_run);
    assert!(
        summary.contains("files")
            && summary.contains("stored bytes")
            && summary.contains("\n     4 "),
        "the summary table: {summary}"
    );
    let first = (
        std::fs::read(cwd.join("gen/assets.rs")).expect("module"),
        listing(&cwd.join("gen/assets")),
    );
    assert_eq!(
        first.1.len(),
        2,
        "index.html and app.js compress; noise and empty do not"
    );
    assert!(embed(cwd, &args).status.success());
    let second = (
        std::fs::read(cwd.join("gen/assets.rs")).expect("module"),
        listing(&cwd.join("gen/assets")),
    );
    assert_eq!(first, second);

    let text = String::from_utf8(first.0).expect("UTF-8");
    assert!(text.starts_with("// Generated by `bindery embed` (bindery-cli): do not edit."));
    assert!(
        text.contains("//     bindery embed site --mode gzip --out gen/assets.rs --name SITE\n"),
        "{text}"
    );
    assert!(!text.contains(&*cwd.to_string_lossy()), "no absolute paths");

    let check = embed(cwd, &[&args[..], &["--check"]].concat());
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(stderr(&check).trim(), "gen/assets.rs is up to date");
    assert_eq!(stdout(&check), "");
}

#[test]
fn check_names_each_stale_file_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    let args = ["site", "--mode", "gzip", "--out", "gen/assets.rs"];
    assert!(embed(cwd, &args).status.success());
    std::fs::write(
        cwd.join("site/app.js"),
        "export const answer = 43;\n".repeat(40),
    )
    .expect("edit");
    let before = (
        std::fs::read(cwd.join("gen/assets.rs")).expect("module"),
        listing(&cwd.join("gen/assets")),
    );
    let check = embed(cwd, &[&args[..], &["--check"]].concat());
    let message = stderr(&check);
    assert_eq!(check.status.code(), Some(1), "{message}");
    assert!(
        message.contains("stale: gen/assets.rs: out of date"),
        "{message}"
    );
    assert!(
        message.contains(": missing"),
        "the new blob is missing: {message}"
    );
    assert!(
        message.contains("no longer used"),
        "the old blob is stale: {message}"
    );
    assert!(
        message.contains("error: regenerate with: bindery embed site --mode gzip"),
        "{message}"
    );
    let after = (
        std::fs::read(cwd.join("gen/assets.rs")).expect("module"),
        listing(&cwd.join("gen/assets")),
    );
    assert_eq!(before, after, "--check writes nothing");

    std::fs::remove_file(cwd.join("gen/assets.rs")).expect("remove");
    let missing = embed(cwd, &[&args[..], &["--check"]].concat());
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("stale: gen/assets.rs: missing"));
}

#[test]
fn stale_blobs_are_removed_and_foreign_files_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    let gzip = ["site", "--mode", "gzip", "--out", "gen/assets.rs"];
    assert!(embed(cwd, &gzip).status.success());
    std::fs::write(
        cwd.join("site/app.js"),
        "export const changed = true;\n".repeat(40),
    )
    .expect("edit");
    assert!(embed(cwd, &gzip).status.success());
    assert_eq!(
        listing(&cwd.join("gen/assets")).len(),
        2,
        "the old app.js blob is gone"
    );

    std::fs::write(cwd.join("gen/assets/README"), "mine").expect("write");
    assert!(
        embed(cwd, &["site", "--mode", "static", "--out", "gen/assets.rs"])
            .status
            .success()
    );
    let left: Vec<String> = listing(&cwd.join("gen/assets"))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(left, ["README"], "blobs removed, the user's file kept");
}

#[test]
fn a_crate_that_mods_the_generated_module_reads_every_file_back() {
    let project = crate_using_bindery("generated_consumer", &[]);
    let fixtures = workspace().join("assets/fixtures");
    let out = project.path().join("src/bindata.rs");
    let output = embed(
        &workspace(),
        &[
            "assets/fixtures",
            "--mode",
            "gzip",
            "--large",
            "0",
            "--out",
            out.to_str().expect("UTF-8 temp path"),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let module = std::fs::read_to_string(&out).expect("module");
    assert!(
        module.contains("__bindery_incbin"),
        "--large 0 sends files through the assembler"
    );
    project.write(
        "src/main.rs",
        format!(
            "mod bindata;\n\nfn main() {{\n    let root = std::path::Path::new({fixtures:?});\n    let mut checked = 0;\n    \
             for file in &bindata::ASSETS {{\n        let on_disk = std::fs::read(root.join(file.path())).unwrap();\n        \
             assert!(bindata::ASSETS.get(file.path()).unwrap()[..] == on_disk[..], \"{{}}\", file.path());\n        \
             checked += 1;\n    }}\n    println!(\"{{checked}} files byte-exact\");\n}}\n"
        ),
    );
    let run = project
        .cargo(&["run", "--quiet"])
        .output()
        .expect("cargo runs");
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(stdout(&run).trim(), "20 files byte-exact");
}

/// `--dev`: in a user's crate built with bindery's `dev` feature, the generated module's catalog
/// reflects the folder on disk, with the rules it was generated with; without `--dev` it embeds.
#[test]
fn a_dev_module_reads_the_folder_now_with_the_generators_rules() {
    let project = crate_using_bindery("generated_dev", &["dev"]);
    write_site(&project.path().join("assets"));
    project.write("assets/app.js.map", "{}");
    project.write(
        "src/main.rs",
        "mod assets;\nmod embedded;\n\nfn main() {\n    \
             for catalog in [&assets::ASSETS, &embedded::EMBEDDED] {\n        \
                 let paths: Vec<&str> = catalog.iter().map(|file| file.path()).collect();\n        \
                 let app = catalog.get(\"web/app.js\").map(|bytes| bytes.len());\n        \
                 println!(\"{} {paths:?} {app:?}\", catalog.is_dev());\n    \
             }\n\
         }\n",
    );
    for (out, name, dev) in [
        ("src/assets.rs", "ASSETS", true),
        ("src/embedded.rs", "EMBEDDED", false),
    ] {
        let mut args = vec![
            "assets",
            "--mode",
            "gzip",
            "--prefix",
            "web",
            "--exclude",
            "**/*.map",
            "--out",
            out,
            "--name",
            name,
        ];
        if dev {
            args.push("--dev");
        }
        let output = embed(project.path(), &args);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let module = std::fs::read_to_string(project.path().join("src/assets.rs")).expect("module");
    assert!(module.contains("--dev"), "the header records --dev");
    assert!(module.contains("__bindery_dev!"), "{module}");
    let embedded = std::fs::read_to_string(project.path().join("src/embedded.rs")).expect("module");
    assert!(
        !embedded.contains("__bindery_dev!"),
        "no dev source without --dev"
    );

    let build = project
        .cargo(&["build", "--quiet"])
        .output()
        .expect("cargo runs");
    assert!(build.status.success(), "{}", stderr(&build));
    project.write("assets/app.js", "edited");
    project.write("assets/added.txt", "new");
    project.write("assets/added.js.map", "{}");
    project.remove("assets/empty.txt");
    let binary = project.target().join("debug/generated_dev");
    let run = project.command(binary).output().expect("runs");
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(
        stdout(&run).lines().collect::<Vec<_>>(),
        [
            r#"true ["web/added.txt", "web/app.js", "web/img/noise.bin", "web/index.html"] Some(6)"#,
            r#"false ["web/app.js", "web/empty.txt", "web/img/noise.bin", "web/index.html"] Some(1040)"#,
        ]
    );
}

#[test]
fn precompress_writes_a_blob_per_variant_and_removes_them_when_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    let args = [
        "site",
        "--out",
        "gen/assets.rs",
        "--precompress",
        "br,zstd,gzip",
    ];
    let output = embed(cwd, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let names: Vec<String> = listing(&cwd.join("gen/assets"))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    for extension in [".br", ".zst", ".gz"] {
        assert_eq!(
            names
                .iter()
                .filter(|name| name.ends_with(extension))
                .count(),
            2,
            "index.html and app.js get {extension}; noise and empty do not: {names:?}"
        );
    }
    let text = std::fs::read_to_string(cwd.join("gen/assets.rs")).expect("module");
    assert!(
        text.contains("--precompress br,zstd,gzip"),
        "the header records it: {text}"
    );
    assert_eq!(text.matches("::bindery::Encoding::Br").count(), 2);
    let check = embed(cwd, &[&args[..], &["--check"]].concat());
    assert!(check.status.success(), "{}", stderr(&check));

    let dropped = embed(cwd, &["site", "--out", "gen/assets.rs"]);
    assert!(dropped.status.success());
    assert!(
        listing(&cwd.join("gen/assets")).is_empty(),
        "every variant blob is removed"
    );
}

#[test]
fn bad_precompress_values_are_usage_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    for (value, named) in [
        ("deflate", "invalid value 'deflate' for '--precompress"),
        ("br,br", "--precompress: `br` is given twice in precompress"),
        (
            "gzip,zstd,gzip",
            "--precompress: `gzip` is given twice in precompress",
        ),
        ("", "--precompress"),
    ] {
        let output = embed(cwd, &["site", "--out", "out/a.rs", "--precompress", value]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{value}: {message}");
        assert!(message.contains(named), "{value}: {message}");
        assert!(!cwd.join("out/a.rs").exists());
    }
}

#[test]
fn a_module_whose_files_changed_or_whose_table_was_edited_fails_to_build() {
    let project = crate_using_bindery("generated_stale", &[]);
    project.write("assets/a.txt", "alpha");
    project.write("assets/b.txt", "bravo");
    project.write(
        "src/main.rs",
        "mod assets;\n\nfn main() {\n    println!(\"{}\", assets::ASSETS.len());\n}\n",
    );
    let output = embed(
        project.path(),
        &["assets", "--out", "src/assets.rs", "--name", "ASSETS"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let build = || {
        project
            .cargo(&["build", "--quiet"])
            .output()
            .expect("cargo runs")
    };
    let fresh = build();
    assert!(fresh.status.success(), "{}", stderr(&fresh));

    // The file grew after generation: the recorded length no longer matches its bytes.
    project.write("assets/a.txt", "alpha, longer now");
    let stale = build();
    assert!(!stale.status.success(), "a stale module must not build");
    assert!(
        stderr(&stale).contains("do not match its recorded length; regenerate the catalog"),
        "{}",
        stderr(&stale)
    );
    project.write("assets/a.txt", "alpha");

    // Entries swapped by hand: lookups binary-search, so the order is checked too.
    let module = std::fs::read_to_string(project.path().join("src/assets.rs")).expect("module");
    let swapped = module
        .replace("\"a.txt\\\"", "\"TEMP\\\"")
        .replace("\"b.txt\\\"", "\"a.txt\\\"")
        .replace("\"TEMP\\\"", "\"b.txt\\\"");
    assert_ne!(swapped, module, "the names were found: {module}");
    project.write("src/assets.rs", &swapped);
    let unsorted = build();
    assert!(!unsorted.status.success());
    assert!(
        stderr(&unsorted).contains("catalog paths are not sorted and unique"),
        "{}",
        stderr(&unsorted)
    );
}

#[test]
fn a_file_the_generator_did_not_write_is_replaced_only_with_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    let main = "fn main() {\n    println!(\"mine\");\n}\n";
    std::fs::create_dir_all(cwd.join("src")).expect("mkdir");
    std::fs::write(cwd.join("src/main.rs"), main).expect("write");

    let refused = embed(cwd, &["site", "--out", "src/main.rs"]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.starts_with("error: --out `src/main.rs`"),
        "{message}"
    );
    assert!(message.contains("--force"), "{message}");
    assert_eq!(
        std::fs::read_to_string(cwd.join("src/main.rs")).expect("main"),
        main
    );
    assert!(!cwd.join("src/main").exists(), "no blob folder either");

    let forced = embed(cwd, &["site", "--out", "src/main.rs", "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    // Now it is a generated module: a run without --force may replace it.
    let again = embed(cwd, &["site", "--out", "src/main.rs", "--mode", "gzip"]);
    assert!(again.status.success(), "{}", stderr(&again));
}

#[test]
fn a_blob_folder_that_is_or_is_inside_the_embedded_folder_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path();
    write_site(&cwd.join("site"));
    // A file of the user's that looks like one of bindery's blobs, which stale-blob removal
    // would delete.
    let lookalike = format!("{}-9.gz", "0".repeat(64));
    std::fs::write(cwd.join("site").join(&lookalike), b"mine").expect("write");
    std::fs::create_dir_all(cwd.join("site/static")).expect("mkdir");
    let before = listing(&cwd.join("site"));
    for out in ["site.rs", "./site.rs", "site/static.rs"] {
        let refused = embed(cwd, &["site", "--mode", "gzip", "--out", out]);
        let message = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{out}: {message}");
        assert_eq!(message.lines().count(), 1, "{out}: {message}");
        assert!(
            message.contains(&format!("--out `{out}`")),
            "{out}: {message}"
        );
        assert!(message.contains("embedded folder"), "{out}: {message}");
        assert_eq!(listing(&cwd.join("site")), before, "{out}: nothing changed");
        assert!(!cwd.join("site.rs").exists());
    }
}

#[test]
fn a_module_written_for_another_contract_fails_to_build_with_one_error_naming_both() {
    let project = crate_using_bindery("generated_contract", &[]);
    project.write("assets/a.txt", "alpha");
    project.write(
        "src/main.rs",
        "mod assets;\n\nfn main() {\n    println!(\"{}\", assets::ASSETS.len());\n}\n",
    );
    let args = ["assets", "--out", "src/assets.rs", "--name", "ASSETS"];
    let output = embed(project.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let module = std::fs::read_to_string(project.path().join("src/assets.rs")).expect("module");
    let contract = bindery_codegen::CONTRACT;
    let older = module
        .replace(&format!("contract = {contract};"), "contract = 0;")
        .replace("bindery-codegen 0.1.0", "bindery-codegen 0.0.9")
        .replace(&format!("__private_v{contract}"), "__private_v0");
    assert_ne!(older, module);
    project.write("src/assets.rs", &older);

    let build = project
        .cargo(&["build", "--quiet"])
        .output()
        .expect("cargo runs");
    let message = stderr(&build);
    assert!(!build.status.success(), "{message}");
    let errors: Vec<&str> = message
        .lines()
        .filter(|line| line.starts_with("error") && !line.contains("could not compile"))
        .collect();
    assert_eq!(errors.len(), 1, "one error: {message}");
    for named in [
        "written by bindery-codegen 0.0.9 for generated-code contract 0",
        &format!("bindery 0.1.0 reads contract {contract}"),
        "regenerate it with: bindery embed assets --mode static --out src/assets.rs --name ASSETS",
    ] {
        assert!(errors[0].contains(named), "{named}: {message}");
    }

    let check = embed(project.path(), &[&args[..], &["--check"]].concat());
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("written for generated-code contract 0"),
        "{}",
        stderr(&check)
    );
}

#[test]
fn a_module_for_a_crate_that_reexports_bindery_names_it_by_crate_path() {
    let project = Project::new(Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects"));
    project.write(
        "Cargo.toml",
        "[package]\nname = \"generated_kit_user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [workspace]\n\n[dependencies]\nkit = { path = \"kit\" }\n",
    );
    project.write(
        "kit/Cargo.toml",
        format!(
            "[package]\nname = \"kit\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nbindery = {{ path = {:?}, features = [\"gzip\"] }}\n",
            crate_path("bindery")
        ),
    );
    project.write("kit/src/lib.rs", "pub use bindery;\n");
    write_site(&project.path().join("site"));
    project.write(
        "src/main.rs",
        "mod assets;\n\nfn main() {\n    println!(\"{}\", assets::ASSETS.len());\n}\n",
    );
    let args = [
        "site",
        "--mode",
        "gzip",
        "--out",
        "src/assets.rs",
        "--crate-path",
        "kit::bindery",
    ];
    let output = embed(project.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let module = std::fs::read_to_string(project.path().join("src/assets.rs")).expect("module");
    assert!(
        module.contains("kit::bindery::__bindery_module!"),
        "{module}"
    );
    assert!(
        !module.contains("::bindery::Catalog =") || module.contains("kit::bindery::Catalog"),
        "{module}"
    );
    assert!(
        module.contains("--crate-path kit::bindery"),
        "the header records it"
    );
    let build = project
        .cargo(&["run", "--quiet"])
        .output()
        .expect("cargo runs");
    assert!(build.status.success(), "{}", stderr(&build));
    assert_eq!(stdout(&build).trim(), "4");
    let check = embed(project.path(), &[&args[..], &["--check"]].concat());
    assert!(check.status.success(), "{}", stderr(&check));

    let refused = embed(
        project.path(),
        &[
            "site",
            "--out",
            "src/other.rs",
            "--crate-path",
            "not a path",
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("--crate-path: invalid crate path `not a path`"),
        "{}",
        stderr(&refused)
    );
}

/// The program of [`the_generator_and_the_macro_agree_on_every_pipeline_option`]: the generated
/// module and the macro with the same options, compared file by file.
const AGREE_MAIN: &str = r#"mod generated;

static BY_MACRO: bindery::Catalog = bindery::embed!(
    "$SITE_DIR",
    mode = "gzip",
    prefix = "static",
    fingerprint = true,
    integrity = "sha512",
    modified = "source-date-epoch",
    max_file_size = "1 MiB",
    max_total_size = 10_485_760,
    gitignore = true,
    siblings = true,
    manifest = "vite",
    script_hashes = true
);

fn main() {
    let (left, right) = (&generated::GENERATED, &BY_MACRO);
    let entries = |catalog: &bindery::Catalog| -> Vec<String> {
        catalog
            .entries()
            .map(|e| format!("{} {} {} {:?} {:?}", e.name(), e.is_entry(), e.script(), e.styles(), e.preloads()))
            .collect()
    };
    assert_eq!(entries(left), ["src/main.js true static/assets/main-Ab12Cd34.js [\"static/assets/main-Ef56Gh78.css\"] []"]);
    assert_eq!(entries(left), entries(right));
    assert_eq!(left.bundled_scripts(), right.bundled_scripts());
    assert_eq!(left.len(), right.len());
    assert!(left.has_fingerprints() && right.has_fingerprints());
    for (a, b) in left.iter().zip(right.iter()) {
        let path = a.path();
        assert_eq!(path, b.path());
        assert_eq!(a.etag(), b.etag(), "{path}");
        assert_eq!(a.gzip_etag(), b.gzip_etag(), "{path}");
        assert_eq!(a.sha256(), b.sha256(), "{path}");
        assert!(a.integrity().expect("recorded").starts_with("sha512-"), "{path}");
        assert_eq!(a.integrity(), b.integrity(), "{path}");
        assert_eq!(a.modified(), b.modified(), "{path}");
        assert_eq!(
            a.modified(),
            Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000))
        );
        assert_eq!(a.gzip(), b.gzip(), "{path}");
        assert_eq!(a.raw(), b.raw(), "{path}");
        assert_eq!(left.get(path), right.get(path), "{path}");
        assert_eq!(left.script_hashes(path), right.script_hashes(path), "{path}");
        let url = left.url(path).unwrap();
        assert_eq!(url, right.url(path).unwrap(), "{path}");
        assert_eq!(left.is_bundled(path), right.is_bundled(path), "{path}");
        if left.is_bundled(path) {
            // Named with the bundler's hash: no second fingerprint.
            assert_eq!(url, path);
            assert!(left.file_by_url(url).is_none() && right.file_by_url(url).is_none());
        } else {
            assert_ne!(url, path);
            assert_eq!(left.file_by_url(url).unwrap().path(), path);
            assert_eq!(right.file_by_url(url).unwrap().path(), path);
        }
    }
    assert!(left.is_bundled("static/assets/main-Ef56Gh78.css"));
    assert_eq!(left.script_hashes("static/page.html").len(), 2, "two inline scripts");
    assert!(left.file("static/app.js.gz").is_none(), "a sibling is no file");
    let gzip = left.file("static/app.js").unwrap().gzip().unwrap();
    assert_eq!(gzip, &std::fs::read("site/app.js.gz").unwrap()[..], "the sibling is the stored form");
    println!("{} files agree", left.len());
}
"#;

/// A front-end pipeline's output: the shared site, a `.gitignore`, a page with inline scripts,
/// Vite's hashed files and manifest, and a precompressed sibling.
fn write_pipeline_site(project: &Project) {
    write_site(&project.path().join("site"));
    project.write("site/.gitignore", "*.bin\n");
    project.write(
        "site/page.html",
        "<script>one()</script><script src=app.js></script><script type=module>two()</script>",
    );
    // Vite's output: hashed names and the manifest that lists them.
    project.write("site/assets/main-Ab12Cd34.js", "console.log('main');\n");
    project.write("site/assets/main-Ef56Gh78.css", "body { margin: 0 }\n");
    project.write(
        "site/.vite/manifest.json",
        r#"{"src/main.js": {"file": "assets/main-Ab12Cd34.js", "isEntry": true, "css": ["assets/main-Ef56Gh78.css"]}}"#,
    );
    // A pipeline's precompressed sibling: the stored gzip form of `app.js`, not a file.
    let gzipped = std::process::Command::new("gzip")
        .args(["-9", "-n", "-k", "site/app.js"])
        .current_dir(project.path())
        .status()
        .expect("gzip runs");
    assert!(gzipped.success());
}

/// The generator and the macro agree file for file on a catalog that uses every option of the
/// front-end pipeline: a folder named by a variable, fingerprints, another integrity algorithm,
/// the source date, size guards, a prefix and Vite's manifest, in gzip mode.
#[test]
fn the_generator_and_the_macro_agree_on_every_pipeline_option() {
    let project = crate_using_bindery(
        "pipeline_options_agree",
        &["csp", "vite", "gitignore", "integrity"],
    );
    write_pipeline_site(&project);
    let envs = [("SITE_DIR", "site"), ("SOURCE_DATE_EPOCH", "1600000000")];
    let generated = std::process::Command::new(crate::support::BINDERY)
        .args([
            "embed",
            "$SITE_DIR",
            "--mode",
            "gzip",
            "--out",
            "src/generated.rs",
            "--name",
            "GENERATED",
            "--prefix",
            "static",
            "--fingerprint",
            "--integrity",
            "sha512",
            "--modified",
            "source-date-epoch",
            "--max-file-size",
            "1MiB",
            "--max-total-size",
            "10MiB",
            "--gitignore",
            "--siblings",
            "--manifest",
            "vite",
            "--script-hashes",
        ])
        .current_dir(project.path())
        .envs(envs)
        .env("CI", "true")
        .output()
        .expect("bindery runs");
    assert!(generated.status.success(), "{}", stderr(&generated));
    let module = std::fs::read_to_string(project.path().join("src/generated.rs")).expect("module");
    assert!(
        module.contains("regenerate = \"bindery embed '$SITE_DIR' --mode gzip"),
        "the command keeps the variable: {module}"
    );
    project.write("src/main.rs", AGREE_MAIN);
    let run = project
        .cargo(&["run", "--quiet"])
        .envs(envs)
        .output()
        .expect("cargo runs");
    assert!(run.status.success(), "{}", stderr(&run));
    // `img/noise.bin` is ignored by `site/.gitignore`; a page and Vite's two files are added.
    assert_eq!(
        stdout(&run).trim(),
        format!(
            "{} files agree",
            bindery_test_support::site_files().len() + 2
        )
    );
}

/// The summary names the five largest files; `--max-file-size` and `--max-total-size` refuse a
/// folder naming its largest files, with exit status 2 and nothing written.
#[test]
fn the_summary_lists_the_largest_files_and_the_size_guards_name_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let site = dir.path().join("site");
    for (index, name) in [
        "a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt", "g.txt",
    ]
    .into_iter()
    .enumerate()
    {
        let path = site.join(name);
        std::fs::create_dir_all(&site).expect("site");
        std::fs::write(path, vec![b'x'; 1000 * (index + 1)]).expect("write");
    }
    let out = dir.path().join("assets.rs");
    let out = out.to_str().expect("UTF-8");
    let done = embed(dir.path(), &["site", "--out", out]);
    assert!(done.status.success(), "{}", stderr(&done));
    let summary = stderr(&done) + &stdout(&done);
    let listed: Vec<&str> = summary
        .lines()
        .skip_while(|line| !line.starts_with("largest files:"))
        .skip(1)
        .map(|line| line.split_whitespace().last().unwrap_or_default())
        .collect();
    assert_eq!(
        listed,
        ["g.txt", "f.txt", "e.txt", "d.txt", "c.txt"],
        "{summary}"
    );

    std::fs::remove_file(out).expect("remove");
    let too_large = embed(
        dir.path(),
        &["site", "--out", out, "--max-file-size", "4500"],
    );
    assert_eq!(too_large.status.code(), Some(2), "{}", stderr(&too_large));
    assert!(
        stderr(&too_large).contains(
            "3 files are larger than max_file_size (4.4 KiB): `g.txt` (6.8 KiB), `f.txt` (5.9 KiB), `e.txt` (4.9 KiB)"
        ),
        "{}",
        stderr(&too_large)
    );
    let total = embed(
        dir.path(),
        &["site", "--out", out, "--max-total-size", "20kB"],
    );
    assert_eq!(total.status.code(), Some(2), "{}", stderr(&total));
    assert!(
        stderr(&total).contains(
            "the catalog holds 27.3 KiB (more than max_total_size, 19.5 KiB); the largest files: `g.txt`"
        ),
        "{}",
        stderr(&total)
    );
    let bad = embed(
        dir.path(),
        &["site", "--out", out, "--max-file-size", "huge"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("invalid size `huge`"),
        "{}",
        stderr(&bad)
    );
    assert!(!Path::new(out).exists(), "nothing written");
}

/// The program of [`the_generator_and_the_macro_agree_on_a_catalog_of_two_folders`].
const TWO_FOLDERS_MAIN: &str = r#"mod generated;

static BY_MACRO: bindery::Catalog = bindery::embed!(
    "site",
    mode = "gzip",
    fingerprint = true,
    exclude = "img/**",
    folder("docs", prefix = "docs", include = ["*.md", "*.txt"], hidden = true)
);

fn main() {
    let (left, right) = (&generated::GENERATED, &BY_MACRO);
    let paths: Vec<&str> = left.iter().map(|file| file.path()).collect();
    assert_eq!(
        paths,
        ["app.js", "docs/.notes.md", "docs/index.md", "docs/readme.txt", "empty.txt", "index.html"]
    );
    assert_eq!(left.len(), right.len());
    for (a, b) in left.iter().zip(right.iter()) {
        let path = a.path();
        assert_eq!(path, b.path());
        assert_eq!(a.etag(), b.etag(), "{path}");
        assert_eq!(a.gzip(), b.gzip(), "{path}");
        assert_eq!(a.raw(), b.raw(), "{path}");
        assert_eq!(a.integrity(), b.integrity(), "{path}");
        assert_eq!(left.get(path), right.get(path), "{path}");
        assert_eq!(left.url(path), right.url(path), "{path}");
        let source = match path.strip_prefix("docs/") {
            Some(rest) => format!("docs/{rest}"),
            None => format!("site/{path}"),
        };
        assert_eq!(&*left.get(path).unwrap(), &std::fs::read(&source).unwrap()[..], "{path}");
    }
    assert_eq!(left.prefix(), "");
    assert!(left.get("docs/index.html").is_none(), "docs/ gives only what its rules take");
    assert!(left.get("img/noise.bin").is_none(), "site/ keeps its own exclude");
    println!("{} files agree", left.len());
}
"#;

/// `site/` (the usual site, and a hidden file) and `docs/` (documents, a hidden one, and an
/// `index.html` as `site/` has one) under `root`.
fn write_two_folders(root: &Path) {
    write_site(&root.join("site"));
    let write = |path: &str, contents: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    };
    write(
        "site/.hidden-at-top.txt",
        "hidden, and site/ takes no hidden files",
    );
    write("docs/index.md", &"# Docs\n".repeat(40));
    write("docs/.notes.md", "hidden, and docs/ takes hidden files");
    write("docs/readme.txt", "read me");
    write("docs/index.html", "<p>not a doc</p>");
}

/// Both doors build one catalog of two folders, each with its own prefix and rules, and agree on
/// it file for file; the same command with `--check` finds the module up to date.
#[test]
fn the_generator_and_the_macro_agree_on_a_catalog_of_two_folders() {
    let project = crate_using_bindery("two_folders_agree", &[]);
    write_site(&project.path().join("site"));
    project.write(
        "site/.hidden-at-top.txt",
        "hidden, and site/ takes no hidden files",
    );
    project.write("docs/index.md", "# Docs\n".repeat(40));
    project.write("docs/.notes.md", "hidden, and docs/ takes hidden files");
    project.write("docs/readme.txt", "read me");
    project.write("docs/index.html", "<p>not a doc</p>");
    let args = [
        "site",
        "--mode",
        "gzip",
        "--out",
        "src/generated.rs",
        "--name",
        "GENERATED",
        "--exclude",
        "img/**",
        "--folder",
        "docs",
        "--prefix",
        "docs",
        "--include",
        "*.md",
        "--include",
        "*.txt",
        "--hidden",
        "--fingerprint",
    ];
    let generated = embed(project.path(), &args);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let module = std::fs::read_to_string(project.path().join("src/generated.rs")).expect("module");
    let recorded = "regenerate = \"bindery embed site --mode gzip --out src/generated.rs --name GENERATED \
                    --exclude 'img/**' --fingerprint --folder docs --include '*.md' --include '*.txt' \
                    --prefix docs --hidden\"";
    assert!(module.contains(recorded), "{module}");
    project.write("src/main.rs", TWO_FOLDERS_MAIN);
    let run = project
        .cargo(&["run", "--quiet"])
        .output()
        .expect("cargo runs");
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(stdout(&run).trim(), "6 files agree");
    // The same command with --check finds the module up to date.
    let checked = embed(project.path(), &[&args[..], &["--check"]].concat());
    assert!(checked.status.success(), "{}", stderr(&checked));
}

/// Two folders that give one path fail the generator with exit status 2, naming both files and
/// both folders, and write nothing; a per-folder text flag given twice to one folder is a usage
/// error.
#[test]
fn two_folders_that_give_one_path_are_refused_naming_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path();
    write_two_folders(project);
    // Without the include, docs/index.html meets site/index.html.
    let overlap = embed(
        project,
        &["site", "--out", "src/overlap.rs", "--folder", "docs"],
    );
    assert_eq!(overlap.status.code(), Some(2), "{}", stderr(&overlap));
    let text = stderr(&overlap);
    for named in [
        "`index.html` is given by two folders",
        "site/index.html`",
        "docs/index.html`",
        "/site`)",
        "/docs`)",
    ] {
        assert!(text.contains(named), "{named}: {text}");
    }
    assert!(!project.join("src/overlap.rs").exists(), "nothing written");
    // A setting of the whole catalog after a --folder is the catalog's; a per-folder text
    // option given twice to one folder is a usage error.
    let twice = embed(
        project,
        &[
            "site",
            "--out",
            "src/twice.rs",
            "--folder",
            "docs",
            "--prefix",
            "a",
            "--prefix",
            "b",
        ],
    );
    assert_eq!(twice.status.code(), Some(2), "{}", stderr(&twice));
    assert!(
        stderr(&twice).contains("--prefix is given twice for one folder"),
        "{}",
        stderr(&twice)
    );
}
