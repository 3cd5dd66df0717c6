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
use bindery_test_support::{Listening, RawResponse, raw_request, workspace};

use crate::project::{AXUM_ON_TOKIO, Project};

/// What the example depends on besides axum on tokio and bindery.
const MANIFEST: &str = r#"
[dependencies.actix-web]
version = "4"
default-features = false
features = ["macros"]

[dependencies.http]
version = "1"

"#;

/// The manifest's dependencies with bindery's features as the example asks for them (its
/// Cargo.toml is the one list: a feature added there reaches these crates too).
fn manifest() -> String {
    let example = std::fs::read_to_string(example().join("Cargo.toml")).expect("Cargo.toml");
    let features = example
        .lines()
        .find(|line| line.starts_with("bindery = "))
        .and_then(|line| line.split("features = [").nth(1))
        .and_then(|rest| rest.split(']').next())
        .expect("the example's bindery features");
    let features: Vec<String> = features
        .split(',')
        .map(|feature| format!("\"bindery/{}\"", feature.trim().trim_matches('"')))
        .collect();
    // Its `dev` feature (bindery's dev mode), as the example declares it.
    let dev = example
        .lines()
        .find(|line| line.starts_with("dev = "))
        .expect("the example's dev feature");
    format!(
        "{AXUM_ON_TOKIO}{MANIFEST}\n[build-dependencies]\nbindery-codegen = {{ path = {:?}, default-features = false, features = [\"frontend\"] }}\n\n\
         [features]\ndefault = [{}]\n{dev}\n",
        crate::project::crate_path("bindery-codegen"),
        features.join(", ")
    )
}

/// The date every build of this test gives its files: `Last-Modified` must say it.
pub(crate) const EPOCH: &str = "1700000000";

pub(crate) fn example() -> PathBuf {
    workspace().join("examples/vite-app")
}

/// The example's sources in a new crate, its `node_modules` linked from the example.
fn project() -> Project {
    project_named("vite-app", "", &[])
}

/// [`project`] as the crate `name` (`extra` appended to its manifest), without the files
/// `left_out`.
pub(crate) fn project_named(name: &str, extra: &str, left_out: &[&str]) -> Project {
    let modules = example().join("node_modules");
    assert!(
        modules.join("vite/bin/vite.js").is_file() && modules.join("playwright-core").is_dir(),
        "vite and playwright-core are not installed: run `npm ci --prefix examples/vite-app` \
         (`cargo xtask ci` does)"
    );
    let project = Project::new(name, &format!("{}{extra}", manifest()));
    for file in CRATE.into_iter().chain(VANILLA) {
        if left_out.contains(&file) {
            continue;
        }
        let contents = std::fs::read(example().join(file)).expect("example file");
        project.write(file, contents);
    }
    std::os::unix::fs::symlink(&modules, project.path().join("node_modules")).expect("link");
    project
}

/// The example's files but its front end.
const CRATE: [&str; 10] = [
    "build.rs",
    "src/lib.rs",
    "src/main.rs",
    "src/bin/actix.rs",
    "templates/index.html",
    "browser.mjs",
    "chromium.mjs",
    "deploy.mjs",
    "package.json",
    "package-lock.json",
];

/// Vite's vanilla template, the example's front end (the React crate leaves it out).
const VANILLA: [&str; 10] = [
    "frontend/vite.config.js",
    "frontend/index.html",
    "frontend/public/favicon.svg",
    "frontend/public/icons.svg",
    "frontend/src/main.js",
    "frontend/src/counter.js",
    "frontend/src/style.css",
    "frontend/src/assets/hero.png",
    "frontend/src/assets/javascript.svg",
    "frontend/src/assets/vite.svg",
];

/// The example's server, stopped when dropped.
pub(crate) struct Server(pub(crate) Listening);

impl std::ops::Deref for Server {
    type Target = Listening;

    fn deref(&self) -> &Listening {
        &self.0
    }
}

impl Server {
    fn start(binary: &Path) -> Server {
        Server::start_at(binary, "127.0.0.1:0")
    }

    fn start_at(binary: &Path, address: &str) -> Server {
        Server(Listening::start(
            Command::new(binary).arg(address),
            "listening on http://",
        ))
    }

