//! Media types the user chooses: the build's `types` rules (recorded in the catalog, so the
//! embedded file, an overlay's copy and dev mode agree), `dotfiles` for `.well-known` alone,
//! and `Builder::content_type` at serve time.

use bindery::Catalog;
use bindery::overlay::Overlay;
use bindery::serve::ServeCatalog;
use http::StatusCode;

use crate::support::{STATIC, get, send};

const ASSOCIATION: &str = "/.well-known/apple-app-site-association";

/// `.well-known` named alone, the association typed by path, a brotli variant of it.
static TYPED: Catalog = bindery::embed!(
    "../../assets/types",
    dotfiles = [".well-known"],
    types = [".well-known/apple-app-site-association=application/json"],
    precompress = ["br"],
);

fn is_json(content_type: &str) -> bool {
    content_type == "application/json; charset=utf-8"
}

/// Every answer with a body carries the chosen type (GET, HEAD, a range, the br variant); a
/// revalidation is a 304 for it.
async fn answers_as_json(service: &ServeCatalog) {
    let whole = get(service, ASSOCIATION, &[]).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert!(
        is_json(whole.header("content-type")),
        "{}",
        whole.header("content-type")
    );
    let head = send(
        service,
        http::Request::head(ASSOCIATION).body(()).expect("request"),
    )
    .await;
    assert!(is_json(head.header("content-type")), "HEAD");
    let range = get(service, ASSOCIATION, &[("range", "bytes=0-9")]).await;
    assert_eq!(range.status, StatusCode::PARTIAL_CONTENT);
    assert!(is_json(range.header("content-type")), "range");
    let etag = whole.header("etag").to_owned();
    let fresh = get(service, ASSOCIATION, &[("if-none-match", &etag)]).await;
    assert_eq!(fresh.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn a_typed_path_is_json_in_every_answer_and_in_its_br_variant() {
    let file = TYPED
        .file(ASSOCIATION)
        .expect("`.well-known` named alone is embedded");
    assert_eq!(file.mime(), "application/json");
    let service = ServeCatalog::new(&TYPED);
    answers_as_json(&service).await;
    let compressed = get(&service, ASSOCIATION, &[("accept-encoding", "br")]).await;
    assert_eq!(compressed.header("content-encoding"), "br");
    assert!(is_json(compressed.header("content-type")), "br variant");
}

#[test]
fn dotfiles_lets_one_name_in_and_every_other_dotfile_stays_out() {
    assert!(TYPED.file(".env").is_none(), ".env is never embedded");
    let paths: Vec<&str> = TYPED.iter().map(bindery::EmbeddedFile::path).collect();
    assert_eq!(
        paths,
        [
            ".well-known/apple-app-site-association",
            "LICENSE",
            "data.bin2",
            "index.html"
        ]
    );
    // Without a `types` rule an unknown name is octet-stream, as before.
    assert_eq!(
        TYPED.file("LICENSE").expect("held").mime(),
        "application/octet-stream"
    );
}

/// An overlay's copy of the file is typed by the build's rules too, and `.env` in the overlay
/// folder is no file.
#[tokio::test]
async fn an_overlays_copy_is_typed_as_the_build_typed_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".well-known")).expect("folder");
    std::fs::write(
        dir.path().join(".well-known/apple-app-site-association"),
        "{\"applinks\":{\"details\":[]}}",
    )
    .expect("write");
    std::fs::write(dir.path().join(".env"), "SECRET=1").expect("write");
    let service = ServeCatalog::builder(&TYPED)
        .overlay(Overlay::new(&TYPED, dir.path()).expect("folder"))
        .build()
        .expect("a valid setup");
    let hotfix = get(&service, ASSOCIATION, &[]).await;
    assert_eq!(&hotfix.body[..], b"{\"applinks\":{\"details\":[]}}");
    answers_as_json(&service).await;
    assert_eq!(
        get(&service, "/.env", &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

/// At serve time: the last matching rule wins, over every answer, and a value that is not a
/// media type is refused when the service is built.
#[tokio::test]
async fn a_type_set_at_serve_time_reaches_every_answer() {
    let service = ServeCatalog::builder(&STATIC)
        .content_type("**/*.txt", "text/x-first")
        .content_type("hello.txt", "text/plain; charset=us-ascii")
        .build()
        .expect("a valid setup");
    for headers in [
        &[][..],
        &[("range", "bytes=0-1")],
        &[("accept-encoding", "gzip")],
    ] {
        let reply = get(&service, "/hello.txt", headers).await;
        assert_eq!(
            reply.header("content-type"),
            "text/plain; charset=us-ascii",
            "{headers:?}"
        );
        assert!(reply.header("x-first").is_empty());
    }
    let other = get(&service, "/empty.txt", &[]).await;
    assert_eq!(other.header("content-type"), "text/x-first");
    for bad in ["json", "text/", "/plain", "text/plain\n"] {
        let error = ServeCatalog::builder(&STATIC)
            .content_type("**", bad)
            .build()
            .expect_err(bad);
        assert!(
            error.to_string().contains("not a media type"),
            "{bad}: {error}"
        );
    }
}
