//! A catalog of several folders as a user's crate gets it: one sorted catalog, each folder with
//! its own prefix and rules; in dev mode each folder is read from disk now with its own rules,
//! and a release build embeds them all.

use crate::project::Project;

const MAIN: &str = r#"
static ASSETS: bindery::Catalog = bindery::embed!(
    "site",
    exclude = "**/*.map",
    folder("docs", prefix = "docs", include = "**/*.md", hidden = true),
    folder("later", prefix = "later", allow_missing = true)
);

fn main() {
    println!("dev {} prefix {:?}", ASSETS.is_dev(), ASSETS.prefix());
    for file in ASSETS.iter() {
        let bytes = ASSETS.get(file.path()).expect("listed files read");
        println!("{} {}", file.path(), String::from_utf8_lossy(&bytes));
    }
    for path in std::env::args().skip(1) {
        println!("get {path} {:?}", ASSETS.get(&path).map(|bytes| bytes.len()));
    }
}
"#;

fn write_folders(project: &Project) {
    project.write("site/index.html", "site index");
    project.write("site/app.js.map", "excluded");
    project.write("docs/guide.md", "guide");
    project.write("docs/.draft.md", "draft");
    project.write("docs/index.html", "not a doc");
    project.write("src/main.rs", MAIN);
}

#[test]
fn several_folders_in_one_catalog_read_the_disk_in_dev_mode_each_with_its_rules() {
    let project = Project::new(
        "bindery_folders_dev",
        "[features]\ndefault = [\"bindery/dev\"]\n",
    );
    write_folders(&project);
    project.build(&[]);
    assert_eq!(
        project.run(),
        "dev true prefix \"\"\n\
         docs/.draft.md draft\n\
         docs/guide.md guide\n\
         index.html site index\n",
    );

    // Dev mode: each folder as it is now, with its own rules; a folder missing at build time
    // and allowed to be is read once it exists.
    project.write("docs/new.md", "new");
    project.write("docs/new.txt", "not a doc");
    project.write("site/new.js", "new script");
    project.write("site/new.js.map", "excluded");
    project.write("later/late.txt", "late");
    project.remove("docs/guide.md");
    let now = project.run_with(&["docs/new.txt", "later/late.txt", "site/index.html"]);
    assert_eq!(
        now,
        "dev true prefix \"\"\n\
         docs/.draft.md draft\n\
         docs/new.md new\n\
         index.html site index\n\
         later/late.txt late\n\
         new.js new script\n\
         get docs/new.txt None\n\
         get later/late.txt Some(4)\n\
         get site/index.html None\n",
    );
}

#[test]
fn several_folders_in_one_catalog_embed_in_a_release_build() {
    if !bindery_test_support::slow_test(
        "bindery",
        "several_folders_in_one_catalog_embed_in_a_release_build",
        "a release build of a throwaway crate",
    ) {
        return;
    }
    let project = Project::new(
        "bindery_folders_release",
        "[features]\ndefault = [\"bindery/dev\"]\n",
    );
    write_folders(&project);
    project.write("docs/new.md", "new");
    project.write("site/new.js", "new script");
    project.write("later/late.txt", "late");
    project.remove("docs/guide.md");
    project.build_release();
    let output = std::process::Command::new(project.release_binary())
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "dev false prefix \"\"\n\
         docs/.draft.md draft\n\
         docs/new.md new\n\
         index.html site index\n\
         later/late.txt late\n\
         new.js new script\n",
    );
    // `allow_missing` gives an empty catalog in debug builds only: a release build of a catalog
    // whose folder is missing fails, saying so.
    project.remove("later/late.txt");
    std::fs::remove_dir(project.path().join("later")).expect("empty folder");
    project.write(
        "src/main.rs",
        format!("{MAIN}\n// rebuilt without `later/`\n"),
    );
    let refused = project
        .cargo_command(&["build", "--release"])
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "built without `later/`");
    assert!(
        stderr.contains("later` does not exist")
            && stderr.contains("`allow_missing` gives an empty catalog in debug builds only"),
        "{stderr}"
    );
}
