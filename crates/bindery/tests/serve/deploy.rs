//! A deploy that keeps the previous release (`releases`) and sends deltas against it
//! (`dictionaries`, RFC 9842): the fixture `assets/deploy` holds release 2 (`dist/`) and
//! release 1 as `bindery release` saved it (`releases/1/`), whose app bundle differs in one
//! function and which had a chunk release 2 dropped.

use base64::Engine as _;
use bindery::serve::ServeCatalog;
use bindery::serve::cache_control::{IMMUTABLE, NO_CACHE};
use http::StatusCode;
use sha2::Digest as _;

use crate::support::{get, repository_file};

static DEPLOY: bindery::Catalog = bindery::embed!(
    "../../assets/deploy/dist",
    manifest = "vite",
    releases = "../../assets/deploy/releases",
    dictionaries = true,
    precompress = ["br", "zstd", "gzip"]
);

const NEW: &str = "assets/app-N3wRel2x.js";
const OLD: &str = "assets/app-01dRel1x.js";
/// The first bytes of every `dcz` body (RFC 9842 §4.2), before the dictionary's SHA-256.
const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];

/// `Available-Dictionary` naming the bytes of the repository file `path`.
fn available(path: &str) -> String {
    let hash = sha2::Sha256::digest(repository_file(path));
    format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD.encode(hash)
    )
}

fn service() -> ServeCatalog {
    ServeCatalog::builder(&DEPLOY)
        .mounted_at("/static")
        .spa_fallback("index.html")
        .build()
        .expect("builds")
}

#[tokio::test]
async fn the_previous_releases_chunks_keep_answering_beside_the_current_ones() {
    let service = service();
    // The unchanged lazy chunk is this build's; the changed bundle and the dropped chunk are kept.
    assert_eq!(DEPLOY.kept(), [OLD, "assets/gone-G0neChnk.js"]);
    for path in [
        OLD,
        "assets/gone-G0neChnk.js",
        NEW,
        "assets/lazy-La2yChnk.js",
    ] {
        let reply = get(&service, &format!("/static/{path}"), &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.header("cache-control"), IMMUTABLE, "{path}");
        let folder = if DEPLOY.is_kept(path) {
            "assets/deploy/releases/1"
        } else {
            "assets/deploy/dist"
        };
        assert_eq!(
            reply.body,
            repository_file(&format!("{folder}/{path}")),
            "{path}"
        );
    }
    // Entries, plain names and the SPA fallback are the current release's.
    let entry = DEPLOY.entry("index.html").expect("entry");
    assert_eq!(entry.script(), NEW);
    let page = get(&service, "/static/some/route", &[("accept", "text/html")]).await;
    assert_eq!(page.header("cache-control"), NO_CACHE);
    assert!(String::from_utf8_lossy(&page.body).contains("release 2"));
}

