//! The generator in a user's repository, outside this workspace: called from the project's own
//! `cargo xtask` through `bindery_cli::run`, and installed with `cargo install`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bindery_test_support::{Project, crate_path, site_files, write_site};

use crate::support::{stderr, stdout};

fn projects_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects")
}

/// A user's application crate named `name` that `mod`s `src/assets.rs` and, when run, compares
/// every embedded file with `assets/` on disk.
fn application(project: &Project, name: &str, workspace_members: &str) {
    project.write(
        "Cargo.toml",
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [workspace]\nmembers = [{workspace_members}]\n\n\
             [dependencies]\nbindery = {{ path = {:?}, features = [\"gzip\", \"integrity\"] }}\n",
            crate_path("bindery")
        ),
    );
    project.write(
        "src/main.rs",
        "mod assets;\n\n\
         // The macro's catalog of the same folder: a checked reference through either door is\n\
         // one file, one URL, one integrity.\n\
         static BY_MACRO: bindery::Catalog = bindery::embed!(\"assets\", mode = \"gzip\", fingerprint = true, integrity = true);\n\
         const GENERATED_APP: bindery::Asset = assets::ASSETS.asset(\"app.js\");\n\
         const MACRO_APP: bindery::Asset = bindery::asset!(BY_MACRO, \"/app.js\");\n\n\
         fn main() {\n    \
             assert_eq!(GENERATED_APP.url(), MACRO_APP.url());\n    \
             assert_ne!(GENERATED_APP.url(), \"app.js\", \"fingerprinted\");\n    \
             assert_eq!(GENERATED_APP.integrity(), MACRO_APP.integrity());\n    \
             assert!(GENERATED_APP.integrity().is_some());\n    \
             assert_eq!(GENERATED_APP.contents().unwrap(), MACRO_APP.contents().unwrap());\n    \
             let mut checked = 0;\n    \
             for file in &assets::ASSETS {\n        \
                 let on_disk = std::fs::read(std::path::Path::new(\"assets\").join(file.path())).unwrap();\n        \
                 assert!(assets::ASSETS.get(file.path()).unwrap()[..] == on_disk[..], \"{}\", file.path());\n        \
                 checked += 1;\n    \
             }\n    \
             println!(\"{checked} files byte-exact, {:?} mode\", assets::ASSETS.mode());\n\
         }\n",
    );
    write_site(&project.path().join("assets"));
}

/// What every front door must do in a user's project: embed, build and read back byte-exact;
/// `--check` passes, notices an edited asset, and a missing folder is a usage error.
fn exercise(project: &Project, app: &str, generator: &dyn Fn(&[&str]) -> Output, shown: &str) {
    let args = [
        "assets/",
        "--mode",
        "gzip",
        "--fingerprint",
        "--integrity",
        "sha384",
        "--out",
        "src/assets.rs",
        "--name",
        "ASSETS",
    ];
    let generated = generator(&args);
    assert!(generated.status.success(), "{}", stderr(&generated));
    assert!(
        !std::fs::read_dir(project.path().join("src/assets"))
            .expect("gzip blobs beside the module")
            .collect::<Vec<_>>()
            .is_empty()
    );

    let build = project
        .cargo(&["build", "--package", app])
        .output()
        .expect("cargo");
    assert!(build.status.success(), "{}", stderr(&build));
    let binary = project.target().join("debug").join(app);
    let ran = project.command(&binary).output().expect("the app runs");
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert_eq!(
        stdout(&ran).trim(),
        format!("{} files byte-exact, Gzip mode", site_files().len())
    );

    let check = generator(&[&args[..], &["--check"]].concat());
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));

    project.write("assets/app.js", "export const answer = 43;\n".repeat(40));
    let module_before = std::fs::read(project.path().join("src/assets.rs")).expect("module");
    let stale = generator(&[&args[..], &["--check"]].concat());
    assert_eq!(stale.status.code(), Some(1), "{}", stderr(&stale));
    assert!(
        stderr(&stale).contains(&format!(
            "regenerate with: {shown} embed assets/ --mode gzip --out src/assets.rs --name ASSETS --fingerprint --integrity sha384"
        )),
        "{}",
        stderr(&stale)
    );

    let missing = generator(&["no-such-folder/", "--out", "src/assets.rs"]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("error: folder `no-such-folder/` does not exist"),
        "{}",
        stderr(&missing)
    );
    let hinted = generator(&[
        "no-such-folder/",
        "--out",
        "src/assets.rs",
        "--hint",
        "run `make assets`",
    ]);
    assert_eq!(hinted.status.code(), Some(2), "{}", stderr(&hinted));
    assert!(
        stderr(&hinted).contains("folder `no-such-folder/` does not exist; run `make assets`"),
        "{}",
        stderr(&hinted)
    );
    let module_after = std::fs::read(project.path().join("src/assets.rs")).expect("module");
    assert_eq!(module_before, module_after, "neither run wrote");
}

