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
            file("assets/index-Bq3xK9aZ.js")
                .integrity()
                .expect("integrity"),
            file("assets/lazy-Ef4nR2sM.js")
                .integrity()
                .expect("integrity"),
            file("assets/shared-DkTw81xQ.js")
                .integrity()
                .expect("integrity"),
        ),
        format!(
            r#"<link rel="stylesheet" href="/assets/shared-Gh5sV3wY.css" integrity="{}" crossorigin="anonymous">"#,
            file("assets/shared-Gh5sV3wY.css")
                .integrity()
                .expect("integrity")
        ),
        format!(
            r#"<link rel="stylesheet" href="/assets/index-Cm7vLp2Q.css" integrity="{}" crossorigin="anonymous">"#,
            file("assets/index-Cm7vLp2Q.css")
                .integrity()
                .expect("integrity")
        ),
        format!(
            r#"<link rel="modulepreload" href="/assets/shared-DkTw81xQ.js" integrity="{}" crossorigin="anonymous">"#,
            file("assets/shared-DkTw81xQ.js")
                .integrity()
                .expect("integrity")
        ),
        format!(
            r#"<script type="module" src="/assets/index-Bq3xK9aZ.js" integrity="{}" crossorigin="anonymous"></script>"#,
            file("assets/index-Bq3xK9aZ.js")
                .integrity()
                .expect("integrity")
        ),
        format!(
            r#"<script type="module" src="/assets/lazy-Ef4nR2sM.js" integrity="{}" crossorigin="anonymous"></script>"#,
            file("assets/lazy-Ef4nR2sM.js")
                .integrity()
                .expect("integrity")
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

/// Vite's output without its `index.html` (the app renders its page), and without script
/// hashes.
static ASSETS: bindery::Catalog = bindery::embed!(
    "../../assets/vite-dist",
    manifest = "vite",
    exclude = "index.html"
);

/// The same output with Vite's `index.html` and no recorded script hashes.
static UNHASHED: bindery::Catalog = bindery::embed!("../../assets/vite-dist", manifest = "vite");

/// The same with them.
static HASHED: bindery::Catalog = bindery::embed!(
    "../../assets/vite-dist",
    manifest = "vite",
    script_hashes = true
);

const NAVIGATION: (&str, &str) = ("accept", "text/html,application/xhtml+xml,*/*;q=0.8");

/// The page an application renders, with the headers its own route sends.
fn rendered(service: &ServeCatalog) -> bindery::serve::Page {
    let tags = service.entry_tags(&["index.html"]).expect("tags");
    let html = format!("<!doctype html><head>{tags}</head><body><div id=app></div></body>");
    let csp = bindery::serve::Csp::new("default-src 'self'")
        .script_hashes(service.import_map_hash())
        .to_string();
    bindery::serve::Page::new(html)
        .header(
            http::header::CONTENT_SECURITY_POLICY,
            http::HeaderValue::try_from(csp).expect("a value"),
        )
        .header(
            http::header::LINK,
            http::HeaderValue::try_from(service.entry_link_header(&["index.html"]).expect("link"))
                .expect("a value"),
        )
        // What the service writes itself is the page's own, whatever is given here.
        .header(
            http::header::CACHE_CONTROL,
            http::HeaderValue::from_static("max-age=600"),
        )
}

#[tokio::test]
async fn every_route_of_the_app_gets_the_rendered_page_with_its_headers() {
    let assets = ServeCatalog::builder(&ASSETS)
        .mounted_at("/app/v2")
        .build()
        .expect("builds");
    let page = rendered(&assets);
    let routed = page.response();
    let site = assets.with_spa_page(page);
    let mut etag = String::new();
    for path in ["/app/v2/", "/app/v2/some/route", "/app/v2/a/b/c"] {
        let reply = get(&site, path, &[NAVIGATION]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert!(String::from_utf8_lossy(&reply.body).contains(r#"<script type="importmap">"#));
        for name in ["content-security-policy", "link"] {
            assert_eq!(reply.header(name), routed.headers()[name], "{path}: {name}");
        }
        assert_eq!(reply.header("cache-control"), NO_CACHE, "{path}");
        assert_eq!(reply.header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(reply.header("content-type"), "text/html; charset=utf-8");
        assert_eq!(reply.header("etag"), routed.headers()["etag"], "{path}");
        etag = reply.header("etag").to_owned();
    }
    assert_eq!(
        get(&site, "/app/v2/some/route", &[NAVIGATION])
            .await
            .header("vary"),
        "accept"
    );
    let again = get(&site, "/app/v2/x", &[NAVIGATION, ("if-none-match", &etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    // Not a navigation: a miss stays a miss.
    assert_eq!(
        get(&site, "/app/v2/some/route", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    // The mount point is the page's own address: any client gets it, and the answer does not
    // vary (a health check, `curl`, a CDN's request without `Accept: text/html`).
    for accept in [&[][..], &[("accept", "*/*")][..], &[NAVIGATION][..]] {
        let root = get(&site, "/app/v2/", accept).await;
        assert_eq!(root.status, StatusCode::OK, "{accept:?}");
        assert_eq!(root.header("etag"), etag, "{accept:?}");
        assert_eq!(root.headers.get("vary"), None, "{accept:?}");
        assert_eq!(
            root.header("content-security-policy"),
            routed.headers()["content-security-policy"]
        );
    }
    // A missing asset is a 404 even for a navigation: the folder of Vite's hashed files.
    let missing = get(&site, "/app/v2/assets/missing.js", &[NAVIGATION]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    // The files themselves are untouched.
    let script = get(&site, "/app/v2/assets/index-Bq3xK9aZ.js", &[]).await;
    assert_eq!(script.header("cache-control"), IMMUTABLE);
}

#[tokio::test]
async fn a_rendered_404_page_answers_the_misses_that_do_not_fall_back() {
    let assets = ServeCatalog::builder(&ASSETS).build().expect("builds");
    let page = bindery::serve::Page::new("<p>Not here</p>").header(
        http::header::CONTENT_SECURITY_POLICY,
        http::HeaderValue::from_static("default-src 'none'"),
    );
    let site = assets.with_not_found_page(page);
    let reply = get(&site, "/assets/missing.js", &[]).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(&reply.body[..], b"<p>Not here</p>");
    assert_eq!(
        reply.header("content-security-policy"),
        "default-src 'none'"
    );
    assert_eq!(reply.header("x-content-type-options"), "nosniff");
}

#[test]
fn a_policy_over_an_inline_script_whose_hash_was_not_recorded_is_refused_at_build() {
    let error = ServeCatalog::builder(&UNHASHED)
        .content_security_policy("default-src 'self'")
        .build()
        .expect_err("refused");
    assert_eq!(
        error,
        bindery::serve::BuildError::InlineScriptWithoutHash {
            path: "index.html".to_owned()
        }
    );
    assert!(
        error.to_string().contains("script_hashes = true"),
        "{error}"
    );
    // Recorded: the policy lets it run by hash.
    let service = ServeCatalog::builder(&HASHED)
        .content_security_policy("default-src 'self'")
        .build()
        .expect("builds");
    let page = service.respond(&http::Request::get("/index.html").body(()).expect("request"));
    assert!(
        page.headers()["content-security-policy"]
            .to_str()
            .expect("text")
            .contains("'sha256-")
    );
    // Without a policy, nothing to check.
    assert!(ServeCatalog::builder(&UNHASHED).build().is_ok());
}
