//! A real Vite build embedded from `$OUT_DIR` (examples/vite-app, copied into a throwaway crate):
//! build.rs runs Vite into `$OUT_DIR/dist`, `embed!("$OUT_DIR/dist", fingerprint = true, …)`
//! embeds it, a minijinja template links it with `url()` and `integrity()`, and Chromium loads
//! the page. Needs `npm ci --prefix examples/vite-app` (vite and playwright-core, pinned) and
//! Debian's chromium; `cargo xtask ci` installs both.

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use bindery_test_support::{RawResponse, raw_request, workspace};

use crate::project::Project;

const MANIFEST: &str = r#"
[dependencies.axum]
version = "0.8"
default-features = false
features = ["http1", "tokio"]

[dependencies.tokio]
version = "1"
features = ["macros", "rt-multi-thread", "net"]

[features]
default = ["bindery/serve", "bindery/minijinja"]
"#;

/// The date every build of this test gives its files: `Last-Modified` must say it.
const EPOCH: &str = "1700000000";

fn example() -> PathBuf {
    workspace().join("examples/vite-app")
}

/// The example's sources in a new crate, its `node_modules` linked from the example.
fn project() -> Project {
    let modules = example().join("node_modules");
    assert!(
        modules.join("vite/bin/vite.js").is_file() && modules.join("playwright-core").is_dir(),
        "vite and playwright-core are not installed: run `npm ci --prefix examples/vite-app` \
         (`cargo xtask ci` does)"
    );
    let project = Project::new("bindery_vite_app", MANIFEST);
    for file in [
        "build.rs",
        "src/main.rs",
        "templates/index.html",
        "frontend/vite.config.mjs",
        "frontend/src/main.js",
        "frontend/src/main.css",
        "frontend/src/lazy.js",
        "frontend/src/logo.svg",
        "browser.mjs",
        "package.json",
    ] {
        let contents = std::fs::read(example().join(file)).expect("example file");
        project.write(file, contents);
    }
    std::os::unix::fs::symlink(&modules, project.path().join("node_modules")).expect("link");
    project
}

/// The server, stopped when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
}

impl Server {
    fn start(binary: &Path) -> Server {
        let mut child = Command::new(binary)
            .arg("127.0.0.1:0")
            .stdout(Stdio::piped())
            .spawn()
            .expect("server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("address line");
        let address = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|address| address.parse().ok())
            .unwrap_or_else(|| panic!("an address: {line}"));
        Server { child, address }
    }