#[tokio::test]
async fn a_browser_holding_the_previous_bundle_gets_a_delta_that_decodes_to_the_new_one() {
    let service = service();
    let plain = get(
        &service,
        &format!("/static/{NEW}"),
        &[("accept-encoding", "br")],
    )
    .await;
    assert_eq!(plain.header("content-encoding"), "br");
    assert_eq!(
        plain.header("use-as-dictionary"),
        r#"match="/static/assets/app-*.js", match-dest=("script")"#
    );
    assert_eq!(
        plain.header("vary"),
        "accept-encoding, available-dictionary"
    );
    let asked = [
        ("accept-encoding", "gzip, br, zstd, dcz"),
        (
            "available-dictionary",
            &*available(&format!("assets/deploy/releases/1/{OLD}")),
        ),
    ];
    let delta = get(&service, &format!("/static/{NEW}"), &asked).await;
    assert_eq!(delta.status, StatusCode::OK);
    assert_eq!(delta.header("content-encoding"), "dcz");
    assert_eq!(
        delta.header("vary"),
        "accept-encoding, available-dictionary"
    );
    assert_eq!(delta.header("cache-control"), IMMUTABLE);
    assert!(
        delta.body.len() * 10 < plain.body.len(),
        "{} vs br {}",
        delta.body.len(),
        plain.body.len()
    );
    // The header names the dictionary; the rest is zstd with it as raw content.
    let old = repository_file(&format!("assets/deploy/releases/1/{OLD}"));
    assert_eq!(&delta.body[..8], DCZ_MAGIC);
    assert_eq!(&delta.body[8..40], &sha2::Sha256::digest(&old)[..]);
    let decoded = zstd::bulk::Decompressor::with_dictionary(&old)
        .expect("decoder")
        .decompress(&delta.body[40..], 1 << 20)
        .expect("decodes");
    assert_eq!(
        decoded,
        repository_file(&format!("assets/deploy/dist/{NEW}"))
    );
    // Its own ETag: a 304 for it, and a full answer for another representation's tag.
    let etag = delta.header("etag").to_owned();
    assert!(
        ![plain.header("etag"), DEPLOY.file(NEW).expect("file").etag()].contains(&etag.as_str())
    );
    let again = [asked[0], asked[1], ("if-none-match", &etag)];
    let revalidated = get(&service, &format!("/static/{NEW}"), &again).await;
    assert_eq!(revalidated.status, StatusCode::NOT_MODIFIED);
    assert_eq!(
        revalidated.header("vary"),
        "accept-encoding, available-dictionary"
    );
    // A range is of the identity bytes, as for every other coding.
    let ranged = [asked[0], asked[1], ("range", "bytes=0-9")];
    let part = get(&service, &format!("/static/{NEW}"), &ranged).await;
    assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(part.header("content-encoding"), "");
    assert_eq!(
        &part.body[..],
        &repository_file(&format!("assets/deploy/dist/{NEW}"))[..10]
    );
}

#[tokio::test]
async fn a_wrong_or_unknown_dictionary_never_gets_a_delta() {
    let service = service();
    let url = format!("/static/{NEW}");
    let old = available(&format!("assets/deploy/releases/1/{OLD}"));
    let cases: [(&str, &str); 7] = [
        // The current file itself, a file of no earlier version, garbage, the wrong form.
        (
            "gzip, br, zstd, dcz",
            &*available(&format!("assets/deploy/dist/{NEW}")),
        ),
        (
            "gzip, br, zstd, dcz",
            &*available("assets/deploy/releases/1/assets/gone-G0neChnk.js"),
        ),
        ("gzip, br, zstd, dcz", ":AAAA:"),
        ("gzip, br, zstd, dcz", "not a byte sequence"),
        ("gzip, br, zstd, dcz", &old[1..old.len() - 1]),
        // The right dictionary, but dcz not accepted (or refused; `*` does not cover it).
        ("gzip, br, zstd", &old),
        ("*, dcz;q=0", &old),
    ];
    for (accept, dictionary) in cases {
        let reply = get(
            &service,
            &url,
            &[
                ("accept-encoding", accept),
                ("available-dictionary", dictionary),
            ],
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{accept} / {dictionary}");
        assert_ne!(
            reply.header("content-encoding"),
            "dcz",
            "{accept} / {dictionary}"
        );
    }
    // A kept file is a dictionary for what follows it, and has no delta itself.
    let kept = get(
        &service,
        &format!("/static/{OLD}"),
        &[
            ("accept-encoding", "dcz, br"),
            ("available-dictionary", &old),
        ],
    )
    .await;
    assert_eq!(kept.header("content-encoding"), "br");
    assert_eq!(kept.header("vary"), "accept-encoding");
    assert_eq!(
        kept.header("use-as-dictionary"),
        r#"match="/static/assets/app-*.js", match-dest=("script")"#
    );
    // HTML is never a dictionary.
    let page = get(&service, "/static/index.html", &[]).await;
    assert_eq!(page.header("use-as-dictionary"), "");
}
