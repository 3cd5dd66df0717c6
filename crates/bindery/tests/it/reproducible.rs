//! `modified = "source-date-epoch"`: two checkouts of one commit, whose files have different
//! modification times, serve the same `Last-Modified` and ETags: the commit's time, never a
//! checkout's.

use std::path::Path;
use std::process::Command;

use crate::project::Project;

const MAIN: &str = r#"
static ASSETS: bindery::Catalog = bindery::embed!("assets", modified = "source-date-epoch", precompress = ["gzip"]);

fn main() {
    for file in &ASSETS {
        let seconds = file.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        println!("{} {} {:?} {seconds}", file.path(), file.etag(), file.encoded_etag(bindery::Encoding::Gzip));
    }
}
"#;

/// The commit's time, 2023-11-14T22:13:20Z.
const COMMITTED: u64 = 1_700_000_000;

fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_DATE", format!("@{COMMITTED} +0000"))
        .env("GIT_COMMITTER_DATE", format!("@{COMMITTED} +0000"))
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Builds and runs the crate checked out at `dir`, with `SOURCE_DATE_EPOCH` unset.
fn run(project: &Project, dir: &Path) -> String {
    let output = project
        .cargo_command(&["run", "--quiet"])
        .current_dir(dir)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn two_checkouts_of_one_commit_serve_the_same_dates_and_etags() {
    let project = Project::with_features("bindery_reproducible", &["gzip"], "");
    project.write("src/main.rs", MAIN);
    project.write(
        "assets/index.html",
        "<!doctype html><p>hello</p>\n".repeat(20),
    );
    project.write("assets/app.js", "export const answer = 42;\n".repeat(30));
    git(
        project.path(),
        &["init", "--quiet", "--initial-branch=main"],
    );
    git(project.path(), &["add", "."]);
    git(project.path(), &["commit", "--quiet", "-m", "site"]);

    let checkouts = tempfile::tempdir().expect("tempdir");
    let mut outputs = Vec::new();
    for (name, mtime) in [("first", 1_000_000_000), ("second", 1_800_000_000)] {
        let dir = checkouts.path().join(name);
        git(
            checkouts.path(),
            &[
                "clone",
                "--quiet",
                &project.path().display().to_string(),
                name,
            ],
        );
        for file in ["assets/index.html", "assets/app.js"] {
            let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime);
            std::fs::File::options()
                .write(true)
                .open(dir.join(file))
                .and_then(|handle| handle.set_modified(time))
                .expect("set the checkout's time");
        }
        outputs.push(run(&project, &dir));
    }
    assert_eq!(outputs[0], outputs[1], "the two checkouts agree");
    let lines: Vec<&str> = outputs[0].lines().collect();
    assert_eq!(lines.len(), 2, "{}", outputs[0]);
    for line in lines {
        assert!(
            line.ends_with(&format!(" {COMMITTED}")),
            "the commit's time: {line}"
        );
    }

    // A folder with no commit, in a crate with none: a clear error, not a checkout's time.
    let bare = Project::with_features("bindery_no_source_date", &["gzip"], "");
    bare.write("src/main.rs", MAIN);
    bare.write("assets/a.txt", "a");
    let output = bare
        .cargo_command(&["build", "--quiet"])
        .env_remove("SOURCE_DATE_EPOCH")
        .env(
            "GIT_CEILING_DIRECTORIES",
            bare.path().parent().expect("parent"),
        )
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("SOURCE_DATE_EPOCH is not set and neither"),
        "{stderr}"
    );
    let output = bare
        .cargo_command(&["build", "--quiet"])
        .env("SOURCE_DATE_EPOCH", "yesterday")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("SOURCE_DATE_EPOCH `yesterday` is not a whole number of seconds"),
        "{stderr}"
    );
}
