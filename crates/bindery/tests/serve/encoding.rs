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
    let service = ServeCatalog::builder(&GZIP)
        .decompression(bindery::serve::Decompression {
            cache_bytes: index_len + 10,
            ..bindery::serve::Decompression::default()
        })
        .build()
        .expect("a valid setup");
    for _ in 0..3 {
        assert_eq!(
            get(&service, "/index.html", &[]).await.body,
            on_disk("index.html")
        );
    }
    let stats = service.stats();
    assert_eq!(
        (
            stats.cache_misses,
            stats.cache_hits,
            stats.cache_entries,
            stats.cache_bytes
        ),
        (1, 2, 1, index_len)
    );

    // style.css does not fit beside index.html: the least recently used body is evicted.
    assert_eq!(
        get(&service, "/style.css", &[]).await.body,
        on_disk("style.css")
    );
    let stats = service.stats();
    assert_eq!(stats.cache_entries, 1);
    assert!(stats.cache_bytes <= stats.cache_budget);
    assert_eq!(
        get(&service, "/index.html", &[]).await.body,
        on_disk("index.html")
    );
    assert_eq!(service.stats().cache_misses, 3);

    // Clients that take gzip never touch the cache.
    get(&service, "/index.html", &[("accept-encoding", "gzip")]).await;
    assert_eq!(service.stats().cache_misses, 3);
}

#[tokio::test]
async fn a_body_larger_than_the_budget_is_served_but_not_kept() {
    let service = ServeCatalog::builder(&GZIP)
        .decompression(bindery::serve::Decompression {
            cache_bytes: 10,
            ..bindery::serve::Decompression::default()
        })
        .build()
        .expect("a valid setup");
    assert_eq!(
        get(&service, "/index.html", &[]).await.body,
        on_disk("index.html")
    );
    let stats = service.stats();
    assert_eq!(
        (stats.cache_entries, stats.cache_bytes, stats.cache_misses),
        (0, 0, 1)
    );
    assert_eq!(
        ServeCatalog::new(&GZIP).stats().cache_budget,
        0,
        "off by default"
    );
}

/// Vue's script (105 KiB, above the 64 KiB off-thread threshold) stored gzip-compressed.
static VUE_GZIP: bindery::Catalog = bindery::embed!(
    "../../benches/assets/web",
    mode = "gzip",
    include = ["vue.min.js"]
);

fn vue_on_disk() -> Vec<u8> {
    crate::support::repository_file("benches/assets/web/vue.min.js")
}

#[tokio::test(flavor = "current_thread")]
async fn a_large_file_decompressed_off_the_worker_is_the_same_bytes() {
    let file = VUE_GZIP.file("vue.min.js").expect("file");
    assert!(
        file.gzip().is_some()
            && file.len()
                > bindery::serve::Decompression::default()
                    .off_thread_above
                    .expect("on")
    );
    for service in [
        ServeCatalog::new(&VUE_GZIP),
        ServeCatalog::builder(&VUE_GZIP)
            .decompression(bindery::serve::Decompression {
                off_thread_above: None,
                ..bindery::serve::Decompression::default()
            })
            .build()
            .expect("a valid setup"),
        ServeCatalog::builder(&VUE_GZIP)
            .decompression(bindery::serve::Decompression {
                cache_bytes: 1 << 20,
                ..bindery::serve::Decompression::default()
            })
            .build()
            .expect("a valid setup"),
    ] {
        let full = get(&service, "/vue.min.js", &[]).await;
        assert_eq!(full.status, StatusCode::OK);
        assert_eq!(full.body, vue_on_disk());
        let part = get(&service, "/vue.min.js", &[("range", "bytes=100000-100099")]).await;
        assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
        assert_eq!(part.body, vue_on_disk()[100_000..100_100]);
        let head = crate::support::send(
            &service,
            http::Request::head("/vue.min.js")
                .body(())
                .expect("request"),
        )
        .await;
        assert!(head.body.is_empty());
        assert_eq!(head.header("content-length"), file.len().to_string());
    }
    let cached = ServeCatalog::builder(&VUE_GZIP)
        .decompression(bindery::serve::Decompression {
            cache_bytes: 1 << 20,
            ..bindery::serve::Decompression::default()
        })
        .build()
        .expect("a valid setup");
    get(&cached, "/vue.min.js", &[]).await;
    get(&cached, "/vue.min.js", &[]).await;
    let stats = cached.stats();
    assert_eq!(
        (stats.cache_misses, stats.cache_hits),
        (1, 1),
        "the second read came from the cache"
    );
}

#[test]
fn without_a_runtime_respond_decompresses_in_place() {
    let service = ServeCatalog::new(&VUE_GZIP);
    let response = service.respond(&http::Request::get("/vue.min.js").body(()).expect("request"));
    assert_eq!(response.status(), StatusCode::OK);
    let mut future = std::pin::pin!(http_body_util::BodyExt::collect(response.into_body()));
    let waker = std::task::Waker::noop();
    let std::task::Poll::Ready(Ok(collected)) = future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(waker))
    else {
        panic!("a full body is ready at once");
    };
    assert_eq!(collected.to_bytes(), vue_on_disk());
}
