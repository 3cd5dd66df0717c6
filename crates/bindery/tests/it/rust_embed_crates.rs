//! Crates written for rust-embed, given a bindery type unchanged: poem's
//! `EmbeddedFilesEndpoint`, salvo's `static_embed`, axum-embed's `ServeEmbed` and handlebars'
//! `register_embed_templates`, in a crate outside the workspace, each serving the same folder
//! twice (`/re/…` through `#[derive(rust_embed::Embed)]`, `/be/…` through
//! `bindery::rust_embed!`) over real HTTP. The answers must agree: status, `Content-Type`, body.
//! rust-embed is pinned as `=8.13.0` (8.14 does not resolve in this registry).

use std::process::{Command, Stdio};

use bindery_test_support::{Listening, raw_request};

use crate::project::Project;

const MANIFEST: &str = r#"
[dependencies.rust-embed]
version = "=8.13.0"

[dependencies.poem]
version = "3"
features = ["embed"]

[dependencies.salvo]
version = "1"
default-features = false
features = ["server", "http1", "serve-static"]

[dependencies.axum-embed]
version = "0.1"

[dependencies.axum07]
package = "axum"
version = "0.7"
default-features = false
features = ["http1", "tokio"]

[dependencies.handlebars]
version = "6"
features = ["rust-embed"]

[dependencies.tokio]
version = "1"
features = ["macros", "rt-multi-thread", "net"]

[features]
default = ["bindery/rust-embed", "bindery/gzip"]
"#;

const MAIN: &str = r#"
//! One server per crate that takes a `RustEmbed`, each serving the folder through rust-embed's
//! derive (`/re/`) and through bindery (`/be/`); `handlebars` renders a template of each.

#[derive(rust_embed::Embed, Clone)]
#[folder = "site"]
struct Upstream;

static SITE: bindery::Catalog = bindery::embed!("site", mode = "gzip");
bindery::rust_embed! { struct Bindery(SITE); }

#[derive(rust_embed::Embed, Clone)]
#[folder = "templates"]
struct UpstreamTemplates;

static TEMPLATES: bindery::Catalog = bindery::embed!("templates");
bindery::rust_embed! { struct BinderyTemplates(TEMPLATES); }

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().expect("which server");
    if which == "handlebars" {
        for name in ["upstream", "bindery"] {
            let mut handlebars = handlebars::Handlebars::new();
            if name == "upstream" {
                handlebars.register_embed_templates::<UpstreamTemplates>().expect("templates");
            } else {
                handlebars.register_embed_templates::<BinderyTemplates>().expect("templates");
            }
            let mut names: Vec<_> = handlebars.get_templates().keys().cloned().collect();
            names.sort();
            let page = handlebars
                .render("greeting.hbs", &serde_json_like())
                .expect("render");
            println!("{name}: {names:?} {page:?}");
        }
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let address = listener.local_addr().expect("address");
    println!("listening {address}");
    match which.as_str() {
        "poem" => {
            use poem::endpoint::EmbeddedFilesEndpoint;
            let app = poem::Route::new()
                .nest("/re", EmbeddedFilesEndpoint::<Upstream>::new())
                .nest("/be", EmbeddedFilesEndpoint::<Bindery>::new());
            // The listener already bound (and announced): dropping it to bind again by
            // address would reset connections made in between.
            let acceptor = poem::listener::TcpAcceptor::from_std(listener).expect("acceptor");
            poem::Server::new_with_acceptor(acceptor).run(app).await.expect("poem");
        }
        "salvo" => {
            use salvo::prelude::*;
            use salvo::serve_static::static_embed;
            let router = Router::new()
                .push(Router::with_path("re/{**path}").get(static_embed::<Upstream>()))
                .push(Router::with_path("be/{**path}").get(static_embed::<Bindery>()));
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let acceptor = salvo::conn::tcp::TcpAcceptor::try_from(listener).expect("acceptor");
            Server::new(acceptor).serve(router).await;
        }
        "axum-embed" => {
            let app = axum07::Router::new()
                .nest_service("/re", axum_embed::ServeEmbed::<Upstream>::new())
                .nest_service("/be", axum_embed::ServeEmbed::<Bindery>::new());
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum07::serve(listener, app).await.expect("axum");
        }
        other => panic!("no server {other}"),
    }
}

fn serde_json_like() -> std::collections::BTreeMap<&'static str, &'static str> {
    std::collections::BTreeMap::from([("name", "bindery")])
}
"#;

/// The folder both types embed: text, markup, a style sheet, an image, bytes, a nested file.
fn write_site(project: &Project) {
    project.write(
        "site/index.html",
        "<!doctype html><title>site</title><p>hello</p>\n",
    );
    project.write("site/app.js", "export const answer = 42;\n".repeat(20));
    project.write("site/style.css", "body { color: rgb(0, 128, 0) }\n");
    project.write(
        "site/img/logo.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
    );
    project.write("site/data.bin", bindery_test_support::noise(3000, 7));
    project.write("site/docs/readme.txt", "plain text\n");
    project.write("templates/greeting.hbs", "Hello, {{name}}!\n");
    project.write("templates/partials/footer.hbs", "-- {{name}}\n");
}