#[test]
fn a_users_own_xtask_runs_the_generator_with_one_line() {
    let project = Project::new(projects_target());
    application(&project, "user-app", "\"xtask\"");
    project.write(
        ".cargo/config.toml",
        "[alias]\nxtask = \"run --quiet --package xtask --\"\n",
    );
    project.write(
        "xtask/Cargo.toml",
        format!(
            "[package]\nname = \"xtask\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nbindery-cli = {{ path = {:?} }}\n",
            crate_path("bindery-cli")
        ),
    );
    // The program the docs show (docs/embedding.md), as a user copies it.
    project.write("xtask/src/main.rs", include_str!("../../examples/xtask.rs"));
    let xtask = |args: &[&str]| -> Output {
        project
            .cargo(&[&["xtask", "embed"], args].concat())
            .env("CI", "true")
            .output()
            .expect("cargo xtask runs")
    };
    exercise(&project, "user-app", &xtask, "cargo xtask");

    let help = project
        .cargo(&["xtask", "help", "embed"])
        .output()
        .expect("cargo xtask help");
    assert!(
        stdout(&help).contains("Usage: cargo xtask embed [OPTIONS] <DIR>"),
        "{}",
        stdout(&help)
    );
}

#[test]
fn cargo_install_gives_a_bindery_binary_that_works_anywhere() {
    if !bindery_test_support::slow_test(
        "bindery-cli",
        "cargo_install_gives_a_bindery_binary_that_works_anywhere",
        "`cargo install` builds the generator in release",
    ) {
        return;
    }
    let root = tempfile::tempdir().expect("tempdir");
    let cli_path = crate_path("bindery-cli");
    let mut install = Command::new(env!("CARGO"));
    // The release profile, unoptimized: what `cargo install` resolves, builds and installs
    // is what a user gets, for a fraction of the compile.
    bindery_test_support::quick_build_profiles(&mut install);
    let install = install
        .args([
            "install",
            "--locked",
            "--offline",
            "--path",
            &cli_path,
            "--root",
        ])
        .arg(root.path())
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("install"),
        )
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo install runs");
    assert!(install.status.success(), "{}", stderr(&install));
    let binary = root.path().join("bin/bindery");
    assert!(binary.is_file(), "installed as bin/bindery");

    let version = Command::new(&binary)
        .arg("--version")
        .output()
        .expect("runs");
    assert_eq!(
        stdout(&version).trim(),
        format!("bindery {}", env!("CARGO_PKG_VERSION"))
    );

    let project = Project::new(projects_target());
    application(&project, "installed-app", "");
    let installed = |args: &[&str]| -> Output {
        project
            .command(&binary)
            .arg("embed")
            .args(args)
            .output()
            .expect("bindery runs")
    };
    exercise(&project, "installed-app", &installed, "bindery");
}
