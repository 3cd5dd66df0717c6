//! `script_hashes = true`: the CSP hash of every inline script of each HTML file, of the text
//! a browser's parser gives the script element.

use base64::Engine as _;
use bindery_codegen::Options;
use sha2::Digest as _;

fn csp_hash(text: &str) -> String {
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[test]
fn each_inline_script_is_hashed_as_a_browser_parses_it() {
    let site = tempfile::tempdir().expect("tempdir");
    let page = "<!doctype html>\r\n<head><SCRIPT>first()\r\nsecond()</SCRIPT>\
                <script src=app.js></script>\
                <script type=importmap>{\"imports\":{}}</script>\
                <script>a = '&amp; <!-- x' </script>\
                <script>first()\nsecond()</script></head><body><script></script>";
    std::fs::write(site.path().join("index.html"), page).expect("write");
    std::fs::write(site.path().join("app.js"), "<script>not html</script>").expect("write");
    let cache = tempfile::tempdir().expect("cache");
    let manifest = Options::new(site.path())
        .script_hashes(true)
        .cache_dir(cache.path())
        .build()
        .expect("builds");
    let hashes = |path: &str| {
        manifest
            .entries
            .iter()
            .find(|entry| entry.path == path)
            .expect("entry")
            .script_hashes
            .clone()
    };
    assert_eq!(
        hashes("index.html"),
        [
            // Line ends normalised to `\n`, so the last script is the same one: listed once.
            csp_hash("first()\nsecond()"),
            csp_hash("{\"imports\":{}}"),
            // No character references inside a script.
            csp_hash("a = '&amp; <!-- x' "),
            csp_hash(""),
        ]
    );
    assert!(hashes("app.js").is_empty(), "only HTML files");

    let plain = Options::new(site.path())
        .cache_dir(cache.path())
        .build()
        .expect("builds");
    assert!(
        plain
            .entries
            .iter()
            .all(|entry| entry.script_hashes.is_empty())
    );
}