/// The interop crate for the test `which`, built once per process. Each test has a crate of its
/// own name: nextest runs every test in a process of its own, and crates of one name would
/// share one binary in the shared target folder, rebuilt by one test while another runs it.
fn built(which: &str) -> &'static (Project, std::path::PathBuf) {
    type Built = std::collections::BTreeMap<String, &'static (Project, std::path::PathBuf)>;
    static BUILT: std::sync::Mutex<Built> = std::sync::Mutex::new(Built::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    built.entry(which.to_owned()).or_insert_with(|| {
        let name = format!("bindery_rust_embed_{}", which.replace('-', "_"));
        let project = Project::new(&name, MANIFEST);
        project.write("src/main.rs", MAIN);
        write_site(&project);
        // These crates are not the workspace's: let cargo fetch them (the crates registry is
        // reachable), with the workspace's lock file pinning what they share.
        let output = project
            .cargo_command(&["build"])
            .env("CARGO_NET_OFFLINE", "false")
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let binary = project.binary();
        Box::leak(Box::new((project, binary)))
    })
}

fn start(which: &str) -> Listening {
    let (project, binary) = built(which);
    let server = Listening::start(
        Command::new(binary)
            .arg(which)
            .current_dir(project.path())
            .stderr(Stdio::null()),
        "listening ",
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(server.address).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "{which} never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    server
}

/// Every path asked of both mounts, missing ones included.
const PATHS: [&str; 8] = [
    "index.html",
    "app.js",
    "style.css",
    "img/logo.svg",
    "data.bin",
    "docs/readme.txt",
    "missing.txt",
    "img/missing.png",
];

/// What `which` answers for each path through rust-embed's type and through bindery's, with
/// the headers that must agree.
fn both_mounts_agree(which: &str) {
    let server = start(which);
    let mut served = 0;
    for path in PATHS {
        let upstream = raw_request(server.address, "GET", &format!("/re/{path}"), &[]);
        let ours = raw_request(server.address, "GET", &format!("/be/{path}"), &[]);
        assert_eq!(upstream.status, ours.status, "{which} {path}: status");
        assert_eq!(
            upstream.header("content-type"),
            ours.header("content-type"),
            "{which} {path}: content type"
        );
        assert_eq!(upstream.body, ours.body, "{which} {path}: body");
        // Where the crate derives other headers from the metadata, say how they differ.
        for name in ["etag", "last-modified", "cache-control", "content-length"] {
            if upstream.header(name) != ours.header(name) {
                eprintln!(
                    "{which} {path}: {name} {:?} through rust-embed, {:?} through bindery",
                    upstream.header(name),
                    ours.header(name)
                );
            }
        }
        if upstream.status == 200 {
            served += 1;
        }
    }
    assert_eq!(
        served, 6,
        "{which}: every file served, the missing ones not"
    );
}

#[test]
fn poem_serves_a_bindery_type_as_it_serves_rust_embeds() {
    if !bindery_test_support::slow_test(
        "bindery",
        "poem_serves_a_bindery_type_as_it_serves_rust_embeds",
        "builds poem, salvo, axum 0.7 and handlebars in a throwaway crate",
    ) {
        return;
    }
    both_mounts_agree("poem");
}

#[test]
fn salvo_serves_a_bindery_type_as_it_serves_rust_embeds() {
    if !bindery_test_support::slow_test(
        "bindery",
        "salvo_serves_a_bindery_type_as_it_serves_rust_embeds",
        "builds poem, salvo, axum 0.7 and handlebars in a throwaway crate",
    ) {
        return;
    }
    both_mounts_agree("salvo");
}

#[test]
fn axum_embed_serves_a_bindery_type_as_it_serves_rust_embeds() {
    if !bindery_test_support::slow_test(
        "bindery",
        "axum_embed_serves_a_bindery_type_as_it_serves_rust_embeds",
        "builds poem, salvo, axum 0.7 and handlebars in a throwaway crate",
    ) {
        return;
    }
    both_mounts_agree("axum-embed");
}

#[test]
fn handlebars_loads_the_same_templates_through_a_bindery_type() {
    if !bindery_test_support::slow_test(
        "bindery",
        "handlebars_loads_the_same_templates_through_a_bindery_type",
        "builds poem, salvo, axum 0.7 and handlebars in a throwaway crate",
    ) {
        return;
    }
    let (project, _) = built("handlebars");
    let output = project.run_with(&["handlebars"]);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 2, "{output}");
    let expected = r#"["greeting.hbs", "partials/footer.hbs"] "Hello, bindery!\n""#;
    assert_eq!(lines[0], format!("upstream: {expected}"));
    assert_eq!(lines[1], format!("bindery: {expected}"));
}