    fn get(&self, target: &str) -> RawResponse {
        raw_request(self.address, "GET", target, &[])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of `attribute` on the tag that holds `marker` in `html`.
fn attribute(html: &str, marker: &str, attribute: &str) -> String {
    let tag_start = html
        .find(marker)
        .map(|at| html[..=at].rfind('<').unwrap_or(0));
    let tag = &html[tag_start.unwrap_or_else(|| panic!("{marker} in {html}"))..];
    let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
    let needle = format!("{attribute}=\"");
    let start = tag
        .find(&needle)
        .unwrap_or_else(|| panic!("{attribute} in {tag}"))
        + needle.len();
    tag[start..start + tag[start..].find('"').unwrap_or(0)].to_owned()
}

/// What Chromium saw loading the page (browser.mjs).
fn browse(project: &Project, server: &Server) -> serde_json::Value {
    let output = Command::new("node")
        .arg("browser.mjs")
        .arg(format!("http://{}/", server.address))
        .current_dir(project.path())
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "browser.mjs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("browser.mjs prints JSON")
}

fn assert_page_runs(seen: &serde_json::Value, message: &str, color: &str) {
    assert_eq!(
        seen["consoleErrors"],
        serde_json::json!([]),
        "no console error (SRI): {seen}"
    );
    assert_eq!(seen["pageErrors"], serde_json::json!([]), "{seen}");
    assert_eq!(seen["loaded"], true, "the dynamic import ran: {seen}");
    assert_eq!(seen["status"], message, "{seen}");
    assert_eq!(seen["color"], color, "the stylesheet applied: {seen}");
    assert_eq!(seen["imageWidth"], 16, "the image loaded: {seen}");
}

#[test]
fn a_vite_build_in_out_dir_is_served_fingerprinted_with_sri_to_chromium() {
    if !bindery_test_support::slow_test(
        "bindery",
        "a_vite_build_in_out_dir_is_served_fingerprinted_with_sri_to_chromium",
        "needs npm packages and Chromium",
    ) {
        return;
    }
    let project = project();
    let epoch = [("SOURCE_DATE_EPOCH", Path::new(EPOCH))];
    project.build(&epoch);
    let server = Server::start(&project.binary());
    let (script, style) = the_page_links_fingerprinted_names(&server);
    hashed_and_plain_names(&server, &script);
    chromium_checks_integrity(&project, &server, &[&script, &style]);
    drop(server);
    an_edit_gets_a_new_fingerprint(&project, &epoch, &style);
}

/// The page links bindery's fingerprinted names, with SRI strings of the bytes served: the
/// script's and the stylesheet's URLs.
fn the_page_links_fingerprinted_names(server: &Server) -> (String, String) {
    let page = server.get("/").text();
    let script = attribute(&page, "<script", "src");
    let style = attribute(&page, "stylesheet", "href");
    assert!(
        script.starts_with("/static/main.") && script.ends_with(".js"),
        "{script}"
    );
    assert_eq!(script.len(), "/static/main..js".len() + 12, "{script}");
    assert!(
        style.starts_with("/static/main.") && style.ends_with(".css"),
        "{style}"
    );
    assert!(attribute(&page, "<script", "integrity").starts_with("sha384-"));
    assert!(attribute(&page, "stylesheet", "integrity").starts_with("sha384-"));

    (script, style)
}

/// A fingerprinted name is immutable, dated by `SOURCE_DATE_EPOCH`; the plain name revalidates;
/// a wrong fingerprint finds nothing.
fn hashed_and_plain_names(server: &Server, script: &str) {
    let hashed = server.get(script);
    assert_eq!(hashed.status, 200);
    assert_eq!(
        hashed.header("cache-control"),
        Some(bindery::serve::cache_control::IMMUTABLE)
    );
    assert_eq!(
        hashed.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    // One date for every build of this source: SOURCE_DATE_EPOCH, not the files' times.
    let date = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(EPOCH.parse().expect("seconds")),
    );
    assert_eq!(hashed.header("last-modified"), Some(date.as_str()));
    let plain = server.get("/static/main.js");
    assert_eq!(plain.status, 200);
    assert_eq!(
        plain.header("cache-control"),
        Some("no-cache"),
        "the plain name revalidates"
    );
    assert_eq!(plain.header("etag"), hashed.header("etag"));
    let wrong = server.get(&script.replace(&script[13..25], "000000000000"));
    assert_eq!(
        wrong.status, 404,
        "a fingerprint that is not the file's finds nothing"
    );
}

/// Chromium: the module and the stylesheet pass their SRI checks, the dynamic import runs.
fn chromium_checks_integrity(project: &Project, server: &Server, urls: &[&str]) {
    let seen = browse(project, server);
    assert_page_runs(&seen, "lazy chunk v1", "rgb(0, 128, 0)");
    let responses = seen["responses"].as_array().expect("responses");
    for url in urls {
        let response = responses
            .iter()
            .find(|response| response["url"] == *url)
            .unwrap_or_else(|| panic!("{url} requested: {seen}"));
        assert_eq!(response["status"], 200, "{seen}");
        assert_eq!(
            response["cacheControl"],
            bindery::serve::cache_control::IMMUTABLE,
            "{seen}"
        );
    }
}

/// An edit and a rebuild: new content under a new fingerprint; the old URL is gone.
fn an_edit_gets_a_new_fingerprint(project: &Project, epoch: &[(&str, &Path)], style: &str) {
    project.write(
        "frontend/src/main.css",
        "#status {\n  color: rgb(0, 0, 255);\n}\n",
    );
    project.write(
        "frontend/src/lazy.js",
        "export const message = \"lazy chunk v2\";\n",
    );
    project.build(epoch);
    let server = Server::start(&project.binary());
    let page = server.get("/").text();
    let new_style = attribute(&page, "stylesheet", "href");
    assert_ne!(
        new_style, style,
        "an edited stylesheet gets a new fingerprint"
    );
    assert_eq!(server.get(style).status, 404);
    assert_eq!(
        server.get(&new_style).header("cache-control"),
        Some(bindery::serve::cache_control::IMMUTABLE)
    );
    let seen = browse(project, &server);
    assert_page_runs(&seen, "lazy chunk v2", "rgb(0, 0, 255)");
}
