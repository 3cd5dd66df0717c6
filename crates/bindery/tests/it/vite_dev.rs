//! The front-end loop of docs/pipelines.md ("The loop"), as a user runs it: Vite's dev server
//! (`vite frontend`, with `VITE_DEV_SERVER`) beside a debug build of examples/vite-app with its
//! `dev` feature, the vanilla template at `/` and React's under a two-level sub-path. Chromium
//! loads the page the Rust server renders, clicks the counter and watches an edit arrive as a
//! hot update: no navigation, the counter's state kept, no console error, no CSP violation.
//! The same crate built in release, the variable set, serves the manifest's tags and holds none
//! of the dev strings.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bindery_test_support::{Listening, free_port};

use crate::project::Project;
use crate::vite::{EPOCH, PREFIX, Server, Template, project_named, sub_path_project};

/// Vite's dev server for a project, as docs/pipelines.md starts it; stopped when dropped.
struct ViteDev {
    _server: Listening,
    /// `http://127.0.0.1:<port>`: what `VITE_DEV_SERVER` says.
    origin: String,
}

impl ViteDev {
    /// `vite frontend --base <base>` in the project with `VITE_DEV_SERVER` set, once it listens.
    fn start(project: &Project, base: &str) -> ViteDev {
        let port = free_port();
        let origin = format!("http://127.0.0.1:{port}");
        // The address first, for `Listening`; Vite's own output goes to a log shown on failure.
        let script = format!(
            "echo 127.0.0.1:{port}; exec node node_modules/vite/bin/vite.js frontend --base {base} >vite.log 2>&1"
        );
        let server = Listening::start(
            Command::new("sh")
                .args(["-c", &script])
                .current_dir(project.path())
                .env("VITE_DEV_SERVER", &origin),
            "",
        );
        let started = Instant::now();
        while std::net::TcpStream::connect(server.address).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Vite's dev server did not listen: {}",
                log(project)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        ViteDev {
            _server: server,
            origin,
        }
    }
}

/// What Vite printed.
fn log(project: &Project) -> String {
    std::fs::read_to_string(project.path().join("vite.log")).unwrap_or_default()
}

