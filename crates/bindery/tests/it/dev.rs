//! Dev mode: with the `dev` feature, debug builds read the folder on disk, jailed to it; with
//! debug assertions off the same code reads the embedded bytes.

use crate::project::Project;

const MAIN: &str = r#"
static ASSETS: bindery::Catalog = bindery::embed!("assets/site");

fn main() {
    for path in std::env::args().skip(1) {
        match ASSETS.get(&path) {
            Some(bytes) => println!("{path} => {}", String::from_utf8_lossy(&bytes)),
            None => println!("{path} => none"),
        }
    }
}
"#;

fn run(paths: &[&str]) -> Vec<String> {
    let binary =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("projects/debug/bindery_dev_mode");
    let output = std::process::Command::new(binary)
        .args(paths)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn dev_mode_reads_from_disk_without_a_rebuild_and_never_outside_the_folder() {
    let project = Project::new(
        "bindery_dev_mode",
        "[features]\ndefault = [\"bindery/dev\"]\n",
    );
    project.write("src/main.rs", MAIN);
    project.write("assets/site/page.txt", "first");
    project.write("assets/site/.env", "hidden");
    project.write("assets/secret.txt", "outside the folder");
    std::os::unix::fs::symlink(
        project.path().join("assets/secret.txt"),
        project.path().join("assets/site/link.txt"),
    )
    .expect("symlink");
    project.build(&[]);

    project.write("assets/site/page.txt", "edited on disk");
    project.write("assets/site/added.txt", "added after the build");
    let escapes = [
        "../secret.txt",
        "/../secret.txt",
        "link.txt",
        ".env",
        "page.txt/..",
        "..\\secret.txt",
        "%2e%2e/secret.txt",
        "/etc/passwd",
        "//etc/passwd",
    ];
    let mut paths = vec!["page.txt", "added.txt"];
    paths.extend(escapes);
    let lines = run(&paths);
    assert_eq!(lines[0], "page.txt => edited on disk");
    assert_eq!(lines[1], "added.txt => added after the build");
    for (line, path) in lines[2..].iter().zip(escapes) {
        assert_eq!(line, &format!("{path} => none"));
    }

    // With debug assertions off (as in release), the embedded bytes are read, even with `dev`.
    let manifest = std::fs::read_to_string(project.path().join("Cargo.toml")).expect("manifest");
    project.write(
        "Cargo.toml",
        format!("{manifest}\n[profile.dev.package.bindery]\ndebug-assertions = false\n"),
    );
    project.build(&[]);
    project.write("assets/site/page.txt", "edited after the build");
    project.write("assets/site/later.txt", "added after the build");
    let lines = run(&["page.txt", "later.txt", "added.txt"]);
    assert_eq!(
        lines,
        [
            "page.txt => edited on disk",
            "later.txt => none",
            "added.txt => added after the build"
        ]
    );
}
