//! Dev mode, as a user's crate gets it: with the `dev` feature, a debug build's catalog reflects
//! its folder on disk now (through `get`, `file`, `iter`, `dir`, `restore` and the real HTTP
//! service), with the build's own rules, jailed to the folder; a release build of the same crate
//! embeds and holds no trace of the folder.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

use bindery_test_support::{Listening, RawResponse, raw_request};

use crate::project::{AXUM_ON_TOKIO, Project};

/// The crate's manifest: axum, and bindery's dev mode.
fn manifest() -> String {
    format!("{AXUM_ON_TOKIO}\n[features]\ndefault = [\"bindery/dev\", \"bindery/serve\"]\n")
}

/// `cli <path>...` prints what `get` returns for each path; `serve` serves the catalog and a few
/// routes that show the catalog API, and prints its address.
const MAIN: &str = r#"
use axum::{Router, routing::get};
use bindery::{DirEntry, serve::ServeCatalog};

static ASSETS: bindery::Catalog =
    bindery::embed!(
        "assets/site",
        exclude = ["**/*.map"],
        prefix = "static",
        dotfiles = [".well-known"],
        types = ["static/.well-known/apple-app-site-association=application/json"],
    );

fn list() -> String {
    ASSETS
        .iter()
        .map(|file| format!("{} {} {} {}\n", file.path(), file.len(), file.etag(), file.mime()))
        .collect()
}

