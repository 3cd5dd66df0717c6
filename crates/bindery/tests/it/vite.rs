//! Vite's stock vanilla template as Vite builds it (examples/vite-app, copied into a throwaway
//! crate): build.rs runs `vite build --manifest` into `$OUT_DIR/dist`,
//! `embed!("$OUT_DIR/dist", manifest = "vite")` embeds it with Vite's manifest, and a minijinja
//! page loads the entry with `vite_entry("index.html")` under a CSP the build computed, on axum
//! and on actix-web. Chromium checks it all. Needs `npm ci --prefix examples/vite-app` (vite
//! and playwright-core, pinned) and Debian's chromium; `cargo xtask ci` installs both.

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use bindery::serve::cache_control::{IMMUTABLE, NO_CACHE};
use bindery_test_support::{RawResponse, raw_request, workspace};

use crate::project::Project;

const MANIFEST: &str = r#"
[dependencies.actix-web]
version = "4"
default-features = false
features = ["macros"]

[dependencies.axum]
version = "0.8"
default-features = false
features = ["http1", "tokio"]

[dependencies.tokio]
version = "1"
features = ["macros", "rt-multi-thread", "net"]

[features]
default = ["bindery/serve", "bindery/minijinja", "bindery/actix", "bindery/csp"]
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
    let project = Project::new("vite-app", MANIFEST);
    for file in [
        "build.rs",
        "src/lib.rs",
        "src/main.rs",
        "src/bin/actix.rs",
        "templates/index.html",
        "frontend/index.html",
        "frontend/public/favicon.svg",
        "frontend/public/icons.svg",
        "frontend/src/main.js",
        "frontend/src/counter.js",
        "frontend/src/style.css",
        "frontend/src/assets/hero.png",
        "frontend/src/assets/javascript.svg",
        "frontend/src/assets/vite.svg",
        "browser.mjs",
        "package.json",
        "package-lock.json",
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

/// What Chromium saw loading the page (browser.mjs), with `extra` arguments.
fn browse(project: &Project, server: &Server, extra: &[&str]) -> serde_json::Value {
    let output = Command::new("node")
        .arg("browser.mjs")
        .arg(format!("http://{}/", server.address))
        .args(extra)
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

/// The response Chromium got for the first URL starting with `prefix`.
fn response<'a>(seen: &'a serde_json::Value, prefix: &str) -> &'a serde_json::Value {
    seen["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .find(|response| {
            response["url"]
                .as_str()
                .is_some_and(|url| url.starts_with(prefix))
        })
        .unwrap_or_else(|| panic!("{prefix} requested: {seen}"))
}

