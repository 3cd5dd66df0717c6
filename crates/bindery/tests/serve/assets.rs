//! Checked references (`Catalog::asset`, `asset!`): what one names is what the catalog serves.

use bindery::serve::ServeCatalog;
use bindery::{Asset, Catalog};
use http::StatusCode;

use crate::support::{FINGERPRINTED, STATIC, get};

/// Made in `const` and `static` items, the way a program names its assets.
const LOGO: Asset = FINGERPRINTED.asset("images/logo.svg");
static PAGES: [Asset; 2] = [
    FINGERPRINTED.asset("index.html"),
    bindery::asset!(FINGERPRINTED, "/app.js"),
];

/// Every file of a fingerprinted catalog: its checked reference gives `url()`'s URL, and
/// `ServeCatalog` answers that URL 200, `immutable`, with the file's bytes.
#[tokio::test]
async fn every_files_checked_url_is_its_url_and_is_served_immutable() {
    let service = ServeCatalog::new(&FINGERPRINTED);
    for file in FINGERPRINTED.iter() {
        let asset = FINGERPRINTED.asset(file.path());
        assert_eq!(
            Some(asset.url()),
            FINGERPRINTED.url(file.path()),
            "{}",
            file.path()
        );
        assert_ne!(asset.url(), file.path(), "fingerprinted: {}", file.path());
        assert_eq!(asset.path(), file.path());
        assert_eq!(asset.content_type(), file.content_type());
        let encoded = service.url(file.path()).expect("a served URL");
        let reply = get(&service, &encoded, &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{encoded}");
        assert!(
            reply.header("cache-control").contains("immutable"),
            "{encoded}"
        );
        assert_eq!(
            &reply.body[..],
            &*asset.contents().expect("readable"),
            "{encoded}"
        );
    }
    assert_eq!(
        LOGO.url(),
        FINGERPRINTED.url("images/logo.svg").expect("held")
    );
    assert_eq!(PAGES[1].path(), "app.js");
}

/// Without fingerprints the URL is the path; the integrity is what the file records.
#[test]
fn a_plain_catalogs_reference_is_its_path() {
    for file in STATIC.iter() {
        let asset = STATIC.asset(file.path());
        assert_eq!(asset.url(), file.path());
        assert_eq!(asset.integrity(), file.integrity());
        assert!(std::ptr::eq(asset.file(), file));
    }
}

/// Outside a `const`, a path the catalog lacks panics with the message a build would show:
/// the nearest paths, or none when nothing is close.
#[test]
fn a_missing_path_names_the_nearest_ones() {
    let message = |catalog: &'static Catalog, path: &'static str| {
        let panic = std::panic::catch_unwind(|| catalog.asset(path)).expect_err("missing");
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
            .expect("a message")
    };
    assert_eq!(
        message(&STATIC, "styles.css"),
        "bindery: the catalog has no file `styles.css`; did you mean `style.css`?"
    );
    assert_eq!(
        message(&STATIC, "/logo.svg"),
        "bindery: the catalog has no file `logo.svg`; did you mean `images/logo.svg`?"
    );
    assert!(message(&STATIC, "zzzzzzzzzzzzzzzzzz").contains("nor one a few edits away"));
    let long = "x".repeat(5000);
    let long: &'static str = Box::leak(long.into_boxed_str());
    assert!(message(&STATIC, long).len() <= 1024, "cut at its capacity");
}
