//! A catalog built from Vite's output with `manifest = "vite"`: the bundler's hashed files
//! served `immutable` under their own names (no second fingerprint), Vite's own `index.html`
//! sent with a `Link` header that preloads what it loads, and the tags and header a
//! server-rendered page uses.

use bindery::serve::ServeCatalog;
use bindery::serve::cache_control::{IMMUTABLE, NO_CACHE};
use http::StatusCode;

use crate::support::get;

static DIST: bindery::Catalog = bindery::embed!(
    "../../assets/vite-dist",
    manifest = "vite",
    fingerprint = true,
    precompress = ["gzip"]
);

#[tokio::test]
async fn hashed_files_are_immutable_under_their_own_names_and_the_rest_revalidate() {
    let service = ServeCatalog::builder(&DIST)
        .mounted_at("/static")
        .build()
        .expect("builds");
    for path in DIST.bundled_scripts() {
        let reply = get(&service, &format!("/static/{path}"), &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.header("cache-control"), IMMUTABLE, "{path}");
        assert_eq!(service.url(path).expect("url"), format!("/static/{path}"));
    }
    let css = get(&service, "/static/assets/index-Cm7vLp2Q.css", &[]).await;
    assert_eq!(css.header("cache-control"), IMMUTABLE);
    // Not named by the manifest: fingerprinted by bindery, plain name revalidated.
    let favicon = service.url("favicon.svg").expect("url");
    assert_ne!(favicon, "/static/favicon.svg");
    assert_eq!(
        get(&service, &favicon, &[]).await.header("cache-control"),
        IMMUTABLE
    );
    let plain = get(&service, "/static/favicon.svg", &[]).await;
    assert_eq!(plain.header("cache-control"), NO_CACHE);
    let page = get(&service, "/static/index.html", &[]).await;
    assert_eq!(page.header("cache-control"), NO_CACHE);
    // A second fingerprint of a bundled file does not exist.
    let etag = DIST.file("assets/lazy-Ef4nR2sM.js").expect("file").etag();
    let twice = format!("/static/assets/lazy-Ef4nR2sM.{}.js", &etag[1..13]);
    assert_eq!(
        get(&service, &twice, &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn vites_own_index_html_preloads_what_it_loads() {
    let service = ServeCatalog::builder(&DIST)
        .spa_fallback("index.html")
        .build()
        .expect("builds");
    for path in ["/index.html", "/some/route"] {
        let reply = get(&service, path, &[("accept", "text/html")]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(
            reply.header("link"),
            "</assets/shared-Gh5sV3wY.css>; rel=preload; as=style; crossorigin, \
             </assets/index-Cm7vLp2Q.css>; rel=preload; as=style; crossorigin, \
             </assets/index-Bq3xK9aZ.js>; rel=modulepreload; crossorigin, \
             </assets/shared-DkTw81xQ.js>; rel=modulepreload; crossorigin",
            "{path}"
        );
    }
    // 304s keep it, as they keep every header the 200 had.
    let etag = DIST.file("index.html").expect("file").etag();
    let revalidated = get(&service, "/index.html", &[("if-none-match", etag)]).await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    assert!(revalidated.headers.get("link").is_some());
    assert!(
        get(&service, "/favicon.svg", &[])
            .await
            .headers
            .get("link")
            .is_none()
    );
}

#[tokio::test]
async fn a_link_header_the_user_sets_wins() {
    let service = ServeCatalog::builder(&DIST)
        .headers(
            "index.html",
            [("link", "</other.css>; rel=preload; as=style")],
        )
        .build()
        .expect("builds");
    let reply = get(&service, "/index.html", &[]).await;
    let links: Vec<_> = reply.headers.get_all("link").iter().collect();
    assert_eq!(links, ["</other.css>; rel=preload; as=style"]);
}

#[test]
fn entry_tags_give_every_file_once_with_its_integrity_and_the_import_map_hash_matches() {
    let service = ServeCatalog::new(&DIST);
    let html = service
        .entry_tags(&["index.html", "src/lazy.js"])
        .expect("tags");
    let file = |path: &str| DIST.file(path).expect("file");
    let expected = [
        format!(
            r#"<script type="importmap">{{"integrity":{{"/assets/index-Bq3xK9aZ.js":"{}","/assets/lazy-Ef4nR2sM.js":"{}","/assets/shared-DkTw81xQ.js":"{}"}}}}</script>"#,
            file("assets/index-Bq3xK9aZ.js").integrity(),
            file("assets/lazy-Ef4nR2sM.js").integrity(),
            file("assets/shared-DkTw81xQ.js").integrity(),
        ),
        format!(
            r#"<link rel="stylesheet" href="/assets/shared-Gh5sV3wY.css" integrity="{}" crossorigin="anonymous">"#,
            file("assets/shared-Gh5sV3wY.css").integrity()
        ),
        format!(
            r#"<link rel="stylesheet" href="/assets/index-Cm7vLp2Q.css" integrity="{}" crossorigin="anonymous">"#,
            file("assets/index-Cm7vLp2Q.css").integrity()
        ),
        format!(
            r#"<link rel="modulepreload" href="/assets/shared-DkTw81xQ.js" integrity="{}" crossorigin="anonymous">"#,
            file("assets/shared-DkTw81xQ.js").integrity()
        ),
        format!(
            r#"<script type="module" src="/assets/index-Bq3xK9aZ.js" integrity="{}" crossorigin="anonymous"></script>"#,
            file("assets/index-Bq3xK9aZ.js").integrity()
        ),
        format!(
            r#"<script type="module" src="/assets/lazy-Ef4nR2sM.js" integrity="{}" crossorigin="anonymous"></script>"#,
            file("assets/lazy-Ef4nR2sM.js").integrity()
        ),
    ];
    assert_eq!(html.lines().collect::<Vec<_>>(), expected);

    // The CSP hash is the SHA-256 of the import map's text, as a browser computes it.
    let map = &expected[0];
    let text = &map[map.find('>').expect("tag") + 1..map.rfind("</script>").expect("end")];
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text));
    assert_eq!(
        service.import_map_hash().expect("a map"),
        format!("'sha256-{digest}'")
    );
}

#[test]
fn an_entry_the_manifest_lacks_is_an_error_naming_the_ones_it_has() {
    let service = ServeCatalog::new(&DIST);
    for names in [&["main.js"][..], &["index.html", "main.js"]] {
        let error = service.entry_tags(names).expect_err("no such entry");
        assert!(matches!(error, bindery::Error::NoEntry { .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            "no entry `main.js` in the catalog's bundler manifest (its entries: index.html)"
        );
        assert!(service.entry_link_header(names).is_err());
    }
    static PLAIN: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    let plain = ServeCatalog::new(&PLAIN);
    let error = plain.entry_tags(&["index.html"]).expect_err("no manifest");
    assert_eq!(
        error.to_string(),
        "no entry `index.html` in the catalog's bundler manifest (it has none)"
    );
    assert_eq!(plain.import_map_hash(), None);
    assert!(PLAIN.entries().next().is_none() && PLAIN.bundled_scripts().is_empty());
}

static HASHED_PAGES: bindery::Catalog =
    bindery::embed!("../../assets/vite-dist", script_hashes = true);

#[tokio::test]
async fn each_html_file_gets_its_own_csp_and_a_policy_the_user_sets_wins() {
    let inline = HASHED_PAGES.script_hashes("index.html");
    assert_eq!(inline.len(), 1, "the fixture's one inline script");
    let service = ServeCatalog::builder(&HASHED_PAGES)
        .content_security_policy("default-src 'none'; script-src 'self'; style-src 'self'")
        .spa_fallback("index.html")
        .build()
        .expect("builds");
    let expected = format!(
        "default-src 'none'; script-src 'self' {}; style-src 'self'",
        inline[0]
    );
    for path in ["/index.html", "/a/deep/link"] {
        let reply = get(&service, path, &[("accept", "text/html")]).await;
        assert_eq!(reply.header("content-security-policy"), expected, "{path}");
    }
    let script = get(&service, "/assets/index-Bq3xK9aZ.js", &[]).await;
    assert!(script.headers.get("content-security-policy").is_none());

    let theirs = ServeCatalog::builder(&HASHED_PAGES)
        .content_security_policy("default-src 'self'")
        .headers(
            "*.html",
            [("content-security-policy", "default-src 'none'")],
        )
        .build()
        .expect("builds");
    let reply = get(&theirs, "/index.html", &[]).await;
    let policies: Vec<_> = reply
        .headers
        .get_all("content-security-policy")
        .iter()
        .collect();
    assert_eq!(policies, ["default-src 'none'"]);
}