/// A front end, where it is mounted, the module its entry loads and the edit made to it: the
/// file, the text replaced and put instead, and the JavaScript that is true once it shows.
struct Case {
    project: Project,
    base: &'static str,
    entry: &'static str,
    react: bool,
    edit: [&'static str; 4],
}

fn cases() -> [Case; 2] {
    [
        Case {
            project: project_named("vite-hmr", "[lib]\nname = \"vite_app\"\n", &[]),
            base: "/",
            entry: "src/main.js",
            react: false,
            // The vanilla template's main.js accepts no update (an edit of it reloads); its
            // stylesheet, a module of the graph, is updated in place.
            edit: [
                "frontend/src/style.css",
                ".counter {\n  font-size: 16px;",
                ".counter {\n  font-size: 16px;\n  letter-spacing: 7px;",
                "getComputedStyle(document.querySelector('#counter')).letterSpacing === '7px'",
            ],
        },
        Case {
            project: sub_path_project(Template::React, "vite-hmr-react"),
            base: PREFIX,
            entry: "src/main.tsx",
            react: true,
            edit: [
                "frontend/src/App.tsx",
                "<h1>Get started</h1>",
                "<h1>Edited live</h1>",
                "document.querySelector('h1')?.textContent === 'Edited live'",
            ],
        },
    ]
}

#[test]
fn vites_dev_server_beside_a_debug_build_updates_the_open_page_and_release_holds_none_of_it() {
    if !bindery_test_support::slow_test(
        "bindery",
        "vites_dev_server_beside_a_debug_build_updates_the_open_page_and_release_holds_none_of_it",
        "needs npm packages and Chromium",
    ) {
        return;
    }
    for case in cases() {
        let project = &case.project;
        build(project, &["build", "--features", "dev"]);
        let vite = ViteDev::start(project, case.base);
        let server = Server(Listening::start(
            Command::new(project.binary())
                .arg("127.0.0.1:0")
                .env("VITE_DEV_SERVER", &vite.origin),
            "listening on http://",
        ));
        the_page_loads_from_the_dev_server(&case, &server, &vite.origin);
        an_edit_is_a_hot_update(&case, &server, project);
        if !case.react {
            drop(server);
            what_is_wrong_is_said(project);
            release_ignores_it(project, &vite.origin);
        }
    }
}

/// `cargo <args>` of the project, with the test's stable date; fails the test on an error.
fn build(project: &Project, args: &[&str]) {
    let output = project
        .cargo_command(args)
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The page's tags load Vite's client and the entry's source from the dev server (React's
/// refresh preamble first for React), no import map; its CSP allows that origin, its socket and
/// the nonce of Vite's styles; its `Link` preloads the client.
fn the_page_loads_from_the_dev_server(case: &Case, server: &Server, origin: &str) {
    let page = server.page(case.base);
    assert_eq!(page.status, 200);
    let html = page.text();
    let base = format!("{origin}{}", case.base);
    for tag in [
        format!(r#"<script type="module" src="{base}@vite/client"></script>"#),
        format!(
            r#"<script type="module" src="{base}{}"></script>"#,
            case.entry
        ),
        r#"<meta property="csp-nonce" nonce=""#.to_owned(),
    ] {
        assert!(html.contains(&tag), "{tag} in {html}");
    }
    assert!(!html.contains("importmap"), "{html}");
    assert_eq!(
        html.contains(&format!(r#"from "{base}@react-refresh""#)),
        case.react,
        "{html}"
    );
    let csp = page.header("content-security-policy").expect("a CSP");
    let socket = origin.replace("http://", "ws://");
    let nonce = html
        .split(r#"nonce=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the nonce");
    let nonce = format!("'nonce-{nonce}'");
    for (directive, needed) in [
        ("script-src", vec![origin]),
        ("style-src", vec![origin, &nonce]),
        ("img-src", vec![origin]),
        ("connect-src", vec![origin, &socket]),
    ] {
        let sources = csp
            .split(';')
            .map(str::split_ascii_whitespace)
            .find_map(|mut words| {
                (words.next() == Some(directive)).then(|| words.collect::<Vec<_>>())
            })
            .unwrap_or_default();
        for source in needed {
            assert!(sources.contains(&source), "{source} in {directive}: {csp}");
        }
    }
    let link = page.header("link").expect("a Link header");
    assert!(
        link.starts_with(&format!("<{base}@vite/client>; rel=modulepreload")),
        "{link}"
    );
}

/// Chromium on the page: the app mounts, the counter counts, and the edit shows without a
/// navigation, the counter still at 1, with no console error, CSP violation or failed request.
fn an_edit_is_a_hot_update(case: &Case, server: &Server, project: &Project) {
    let [file, find, replace, edited] = case.edit;
    project.write("hmr.mjs", include_str!("hmr.mjs"));
    let url = format!("http://{}{}", server.address, case.base);
    let file = project.path().join(file);
    let args: [std::ffi::OsString; 5] = [
        url.into(),
        file.into(),
        find.into(),
        replace.into(),
        edited.into(),
    ];
    let seen = project
        .node_json("hmr.mjs", args)
        .unwrap_or_else(|stderr| panic!("hmr.mjs: {stderr}\nVite: {}", log(project)));
    let with_log = || format!("{seen}\nVite: {}", log(project));
    assert_eq!(seen["connected"], true, "{}", with_log());
    assert_eq!(seen["editedBefore"], false, "{}", with_log());
    assert!(
        seen["updateMillis"].is_u64(),
        "the edit showed: {}",
        with_log()
    );
    assert_eq!(seen["loads"], 1, "no navigation: {}", with_log());
    assert_eq!(
        seen["counterText"],
        "Count is 1",
        "state kept: {}",
        with_log()
    );
    for list in ["violations", "consoleErrors", "pageErrors", "failed"] {
        assert_eq!(seen[list], serde_json::json!([]), "{list}: {}", with_log());
    }
    eprintln!(
        "{}: the edit showed {} ms after it was saved",
        project.path().display(),
        seen["updateMillis"]
    );
}

/// The server's start with what cannot work: an origin that is none, then an HTML entry whose
/// modules were not recorded (the record `Frontend::vite` writes removed). Each is an error
/// saying what is wrong and what to do, not a page that loads nothing.
fn what_is_wrong_is_said(project: &Project) {
    let start = |origin: &str| {
        let output = Command::new(project.binary())
            .arg("127.0.0.1:0")
            .env("VITE_DEV_SERVER", origin)
            .output()
            .expect("the server runs");
        assert!(!output.status.success(), "it started with {origin}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = start("localhost:5173");
    // (The example's `expect` shows the message as a Rust string: its quotes escaped.)
    assert!(
        stderr.contains(r#"VITE_DEV_SERVER: \"localhost:5173\" is not an http:// or https:// URL"#),
        "{stderr}"
    );
    let records: Vec<PathBuf> = std::fs::read_dir(project.target().join("debug/build"))
        .expect("build folders")
        .flatten()
        .filter(|entry| {
            // This package's (`vite-hmr-<hash>`), not `vite-hmr-react-<hash>`'s.
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix("vite-hmr-")
                .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
        })
        .map(|entry| entry.path().join("out/dist/.vite/bindery-dev.tsv"))
        .filter(|record| record.is_file())
        .collect();
    assert!(!records.is_empty(), "Frontend::vite wrote its record");
    let kept: Vec<Vec<u8>> = records
        .iter()
        .map(|record| std::fs::read(record).expect("the record"))
        .collect();
    for record in &records {
        std::fs::remove_file(record).expect("remove the record");
    }
    let stderr = start("http://127.0.0.1:5173");
    // Put back: cargo does not rerun the build script for its own output.
    for (record, contents) in records.iter().zip(kept) {
        std::fs::write(record, contents).expect("restore the record");
    }
    assert!(
        stderr.contains(
            "the entry `index.html` is an HTML file whose module scripts are not recorded"
        ) && stderr.contains("bindery_codegen::Frontend::vite"),
        "{stderr}"
    );
}

/// In release, the variable set, the page loads the manifest's files (the import map, no dev
/// server), and the binary holds none of the dev tags' strings.
fn release_ignores_it(project: &Project, origin: &str) {
    build(project, &["build", "--release", "--features", "dev"]);
    let binary: PathBuf = project.release_binary();
    let server = Server(Listening::start(
        Command::new(&binary)
            .arg("127.0.0.1:0")
            .env("VITE_DEV_SERVER", origin),
        "listening on http://",
    ));
    let html = server.page("/").text();
    assert!(html.contains(r#"<script type="importmap">"#), "{html}");
    assert!(!html.contains(origin), "{html}");
    let bytes = std::fs::read(Path::new(&binary)).expect("the release binary");
    // (`csp-nonce` is no such string: Vite's built preload helper reads that meta too.)
    for needle in ["@vite/client", "@react-refresh", "VITE_DEV_SERVER"] {
        assert!(
            !bytes
                .windows(needle.len())
                .any(|window| window == needle.as_bytes()),
            "the release binary holds {needle}"
        );
    }
}