    fn get(&self, target: &str) -> RawResponse {
        raw_request(self.address, "GET", target, &[])
    }

    /// `target` as a browser navigates to it (`Accept: text/html`).
    pub(crate) fn page(&self, target: &str) -> RawResponse {
        raw_request(
            self.address,
            "GET",
            target,
            &[("accept", "text/html,application/xhtml+xml,*/*;q=0.8")],
        )
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
    browse_url(project, &format!("http://{}/", server.address), extra)
}

/// What Chromium saw loading `url` (browser.mjs), with `extra` arguments.
fn browse_url(project: &Project, url: &str, extra: &[&str]) -> serde_json::Value {
    let args = std::iter::once(url).chain(extra.iter().copied());
    project
        .node_json("browser.mjs", args)
        .unwrap_or_else(|stderr| panic!("browser.mjs failed: {stderr}"))
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
    let page = server.page("/");
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
    let html = server.page("/").text();
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

/// What Vite's templates show, as Chromium saw it: no console or page error and no CSP
/// violation, the lazily loaded counter ran and was clicked, the heading and the hero image.
fn the_template_ran(seen: &serde_json::Value) {
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
}

/// Chromium: everything loads with integrity checked and runs under the CSP, with no console
/// error; an injected script is refused; a lazy chunk altered in transit is refused by the
/// import map's integrity.
fn chromium_runs_it_and_refuses_what_it_must(project: &Project, server: &Server) {
    let seen = browse(project, server, &[]);
    the_template_ran(&seen);
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
    let html = server.page("/").text();
    let new_style = attribute(&html, "stylesheet", "href");
    assert_ne!(new_style, style, "an edited stylesheet gets a new name");
    assert_eq!(server.get(style).status, 404);
    assert_eq!(
        server.get(&new_style).header("cache-control"),
        Some(IMMUTABLE)
    );
}

/// A module of many small functions, the bulk of the entry bundle (over 100 KB); `describe`,
/// one function, says `release`.
fn catalog_module(release: u32) -> String {
    let mut text = String::new();
    for index in 0..1500 {
        text.push_str(&format!(
            "export function entry{index}(value) {{ return {{ id: {index}, label: `entry {index}`, value: value * {index} }}; }}\n"
        ));
    }
    // Every function reachable, so that the bundler keeps them all.
    let all: Vec<String> = (0..1500).map(|index| format!("entry{index}")).collect();
    text.push_str(&format!("const entries = [{}];\n", all.join(", ")));
    text.push_str(&format!(
        "export function describe() {{ return 'release {release}: ' + entries[{release}](1).label + ' of ' + entries.length; }}\n"
    ));
    text
}

/// The example's front end at `release`: the entry imports the catalog module and exposes a
/// lazily imported chunk (`window.loadLater`) whose text says the release.
fn write_release(project: &Project, main: &str, release: u32) {
    project.write("frontend/src/catalog.js", catalog_module(release));
    project.write(
        "frontend/src/later.js",
        format!("export const later = () => 'later, release {release}';\n"),
    );
    project.write(
        "frontend/src/main.js",
        format!(
            "{main}\nimport {{ describe }} from './catalog.js'\n\
             document.documentElement.dataset.release = describe()\n\
             window.loadLater = () => import('./later.js').then(({{ later }}) => later())\n"
        ),
    );
}

/// Saves the front end as it is now as the next release in `releases/`, from a Vite build
/// made with the build script's arguments (Vite's output depends only on its input).
fn save_release(project: &Project) -> bindery_codegen::release::Saved {
    let dist = project.path().join("release-dist");
    let built = Command::new("node")
        .arg("node_modules/vite/bin/vite.js")
        .args([
            "build",
            "frontend",
            "--manifest",
            "--emptyOutDir",
            "--logLevel",
            "warn",
            "--base=/",
        ])
        .arg("--outDir")
        .arg(&dist)
        .current_dir(project.path())
        .status()
        .expect("node runs");
    assert!(built.success(), "vite build failed");
    let manifest = bindery_codegen::Options::new(&dist)
        .manifest(Some(bindery_codegen::Bundler::Vite))
        .build()
        .expect("the release builds");
    bindery_codegen::release::save(&manifest, &project.path().join("releases"), 3)
        .expect("the release is saved")
}

/// The response for the entry bundle (`/assets/index-*.js`) in a phase of deploy.mjs.
fn entry_bundle(phase: &serde_json::Value) -> &serde_json::Value {
    phase["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .find(|seen| {
            seen["url"]
                .as_str()
                .is_some_and(|url| url.starts_with("/assets/index-") && url.ends_with(".js"))
        })
        .unwrap_or_else(|| panic!("the entry bundle was requested: {phase}"))
}

/// One JSON line of deploy.mjs.
fn next_phase(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> serde_json::Value {
    let line = lines.next().expect("a phase").expect("a line");
    serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line}"))
}

#[test]
fn a_deploy_keeps_open_tabs_working_and_sends_the_changed_bundle_as_a_delta() {
    if !bindery_test_support::slow_test(
        "bindery",
        "a_deploy_keeps_open_tabs_working_and_sends_the_changed_bundle_as_a_delta",
        "needs npm packages and Chromium",
    ) {
        return;
    }
    // Its own crate name (and no second binary): the other Vite test's binaries stay its own.
    let project = project_named(
        "vite-deploy",
        "\n[lib]\nname = \"vite_app\"\npath = \"src/lib.rs\"\n",
        &["src/bin/actix.rs"],
    );
    let first = build_two_releases(&project);
    let phases = browse_through_the_deploy(&project, &first);
    let [loaded, open_tab, reloaded] = &phases;
    for phase in &phases {
        for key in ["consoleErrors", "pageErrors"] {
            assert_eq!(phase[key], serde_json::json!([]), "{key}: {phase}");
        }
    }
    assert_eq!(loaded["release"], "release 1: entry 1 of 1500", "{loaded}");
    assert!(
        entry_bundle(loaded)["useAsDictionary"]
            .as_str()
            .is_some_and(|value| value.contains("/assets/index-*.js")),
        "{loaded}"
    );
    assert_eq!(
        open_tab["later"], "later, release 1",
        "the open tab's lazy chunk: {open_tab}"
    );
    assert_eq!(
        response(open_tab, "/assets/later-")["status"],
        200,
        "{open_tab}"
    );
    assert_eq!(
        reloaded["release"], "release 2: entry 2 of 1500",
        "{reloaded}"
    );
    assert_eq!(reloaded["later"], "later, release 2", "{reloaded}");
    let bundle = entry_bundle(reloaded);
    the_changed_bundle_came_as_a_small_delta(&project, bundle);
    let mut urls: Vec<String> = phases
        .iter()
        .flat_map(|phase| phase["responses"].as_array().expect("responses"))
        .filter_map(|seen| seen["url"].as_str().map(str::to_owned))
        .collect();
    urls.sort();
    urls.dedup();
    let dictionary = bundle["availableDictionary"]
        .as_str()
        .expect("a dictionary");
    a_rolling_deploy_through_nginx_fails_no_request(&first, &project.binary(), &urls, dictionary);
}

/// Builds release 1 (its binary kept aside, its hashed files saved as CI saves them after a
/// build), then release 2, which keeps release 1. Returns release 1's binary.
fn build_two_releases(project: &Project) -> PathBuf {
    let main = std::fs::read_to_string(example().join("frontend/src/main.js")).expect("main.js");
    let epoch = [("SOURCE_DATE_EPOCH", Path::new(EPOCH))];
    write_release(project, &main, 1);
    project.build(&epoch);
    let first = project.path().join("release-1-server");
    std::fs::copy(project.binary(), &first).expect("copy");
    assert_eq!(save_release(project).number, 1);
    write_release(project, &main, 2);
    project.build(&epoch);
    first
}

/// deploy.mjs with a persistent profile: release 1 loaded, release 2 deployed on the same
/// address, the open tab's lazy import, a reload. The three phases it printed.
fn browse_through_the_deploy(project: &Project, first: &Path) -> [serde_json::Value; 3] {
    let address = format!("127.0.0.1:{}", bindery_test_support::free_port());
    let profile = tempfile::tempdir().expect("profile");
    let mut browser = Command::new("node")
        .arg("deploy.mjs")
        .arg(format!("http://{address}/"))
        .arg(profile.path())
        .current_dir(project.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut lines = BufReader::new(browser.stdout.take().expect("stdout")).lines();
    let old = Server::start_at(first, &address);
    let loaded = next_phase(&mut lines);
    drop(old);
    let new = Server::start_at(&project.binary(), &address);
    std::io::Write::write_all(browser.stdin.as_mut().expect("stdin"), b"deployed\n")
        .expect("go on");
    let open_tab = next_phase(&mut lines);
    let reloaded = next_phase(&mut lines);
    assert!(browser.wait().expect("node ends").success());
    drop(new);
    [loaded, open_tab, reloaded]
}

/// The reload got the changed bundle (over 100 KB) as `dcz`, at most a tenth of its br bytes.
fn the_changed_bundle_came_as_a_small_delta(project: &Project, bundle: &serde_json::Value) {
    assert_eq!(
        bundle["encoding"], "dcz",
        "the changed bundle as a delta: {bundle}"
    );
    assert!(
        bundle["availableDictionary"]
            .as_str()
            .is_some_and(|value| value.starts_with(':')),
        "{bundle}"
    );
    let server = Server::start(&project.binary());
    let url = bundle["url"].as_str().expect("url");
    let br = raw_request(server.address, "GET", url, &[("accept-encoding", "br")]);
    assert_eq!(br.header("content-encoding"), Some("br"));
    let identity = raw_request(server.address, "GET", url, &[]);
    let dcz = bundle["bodyBytes"].as_u64().expect("bytes");
    println!(
        "the changed bundle: {} bytes, br {}, dcz {dcz} ({:.3}x br)",
        identity.body.len(),
        br.body.len(),
        dcz as f64 / br.body.len() as f64
    );
    assert!(
        identity.body.len() > 100_000,
        "a bundle over 100 KB: {}",
        identity.body.len()
    );
    assert!(
        dcz * 10 <= br.body.len() as u64,
        "dcz {dcz} vs br {}",
        br.body.len()
    );
}

/// nginx (Debian's) in front of `replicas`, round robin, with `proxy_cache`, retrying a 404 on
/// the next replica as docs/deploying.md says a rolling deploy needs; stopped when dropped.
struct Nginx {
    child: Child,
    address: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Nginx {
    fn start(replicas: &[SocketAddr]) -> Nginx {
        let dir = tempfile::tempdir().expect("nginx folder");
        let port = bindery_test_support::free_port();
        let servers: String = replicas
            .iter()
            .map(|replica| format!("server {replica}; "))
            .collect();
        let root = dir.path().display();
        let config = format!(
            "worker_processes 1; daemon off; pid {root}/nginx.pid; error_log {root}/error.log warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{ access_log off; client_body_temp_path {root}/body; proxy_temp_path {root}/proxy;\n\
               fastcgi_temp_path {root}/fastcgi; uwsgi_temp_path {root}/uwsgi; scgi_temp_path {root}/scgi;\n\
               proxy_cache_path {root}/cache keys_zone=assets:1m;\n\
               upstream replicas {{ {servers}}}\n\
               server {{ listen 127.0.0.1:{port};\n\
                 location / {{ proxy_pass http://replicas; proxy_http_version 1.1;\n\
                   proxy_cache assets;\n\
                   proxy_next_upstream error timeout http_404; proxy_next_upstream_tries 2; }} }} }}\n"
        );
        std::fs::write(dir.path().join("nginx.conf"), config).expect("config");
        let child = Command::new("/usr/sbin/nginx")
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .arg("-p")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx is needed: `apt-get install nginx` (cargo xtask ci does)");
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(address).is_err() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "nginx did not listen: {}",
                std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Nginx {
            child,
            address,
            _dir: dir,
        }
    }
}

impl Drop for Nginx {
    /// A fast shutdown (`SIGTERM` to the master), which ends its workers too: a `SIGKILL`
    /// would leave them running.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// A rolling deploy: one replica still on release 1, one on release 2, behind a caching nginx.
/// Every URL a page of either release asks for answers 200 with the right bytes, many times
/// and in every encoding (the cache keeps the representations apart by `Vary`).
fn a_rolling_deploy_through_nginx_fails_no_request(
    first: &Path,
    second: &Path,
    urls: &[String],
    dictionary: &str,
) {
    let old = Server::start(first);
    let new = Server::start(second);
    let nginx = Nginx::start(&[old.address, new.address]);
    let asks: [&[(&str, &str)]; 3] = [
        &[],
        &[("accept-encoding", "gzip, br, zstd")],
        &[
            ("accept-encoding", "gzip, br, zstd, dcz"),
            ("available-dictionary", dictionary),
        ],
    ];
    let mut failed = Vec::new();
    let mut sent = 0;
    for round in 0..4 {
        for url in urls {
            for headers in asks {
                let through = raw_request(nginx.address, "GET", url, headers);
                let direct = raw_request(new.address, "GET", url, headers);
                sent += 1;
                let same = through.status == 200
                    && through.header("content-encoding") == direct.header("content-encoding")
                    && (url == "/" || through.body == direct.body);
                if !same {
                    failed.push(format!(
                        "round {round} {url} {headers:?}: {}",
                        through.status
                    ));
                }
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {sent} failed: {failed:#?}",
        failed.len()
    );
    println!("rolling deploy through nginx: {sent} requests, 0 failed");
}

/// The prefix the sub-path crates are mounted under: two levels, as a user's app often is.
pub(crate) const PREFIX: &str = "/app/v2/";

/// Another of Vite's templates in the example's place.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Template {
    /// react-ts (`examples/vite-app/react`), its `public/` links prefixed with `BASE_URL` in TSX.
    React,
    /// vue-ts (`examples/vite-app/vue`), its `public/` links left as the template writes them.
    Vue,
}

impl Template {
    fn folder(self) -> &'static str {
        match self {
            Template::React => "react",
            Template::Vue => "vue",
        }
    }

    /// Its files, as `npm create vite` writes them (the counter made a lazy component).
    fn files(self) -> &'static [&'static str] {
        match self {
            Template::React => &[
                "index.html",
                "vite.config.ts",
                "public/favicon.svg",
                "public/icons.svg",
                "src/main.tsx",
                "src/App.tsx",
                "src/Counter.tsx",
                "src/App.css",
                "src/index.css",
                "src/assets/hero.png",
                "src/assets/react.svg",
                "src/assets/vite.svg",
            ],
            Template::Vue => &[
                "index.html",
                "vite.config.ts",
                "public/favicon.svg",
                "public/icons.svg",
                "src/main.ts",
                "src/App.vue",
                "src/style.css",
                "src/components/HelloWorld.vue",
                "src/components/Counter.vue",
                "src/assets/hero.png",
                "src/assets/vite.svg",
                "src/assets/vue.svg",
            ],
        }
    }

    /// The element the template renders into.
    fn mount(self) -> &'static str {
        match self {
            Template::React => r#"<div id="root">"#,
            Template::Vue => r#"<div id="app">"#,
        }
    }
}

/// `template` in `frontend/`, mounted at [`PREFIX`], as a user who follows docs/pipelines.md's
/// "Another template, under a sub-path" would set it up.
pub(crate) fn sub_path_project(template: Template, name: &str) -> Project {
    let mut left_out = VANILLA.to_vec();
    left_out.push("src/bin/actix.rs");
    // Its own package `name` (its own `OUT_DIR`), the library named as the example's sources
    // expect.
    let project = project_named(name, "[lib]\nname = \"vite_app\"\n", &left_out);
    for file in template.files() {
        let source = example().join(template.folder()).join(file);
        let contents = std::fs::read(&source).expect("template file");
        project.write(&format!("frontend/{file}"), contents);
    }
    // The lines the docs say to change: where the front end is mounted, and the element the
    // template renders into.
    let build = std::fs::read_to_string(example().join("build.rs")).expect("build.rs");
    let mounted = build.replace(
        r#"const BASE: &str = "/";"#,
        &format!("const BASE: &str = {PREFIX:?};"),
    );
    assert_ne!(build, mounted, "build.rs sets BASE in one line");
    project.write("build.rs", mounted);
    let page = std::fs::read_to_string(example().join("templates/index.html")).expect("page");
    let mounted = page.replace(r#"<div id="app">"#, template.mount());
    project.write("templates/index.html", mounted);
    project
}

/// The rendered page, at the mount point and at a deep link: the same bytes with the same
/// headers (the import map's and the inline script's hashes in the CSP, `Link`, `no-cache`,
/// `nosniff`), the deep link's varying with `Accept`.
fn every_route_gets_the_rendered_page(server: &Server) {
    let root = server.page(PREFIX);
    let deep = server.page(&format!("{PREFIX}some/route"));
    for (page, what) in [(&root, "the mount point"), (&deep, "a deep link")] {
        assert_eq!(page.status, 200, "{what}");
        let html = page.text();
        assert!(
            html.contains(r#"<script type="importmap">"#),
            "{what}: {html}"
        );
        let csp = page.header("content-security-policy").expect("a CSP");
        assert_eq!(csp.matches("'sha256-").count(), 2, "{what}: {csp}");
        assert!(
            page.header("link")
                .is_some_and(|link| link.contains("rel=modulepreload"))
        );
        assert_eq!(page.header("cache-control"), Some(NO_CACHE), "{what}");
        assert_eq!(
            page.header("x-content-type-options"),
            Some("nosniff"),
            "{what}"
        );
    }
    assert_eq!(root.body, deep.body, "one page for every route");
    assert_eq!(deep.header("vary"), Some("accept"));
    // A missing asset is a 404, for a navigation too: never the app with 200.
    let missing = server.page(&format!("{PREFIX}assets/missing.js"));
    assert_eq!(missing.status, 404);
    // Nothing of the front end is answered outside its mount point.
    assert_eq!(server.get("/icons.svg").status, 404);
}

/// Chromium at `path`: the template ran with no console error and no CSP violation, every
/// request answered (the sprite of `public/` included, under the prefix), the hashed files
/// immutable; the lazy chunk altered in transit is refused by the import map's integrity.
fn chromium_at(project: &Project, server: &Server, path: &str) {
    let url = format!("http://{}{path}", server.address);
    let seen = browse_url(project, &url, &[]);
    the_template_ran(&seen);
    for response in seen["responses"].as_array().expect("responses") {
        assert!(
            response["status"]
                .as_u64()
                .is_some_and(|status| status < 400),
            "{path}: {response}: {seen}"
        );
    }
    assert_eq!(
        response(&seen, &format!("{PREFIX}icons.svg"))["status"],
        200,
        "{seen}"
    );
    for chunk in ["assets/index-", "assets/Counter-"] {
        let response = response(&seen, &format!("{PREFIX}{chunk}"));
        assert_eq!(response["status"], 200, "{chunk}: {seen}");
        assert_eq!(response["cacheControl"], IMMUTABLE, "{chunk}: {seen}");
    }
    let tampered = browse_url(
        project,
        &url,
        &["--tamper", &format!("{PREFIX}assets/Counter-")],
    );
    assert_eq!(
        tampered["counter"], false,
        "{path}: a tampered lazy chunk ran: {tampered}"
    );
    // The chunk, and only the chunk, was refused: the entry loaded and ran (without an error
    // boundary React unmounts the app when a lazy chunk fails, so the heading is not asked).
    let refused: Vec<&str> = tampered["consoleErrors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|error| error.as_str())
        .filter(|error| error.contains("Failed to find a valid digest in the 'integrity'"))
        .collect();
    assert!(
        !refused.is_empty()
            && refused
                .iter()
                .all(|error| error.contains(&format!("{PREFIX}assets/Counter-"))),
        "{path}: the integrity check refused the chunk alone: {tampered}"
    );
    assert!(
        tampered["pageErrors"]
            .as_array()
            .expect("page errors")
            .iter()
            .all(|error| error
                .as_str()
                .is_some_and(|error| error.contains("dynamically imported module"))),
        "{path}: the entry ran; only the chunk's import failed: {tampered}"
    );
    assert_eq!(tampered["inlineRan"], true, "{tampered}");
}

#[test]
fn vites_react_and_vue_templates_under_a_two_level_sub_path_get_the_verified_page_on_every_route() {
    if !bindery_test_support::slow_test(
        "bindery",
        "vites_react_and_vue_templates_under_a_two_level_sub_path_get_the_verified_page_on_every_route",
        "needs npm packages and Chromium",
    ) {
        return;
    }
    for template in [Template::React, Template::Vue] {
        let project = sub_path_project(template, &format!("vite-{}", template.folder()));
        project.build(&[("SOURCE_DATE_EPOCH", Path::new(EPOCH))]);
        let server = Server::start(&project.binary());
        every_route_gets_the_rendered_page(&server);
        for path in [PREFIX.to_owned(), format!("{PREFIX}some/route")] {
            chromium_at(&project, &server, &path);
        }
    }
}

/// `cargo build -v` of the project: whether it succeeded, and its stderr.
fn verbose_build(project: &Project) -> (bool, String) {
    let output = project
        .cargo_command(&["build", "-v"])
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .output()
        .expect("cargo runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Whether cargo ran the package's build script in that build.
fn ran_build_script(stderr: &str) -> bool {
    stderr
        .lines()
        .any(|line| line.contains("Running `") && line.contains("build-script-build"))
}

/// Moves a file's modification time to now, as an edit would.
fn touch(path: &Path) {
    std::fs::File::options()
        .append(true)
        .open(path)
        .and_then(|file| file.set_modified(std::time::SystemTime::now()))
        .unwrap_or_else(|error| panic!("touch {}: {error}", path.display()));
}

/// The example's `build.rs` (`bindery_codegen::Frontend`) reruns for the front end's sources
/// only: nothing changed, or a file of `node_modules` or of its own output touched, leaves the
/// crate `Fresh`; an edited module reruns it; without `node_modules` the build fails naming
/// `npm ci` and the folder to run it in.
#[test]
fn the_build_script_reruns_for_the_front_ends_sources_only() {
    if !bindery_test_support::slow_test(
        "bindery",
        "the_build_script_reruns_for_the_front_ends_sources_only",
        "needs npm packages and runs Vite",
    ) {
        return;
    }
    let build = std::fs::read_to_string(example().join("build.rs")).expect("build.rs");
    assert!(build.lines().count() <= 10, "build.rs in ten lines");
    let project = project_named("vite-rerun", "[lib]\nname = \"vite_app\"\n", &[]);
    project.build(&[("SOURCE_DATE_EPOCH", Path::new(EPOCH))]);
    let (built, stderr) = verbose_build(&project);
    assert!(built && !ran_build_script(&stderr), "{stderr}");
    assert!(stderr.contains("Fresh vite-rerun"), "{stderr}");

    touch(&project.path().join("node_modules/vite/package.json"));
    let out_dirs: Vec<PathBuf> = std::fs::read_dir(project.target().join("debug/build"))
        .expect("build folders")
        .flatten()
        .map(|entry| entry.path().join("out/dist/.vite/manifest.json"))
        .filter(|manifest| {
            manifest.is_file() && manifest.to_string_lossy().contains("/vite-rerun-")
        })
        .collect();
    assert!(!out_dirs.is_empty(), "the build wrote its output");
    for manifest in &out_dirs {
        touch(manifest);
    }
    let (built, stderr) = verbose_build(&project);
    assert!(
        built && !ran_build_script(&stderr),
        "node_modules and the output are not watched: {stderr}"
    );

    touch(&project.path().join("frontend/src/main.js"));
    let (built, stderr) = verbose_build(&project);
    assert!(
        built && ran_build_script(&stderr),
        "an edited module reruns it: {stderr}"
    );

    std::fs::remove_file(project.path().join("node_modules")).expect("unlink node_modules");
    touch(&project.path().join("frontend/src/main.js"));
    let (built, stderr) = verbose_build(&project);
    let folder = std::fs::canonicalize(project.path()).expect("the project's folder");
    assert!(!built, "built without node_modules");
    assert!(
        stderr.contains("run `npm ci` there")
            && (stderr.contains(&project.path().display().to_string())
                || stderr.contains(&folder.display().to_string())),
        "{stderr}"
    );
}