#[test]
fn vites_stock_template_is_served_with_its_manifest_integrity_and_csp_on_axum_and_actix() {
    if !bindery_test_support::slow_test(
        "bindery",
        "vites_stock_template_is_served_with_its_manifest_integrity_and_csp_on_axum_and_actix",
        "needs npm packages and Chromium",
    ) {
        return;
    }
    let project = project();
    let epoch = [("SOURCE_DATE_EPOCH", Path::new(EPOCH))];
    project.build(&epoch);
    let checked = project
        .cargo_command(&["test", "--lib", "--quiet"])
        .envs(epoch)
        .output()
        .expect("cargo test runs");
    assert!(
        checked.status.success(),
        "check_urls: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let mut style = String::new();
    for binary in [project.binary(), project.target().join("debug/actix")] {
        let server = Server::start(&binary);
        style = the_page_loads_the_entry_with_integrity(&server);
        hashed_files_are_immutable(&server);
        chromium_runs_it_and_refuses_what_it_must(&project, &server);
    }
    an_edit_gets_a_new_name_and_the_old_one_is_gone(&project, &epoch, &style);
}

/// The page: the import map lists the lazy chunk's integrity; the stylesheet and the module
/// script carry theirs; the `Link` header preloads them; the CSP allows the page's own inline
/// scripts by hash. Returns the stylesheet's URL.
fn the_page_loads_the_entry_with_integrity(server: &Server) -> String {
    let page = server.get("/");
    assert_eq!(page.status, 200);
    let html = page.text();
    let map_start = html
        .find(r#"<script type="importmap">"#)
        .expect("an import map");
    let map = &html[map_start..map_start + html[map_start..].find("</script>").expect("end")];
    assert!(
        map.contains(r#""/assets/counter-"#) && map.contains(r#"":"sha384-"#),
        "{map}"
    );
    let script = attribute(&html, r#"<script type="module""#, "src");
    let style = attribute(&html, "stylesheet", "href");
    assert!(
        script.starts_with("/assets/index-") && script.ends_with(".js"),
        "{script}"
    );
    assert!(
        style.starts_with("/assets/index-") && style.ends_with(".css"),
        "{style}"
    );
    assert!(attribute(&html, r#"<script type="module""#, "integrity").starts_with("sha384-"));
    let link = page.header("link").expect("a Link header");
    assert!(
        link.contains(&format!("<{style}>; rel=preload; as=style; crossorigin")),
        "{link}"
    );
    assert!(
        link.contains(&format!("<{script}>; rel=modulepreload; crossorigin")),
        "{link}"
    );
    let csp = page.header("content-security-policy").expect("a CSP");
    assert_eq!(
        csp.matches("'sha256-").count(),
        2,
        "the import map and the inline script: {csp}"
    );
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    style
}

/// Every file Vite named with its hash is immutable, under that name; the rest revalidate.
fn hashed_files_are_immutable(server: &Server) {
    let html = server.get("/").text();
    for url in [
        attribute(&html, r#"<script type="module""#, "src"),
        attribute(&html, "stylesheet", "href"),
    ] {
        assert_eq!(
            server.get(&url).header("cache-control"),
            Some(IMMUTABLE),
            "{url}"
        );
    }
    let favicon = server.get("/favicon.svg");
    assert_eq!(favicon.status, 200);
    assert_eq!(favicon.header("cache-control"), Some(NO_CACHE));
    // Vite's own index.html is left out: the rendered page is the only one.
    assert_eq!(server.get("/index.html").status, 404);
}

/// Chromium: everything loads with integrity checked and runs under the CSP, with no console
/// error; an injected script is refused; a lazy chunk altered in transit is refused by the
/// import map's integrity.
fn chromium_runs_it_and_refuses_what_it_must(project: &Project, server: &Server) {
    let seen = browse(project, server, &[]);
    for key in ["consoleErrors", "pageErrors", "violations"] {
        assert_eq!(seen[key], serde_json::json!([]), "{key}: {seen}");
    }
    assert_eq!(seen["counter"], true, "the lazy chunk ran: {seen}");
    assert_eq!(seen["counterText"], "Count is 1", "{seen}");
    assert_eq!(seen["heading"], "Get started", "{seen}");
    assert!(
        seen["heroWidth"].as_u64().is_some_and(|width| width > 0),
        "{seen}"
    );
    assert_eq!(
        seen["inlineRan"], true,
        "the page's inline script runs by hash: {seen}"
    );
    for prefix in ["/assets/index-", "/assets/counter-", "/assets/hero-"] {
        let response = response(&seen, prefix);
        assert_eq!(response["status"], 200, "{prefix}: {seen}");
        assert_eq!(response["cacheControl"], IMMUTABLE, "{prefix}: {seen}");
    }

    let injected = browse(project, server, &["--inject"]);
    assert_eq!(
        injected["injectedRan"], false,
        "an injected script is refused: {injected}"
    );
    assert_eq!(
        injected["violations"],
        serde_json::json!(["script-src-elem inline"]),
        "{injected}"
    );
    assert!(
        injected["consoleErrors"][0]
            .as_str()
            .is_some_and(|error| error.contains("violates the following Content Security Policy")),
        "{injected}"
    );
    assert_eq!(
        injected["counterText"], "Count is 1",
        "the page still runs: {injected}"
    );

    let tampered = browse(project, server, &["--tamper", "/assets/counter-"]);
    assert_eq!(
        tampered["counter"], false,
        "a tampered lazy chunk must not run: {tampered}"
    );
    assert_eq!(
        tampered["heading"], "Get started",
        "the entry still ran: {tampered}"
    );
    assert!(
        tampered["consoleErrors"]
            .as_array()
            .expect("errors")
            .iter()
            .any(|error| error.as_str().is_some_and(
                |error| error.contains("Failed to find a valid digest in the 'integrity'")
            )),
        "the integrity check refused it: {tampered}"
    );
}

/// An edit and a rebuild: Vite gives the stylesheet a new name; the old URL is gone.
fn an_edit_gets_a_new_name_and_the_old_one_is_gone(
    project: &Project,
    epoch: &[(&str, &Path)],
    style: &str,
) {
    let css = std::fs::read_to_string(project.path().join("frontend/src/style.css")).expect("css");
    project.write(
        "frontend/src/style.css",
        format!("{css}\n#app {{ outline: 1px solid; }}\n"),
    );
    project.build(epoch);
    let server = Server::start(&project.binary());
    let html = server.get("/").text();
    let new_style = attribute(&html, "stylesheet", "href");
    assert_ne!(new_style, style, "an edited stylesheet gets a new name");
    assert_eq!(server.get(style).status, 404);
    assert_eq!(
        server.get(&new_style).header("cache-control"),
        Some(IMMUTABLE)
    );
}
