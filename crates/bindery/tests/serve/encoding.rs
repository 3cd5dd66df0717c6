//! Precompressed passthrough: gzip bytes go out as stored; identity for everyone else.

use std::io::Read;

use bindery::serve::ServeCatalog;
use http::StatusCode;

use crate::support::{GZIP, get, on_disk};

#[tokio::test]
async fn gzip_passthrough_sends_the_stored_blob() {
    let service = ServeCatalog::new(&GZIP);
    let file = GZIP.file("index.html").expect("file");
    let reply = get(
        &service,
        "/index.html",
        &[("accept-encoding", "gzip, deflate, br")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-encoding"), "gzip");
    assert_eq!(reply.header("etag"), file.gzip_etag().expect("compressed"));
    assert_eq!(
        reply.body,
        file.gzip().expect("compressed"),
        "the stored bytes, unchanged"
    );
    assert_eq!(reply.header("content-length"), reply.body.len().to_string());
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(&reply.body[..])
        .read_to_end(&mut decoded)
        .expect("gzip");
    assert_eq!(decoded, on_disk("index.html"));
}

#[tokio::test]
async fn clients_without_gzip_get_identity() {
    let service = ServeCatalog::new(&GZIP);
    for accept in [
        None,
        Some("identity"),
        Some("gzip;q=0"),
        Some("br"),
        Some("*;q=0"),
        Some("gzip;q=7"),
        Some(",,,;;;"),
    ] {
        let headers: Vec<(&str, &str)> = accept
            .map(|value| ("accept-encoding", value))
            .into_iter()
            .collect();
        let reply = get(&service, "/index.html", &headers).await;
        assert_eq!(reply.status, StatusCode::OK, "{accept:?}");
        assert!(
            reply.headers.get("content-encoding").is_none(),
            "{accept:?}"
        );
        assert_eq!(reply.body, on_disk("index.html"), "{accept:?}");
        assert_eq!(
            reply.header("etag"),
            GZIP.file("index.html").expect("file").etag()
        );
    }
}

#[tokio::test]
async fn a_wildcard_accepts_gzip() {
    let service = ServeCatalog::new(&GZIP);
    let reply = get(&service, "/style.css", &[("accept-encoding", "*")]).await;
    assert_eq!(reply.header("content-encoding"), "gzip");
}

#[tokio::test]
async fn files_stored_raw_are_never_gzip_encoded() {
    let service = ServeCatalog::new(&GZIP);
    let reply = get(&service, "/random.bin", &[("accept-encoding", "gzip")]).await;
    assert!(reply.headers.get("content-encoding").is_none());
    assert_eq!(reply.body, on_disk("random.bin"));
}

#[tokio::test]
async fn the_decompressed_cache_counts_hits_and_respects_its_budget() {
    let index_len = on_disk("index.html").len();
    let service = ServeCatalog::new(&GZIP).decompressed_cache(index_len + 10);
    for _ in 0..3 {
        assert_eq!(
            get(&service, "/index.html", &[]).await.body,
            on_disk("index.html")
        );
    }
    let stats = service.cache_stats().expect("on");
    assert_eq!(
        (stats.misses, stats.hits, stats.entries, stats.bytes),
        (1, 2, 1, index_len)
    );

    // style.css does not fit beside index.html: the least recently used body is evicted.
    assert_eq!(
        get(&service, "/style.css", &[]).await.body,
        on_disk("style.css")
    );
    let stats = service.cache_stats().expect("on");
    assert_eq!(stats.entries, 1);
    assert!(stats.bytes <= stats.budget);
    assert_eq!(
        get(&service, "/index.html", &[]).await.body,
        on_disk("index.html")
    );
    assert_eq!(service.cache_stats().expect("on").misses, 3);

    // Clients that take gzip never touch the cache.
    get(&service, "/index.html", &[("accept-encoding", "gzip")]).await;
    assert_eq!(service.cache_stats().expect("on").misses, 3);
}

#[tokio::test]
async fn a_body_larger_than_the_budget_is_served_but_not_kept() {
    let service = ServeCatalog::new(&GZIP).decompressed_cache(10);
    assert_eq!(
        get(&service, "/index.html", &[]).await.body,
        on_disk("index.html")
    );
    let stats = service.cache_stats().expect("on");
    assert_eq!((stats.entries, stats.bytes, stats.misses), (0, 0, 1));
    assert!(
        ServeCatalog::new(&GZIP).cache_stats().is_none(),
        "off by default"
    );
}
