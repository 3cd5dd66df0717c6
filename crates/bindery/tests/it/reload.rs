//! Live reload as a user's crate gets it (feature `livereload`): a debug build's open page
//! reloads after an edit to its folder, and only dev mode's HTML carries the script; a release
//! build of the same crate carries none of it.

use std::process::Command;

use bindery_test_support::{Listening, raw_request};

use crate::project::{AXUM_ON_TOKIO, Project};

/// The crate's manifest: axum, and bindery's live reload.
fn manifest() -> String {
    format!("{AXUM_ON_TOKIO}\n[features]\ndefault = [\"bindery/livereload\"]\n")
}

const MAIN: &str = r#"
static SITE: bindery::Catalog = bindery::embed!("site");

#[tokio::main]
async fn main() {
    let app = axum::Router::new()
        .fallback_service(bindery::serve::ServeCatalog::new(&SITE))
        .layer(bindery::serve::LiveReload::new(&[&SITE]));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    println!("{}", listener.local_addr().expect("address"));
    axum::serve(listener, app).await.expect("serve");
}
"#;

/// The marker of the reload script's event stream.
const STREAM: &str = "_bindery/livereload";

fn project() -> Project {
    let project = Project::new("bindery_livereload", &manifest());
    project.write("src/main.rs", MAIN);
    project.write(
        "site/index.html",
        "<!doctype html><title>t</title><link rel=\"icon\" href=\"data:,\"><h1>before</h1>\n",
    );
    project.write("site/app.js", "console.log('app');\n");
    project
}

#[test]
fn an_open_page_reloads_after_an_edit_and_only_dev_html_gets_the_script() {
    if !bindery_test_support::slow_test(
        "bindery",
        "an_open_page_reloads_after_an_edit_and_only_dev_html_gets_the_script",
        "builds a crate twice and drives Chromium",
    ) {
        return;
    }
    let modules = bindery_test_support::workspace().join("examples/vite-app/node_modules");
    assert!(
        modules.join("playwright-core").is_dir(),
        "playwright-core is not installed: run `npm ci --prefix examples/vite-app` (`cargo xtask ci` does)"
    );
    let project = project();
    project.build(&[]);
    let server = Listening::start(&mut Command::new(project.binary()), "");
    let page = raw_request(server.address, "GET", "/index.html", &[]);
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains(STREAM),
        "dev HTML gets the script: {}",
        page.text()
    );
    let script = raw_request(server.address, "GET", "/app.js", &[]);
    assert_eq!(
        script.text(),
        "console.log('app');\n",
        "non-HTML answers are untouched"
    );

    std::os::unix::fs::symlink(&modules, project.path().join("node_modules")).expect("link");
    project.write("reload.mjs", include_str!("reload.mjs"));
    project.write(
        "chromium.mjs",
        include_str!("../../../../examples/vite-app/chromium.mjs"),
    );
    let edit = "<!doctype html><title>t</title><link rel=\"icon\" href=\"data:,\"><h1>after</h1>\n";
    let args: [std::ffi::OsString; 3] = [
        format!("http://{}/index.html", server.address).into(),
        project.path().join("site/index.html").into(),
        edit.into(),
    ];
    let seen = project
        .node_json("reload.mjs", args)
        .unwrap_or_else(|stderr| panic!("reload.mjs: {stderr}"));
    assert_eq!(seen["loads"], 2, "one reload after the edit: {seen}");
    assert_eq!(seen["heading"], "after", "{seen}");
    assert_eq!(seen["consoleErrors"], serde_json::json!([]), "{seen}");
    eprintln!(
        "live reload came {} ms after the edit",
        seen["reloadMillis"]
    );
    drop(server);

    project.build_release();
    let release = Listening::start(&mut Command::new(project.release_binary()), "");
    let page = raw_request(release.address, "GET", "/index.html", &[]);
    assert_eq!(page.status, 200);
    assert!(!page.text().contains(STREAM), "release: {}", page.text());
    let binary = std::fs::read(project.release_binary()).expect("release binary");
    assert!(
        !binary
            .windows(STREAM.len())
            .any(|window| window == STREAM.as_bytes()),
        "the release binary holds no reload code"
    );
}