fn dir(path: &str) -> String {
    ASSETS
        .dir(path)
        .map(|entry| match entry {
            DirEntry::File(file) => format!("{}\n", file.path()),
            DirEntry::Dir(path) => format!("{path}/\n"),
        })
        .collect()
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("serve") {
        println!("dev {}", ASSETS.is_dev());
        for path in &args {
            match ASSETS.get(path) {
                Some(bytes) => println!("{path} => {}", String::from_utf8_lossy(&bytes).trim_end()),
                None => println!("{path} => none"),
            }
        }
        return;
    }
    let service = ServeCatalog::builder(&ASSETS)
        .spa_fallback("static/index.html")
        .no_fallback_prefix("/api/")
        .build()
        .expect("a valid setup");
    let app = Router::new()
        .route("/api/list", get(|| async { list() }))
        .route("/api/dir/top", get(|| async { dir("static") }))
        .route("/api/dir/sub", get(|| async { dir("static/sub") }))
        .route(
            "/api/restore",
            get(|| async {
                let target = std::env::var("RESTORE_TO").expect("RESTORE_TO");
                ASSETS.restore(target).map_or_else(|error| error.to_string(), |()| "ok".into())
            }),
        )
        .fallback_service(service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    println!("{}", listener.local_addr().expect("address"));
    axum::serve(listener, app).await.expect("serve");
}
"#;

fn get(address: SocketAddr, target: &str) -> RawResponse {
    raw_request(address, "GET", target, &[])
}

/// The example's server, stopped when dropped.
fn start_server(binary: &Path, restore_to: &Path) -> Listening {
    Listening::start(
        Command::new(binary)
            .arg("serve")
            .env("RESTORE_TO", restore_to),
        "",
    )
}

fn run_cli(binary: &Path, paths: &[&str]) -> Vec<String> {
    let output = Command::new(binary).args(paths).output().expect("runs");
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

fn write_site(project: &Project) {
    project.write("assets/site/index.html", "<!doctype html><p>app</p>\n");
    project.write("assets/site/app.js", "console.log('v1');\n");
    project.write("assets/site/app.js.map", "{\"version\":3}");
    project.write("assets/site/sub/page.txt", "0123456789abcdefghij");
    project.write("assets/site/.env", "SECRET=1");
    project.write(
        "assets/site/.well-known/apple-app-site-association",
        "{\"applinks\":{}}",
    );
    project.write("assets/site/.git/config", "[core]");
    project.write("assets/secret.txt", "outside the folder");
    std::os::unix::fs::symlink(
        project.path().join("assets/secret.txt"),
        project.path().join("assets/site/escape.txt"),
    )
    .expect("symlink out");
    std::os::unix::fs::symlink(
        "sub/page.txt",
        project.path().join("assets/site/inside.txt"),
    )
    .expect("symlink in");
    std::os::unix::fs::symlink("app.js.map", project.path().join("assets/site/alias.txt"))
        .expect("symlink to an excluded file");
}

#[test]
fn dev_catalog_reflects_the_folder_now_with_the_build_rules_over_http_and_the_api() {
    let project = Project::new("bindery_dev_mode", &manifest());
    project.write("src/main.rs", MAIN);
    write_site(&project);
    project.build(&[]);
    let binary = project.binary();
    let restored = tempfile::tempdir().expect("tempdir");
    let server = start_server(&binary, restored.path());
    let address = server.address;
    let old_tag = served_as_built(address);
    added_after_the_build(&project, address);
    edited(&project, address, &old_tag);
    range_and_head(address);
    folders_and_deep_links(&project, address);
    deleted(&project, address);
    the_rules_and_the_jail(address);
    dir_and_restore(address, restored.path());
    drop(server);
    get_follows_the_rules(&binary);
}

/// Served as built: identity bytes with ETag, no-cache, no variants.
fn served_as_built(address: SocketAddr) -> String {
    let app = get(address, "/static/app.js");
    assert_eq!(app.status, 200);
    assert_eq!(app.text(), "console.log('v1');\n");
    assert_eq!(app.header("cache-control"), Some("no-cache"));
    assert_eq!(
        app.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(app.header("vary"), None);
    let old_tag = app.header("etag").expect("an etag").to_owned();
    // The build's `dotfiles` and `types`, read from disk: `.well-known` in, typed as the
    // build typed it; `.env` beside it stays out (`the_rules_and_the_jail`).
    let association = get(address, "/static/.well-known/apple-app-site-association");
    assert_eq!(association.status, 200);
    assert_eq!(association.text(), "{\"applinks\":{}}");
    assert_eq!(
        association.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let path = "/static/.well-known/apple-app-site-association";
    let etag = association.header("etag").expect("an etag").to_owned();
    for (method, headers, status) in [
        ("HEAD", vec![], 200),
        ("GET", vec![("range", "bytes=0-4")], 206),
    ] {
        let reply = raw_request(address, method, path, &headers);
        assert_eq!(reply.status, status, "{method} {headers:?}");
        assert_eq!(
            reply.header("content-type"),
            Some("application/json; charset=utf-8"),
            "{method} {headers:?}"
        );
    }
    let fresh = raw_request(address, "GET", path, &[("if-none-match", &etag)]);
    assert_eq!(fresh.status, 304);
    let listed = get(address, "/api/list").text();
    assert!(
        listed.contains(&format!("static/app.js 19 {old_tag} text/javascript")),
        "the ETag, length and mime are the build's: {listed}"
    );
    let revalidated = raw_request(
        address,
        "GET",
        "/static/app.js",
        &[("if-none-match", &old_tag)],
    );
    assert_eq!(revalidated.status, 304);
    old_tag
}

/// Added after the build: served and listed.
fn added_after_the_build(project: &Project, address: SocketAddr) {
    project.write("assets/site/added.css", "body { color: red }\n");
    let added = get(address, "/static/added.css");
    assert_eq!(
        (added.status, added.text().as_str()),
        (200, "body { color: red }\n")
    );
    assert_eq!(
        added.header("content-type"),
        Some("text/css; charset=utf-8")
    );
    assert!(
        get(address, "/api/list")
            .text()
            .contains("static/added.css 20 ")
    );
}

/// Edited: new bytes and a new ETag; the old tag no longer gives 304.
fn edited(project: &Project, address: SocketAddr, old_tag: &str) {
    project.write("assets/site/app.js", "console.log('version two');\n");
    let edited = raw_request(
        address,
        "GET",
        "/static/app.js",
        &[("if-none-match", old_tag)],
    );
    assert_eq!(edited.status, 200);
    assert_eq!(edited.text(), "console.log('version two');\n");
    let new_tag = edited.header("etag").expect("an etag").to_owned();
    assert_ne!(new_tag, old_tag);
    let listed = get(address, "/api/list").text();
    assert!(
        listed.contains(&format!("static/app.js 28 {new_tag} ")),
        "{listed}"
    );
    assert_eq!(
        raw_request(
            address,
            "GET",
            "/static/app.js",
            &[("if-none-match", &new_tag)]
        )
        .status,
        304
    );
}

/// Range and HEAD, like release.
fn range_and_head(address: SocketAddr) {
    let range = raw_request(
        address,
        "GET",
        "/static/sub/page.txt",
        &[("range", "bytes=5-9")],
    );
    assert_eq!(range.status, 206);
    assert_eq!(range.text(), "56789");
    assert_eq!(range.header("content-range"), Some("bytes 5-9/20"));
    let head = raw_request(address, "HEAD", "/static/sub/page.txt", &[]);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some("20"));
    assert!(head.body.is_empty());
}

/// Folders redirect, deep links of browser navigations fall back to the app.
fn folders_and_deep_links(project: &Project, address: SocketAddr) {
    let folder = get(address, "/static/sub");
    assert_eq!(folder.status, 404, "no index.html in sub/");
    project.write("assets/site/sub/index.html", "<p>sub</p>");
    let folder = get(address, "/static/sub");
    assert_eq!(folder.status, 307);
    assert_eq!(folder.header("location"), Some("/static/sub/"));
    assert_eq!(get(address, "/static/sub/").text(), "<p>sub</p>");
    let deep = raw_request(
        address,
        "GET",
        "/lookup/1.1.1.1",
        &[("accept", "text/html")],
    );
    assert_eq!(
        (deep.status, deep.text().as_str()),
        (200, "<!doctype html><p>app</p>\n")
    );
}

/// Deleted: 404, and gone from the listing.
fn deleted(project: &Project, address: SocketAddr) {
    project.remove("assets/site/added.css");
    assert_eq!(get(address, "/static/added.css").status, 404);
    assert!(!get(address, "/api/list").text().contains("added.css"));
}

/// The build's rules and the jail: excluded, hidden, a link out, escapes.
fn the_rules_and_the_jail(address: SocketAddr) {
    for target in [
        "/static/app.js.map",
        "/static/.env",
        "/static/.git/config",
        "/static/escape.txt",
        "/static/alias.txt",
        "/static/APP.JS.MAP",
        "/static/../secret.txt",
        "/static/%2e%2e/secret.txt",
        "/static/sub/..%2f..%2fsecret.txt",
        "/static/..%5csecret.txt",
        "/static/%00",
        "/secret.txt",
        "//etc/passwd",
    ] {
        let reply = get(address, target);
        assert!(
            [400, 404].contains(&reply.status),
            "{target}: {} {}",
            reply.status,
            reply.text()
        );
        assert!(!reply.text().contains("outside the folder"), "{target}");
        assert!(!reply.text().contains("SECRET"), "{target}");
        assert!(
            !reply.text().contains("\"version\":3"),
            "{target}: the excluded map"
        );
    }
    let listed = get(address, "/api/list").text();
    for absent in [
        "app.js.map",
        ".env",
        ".git",
        "escape.txt",
        "alias.txt",
        "secret",
    ] {
        assert!(!listed.contains(absent), "{absent} listed: {listed}");
    }
    assert!(
        listed.contains("static/inside.txt 20 "),
        "a link inside the folder is a file"
    );
}

/// `dir` and `restore` see the folder as it is now.
fn dir_and_restore(address: SocketAddr, restored: &Path) {
    assert_eq!(
        get(address, "/api/dir/top").text(),
        "static/.well-known/\nstatic/app.js\nstatic/index.html\nstatic/inside.txt\nstatic/sub/\n"
    );
    assert_eq!(
        get(address, "/api/dir/sub").text(),
        "static/sub/index.html\nstatic/sub/page.txt\n"
    );
    assert_eq!(get(address, "/api/restore").text(), "ok");
    let read = |path: &str| std::fs::read_to_string(restored.join(path)).ok();
    assert_eq!(
        read("static/app.js").as_deref(),
        Some("console.log('version two');\n")
    );
    assert_eq!(read("static/sub/index.html").as_deref(), Some("<p>sub</p>"));
    assert_eq!(read("static/app.js.map"), None);
    assert_eq!(read("static/escape.txt"), None);
}

/// `get` follows the same rules, and never reads outside the folder.
fn get_follows_the_rules(binary: &Path) {
    let paths = [
        "static/app.js",
        "/static/sub/page.txt",
        "static/app.js.map",
        "static/.env",
        "static/escape.txt",
        "static/../secret.txt",
        "static/sub/../../secret.txt",
        "static\\..\\secret.txt",
        "/etc/passwd",
        "app.js",
    ];
    let lines = run_cli(binary, &paths);
    assert_eq!(lines[0], "dev true");
    assert_eq!(lines[1], "static/app.js => console.log('version two');");
    assert_eq!(lines[2], "/static/sub/page.txt => 0123456789abcdefghij");
    for (line, path) in lines[3..].iter().zip(&paths[2..]) {
        assert_eq!(line, &format!("{path} => none"));
    }
}

#[test]
fn release_builds_embed_and_hold_no_trace_of_the_folder() {
    if !bindery_test_support::slow_test(
        "bindery",
        "release_builds_embed_and_hold_no_trace_of_the_folder",
        "a release build of a throwaway crate",
    ) {
        return;
    }
    let project = Project::new("bindery_dev_release", &manifest());
    project.write("src/main.rs", MAIN);
    write_site(&project);
    let output = project
        .cargo_command(&["build", "--release"])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let binary = project.target().join("release/bindery_dev_release");
    let bytes = std::fs::read(&binary).expect("the release binary");
    let folder = project.path().join("assets/site");
    let folder = folder.to_str().expect("a UTF-8 path");
    assert!(
        !bytes
            .windows(folder.len())
            .any(|window| window == folder.as_bytes()),
        "the release binary names {folder}"
    );
    assert!(
        !bytes.windows(8).any(|window| window == b"**/*.map"),
        "the release binary holds the dev rules"
    );

    project.write("assets/site/app.js", "edited after the build");
    project.write("assets/site/later.txt", "added after the build");
    let lines = run_cli(
        &binary,
        &[
            "static/app.js",
            "static/later.txt",
            "static/app.js.map",
            "static/.env",
            "static/inside.txt",
        ],
    );
    // The excluded map and the hidden file are left out exactly as in dev; a build follows the
    // link inside the folder as dev does.
    assert_eq!(
        lines,
        [
            "dev false",
            "static/app.js => console.log('v1');",
            "static/later.txt => none",
            "static/app.js.map => none",
            "static/.env => none",
            "static/inside.txt => 0123456789abcdefghij",
        ]
    );
}
