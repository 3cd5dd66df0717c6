//! The embedded SPA, deep links, health, metrics and the OpenAPI document.

use geo_server::db::DbMode;
use geo_server::{AppState, SPA};
use http::StatusCode;

use crate::support::{database, get};

fn state() -> (tempfile::TempDir, AppState) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    (dir, state)
}

#[tokio::test]
async fn the_index_and_deep_links_serve_the_app() {
    let (_dir, state) = state();
    let index = SPA.get("index.html").expect("embedded index");
    for path in ["/", "/index.html", "/lookup/8.8.8.8", "/stats"] {
        let reply = get(&state, path, &[("accept", "text/html,*/*;q=0.8")]).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.headers["content-type"], "text/html; charset=utf-8");
        assert_eq!(reply.body, &index[..], "{path}");
    }
    let gzip = get(
        &state,
        "/lookup/1.1.1.1",
        &[("accept", "text/html"), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(gzip.headers["content-encoding"], "gzip");
}

#[tokio::test]
async fn every_spa_file_is_served_and_missing_assets_are_404() {
    let (_dir, state) = state();
    assert!(SPA.len() >= 4, "the SPA has its files");
    for file in SPA.iter() {
        let reply = get(&state, &format!("/{}", file.path()), &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", file.path());
        assert_eq!(reply.body, &file.contents().expect("decodes")[..]);
    }
    assert_eq!(
        get(&state, "/missing.js", &[("accept", "*/*")])
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&state, "/geo/../Cargo.toml", &[("accept", "text/html")])
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    let api_miss = get(&state, "/geo/8.8.8.8/extra", &[("accept", "text/html")]).await;
    assert_eq!(
        api_miss.status,
        StatusCode::NOT_FOUND,
        "API paths never fall back to the app"
    );
}

#[tokio::test]
async fn healthz_names_the_database() {
    let (_dir, state) = state();
    let json = get(&state, "/healthz", &[]).await.json();
    assert_eq!(json["status"], "ok");
    assert_eq!(json["database"]["mode"], "embed");
    assert_eq!(json["database"]["database_type"], "bindery-Sample-City");
}

#[tokio::test]
async fn metrics_parse_and_count_requests() {
    let (_dir, mut state) = state();
    state.metrics_public = true;
    get(&state, "/geo/8.8.8.8", &[]).await;
    get(&state, "/geo/8.8.8.8", &[]).await;
    get(&state, "/geo/garbage", &[]).await;
    get(&state, "/index.html", &[]).await;
    let reply = get(&state, "/metrics", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(
        reply.headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/plain; version=0.0.4")
    );
    let text = String::from_utf8(reply.body).expect("UTF-8");
    let lines = text.lines().map(|line| Ok(line.to_owned()));
    let scrape = prometheus_parse::Scrape::parse(lines).expect("valid exposition format");
    let value = |name: &str, label: &str, wanted: &str| {
        scrape
            .samples
            .iter()
            .filter(|sample| sample.metric == name && sample.labels.get(label) == Some(wanted))
            .map(|sample| match sample.value {
                prometheus_parse::Value::Counter(value)
                | prometheus_parse::Value::Gauge(value)
                | prometheus_parse::Value::Untyped(value) => value,
                _ => f64::NAN,
            })
            .collect::<Vec<f64>>()
    };
    let geo_ok = scrape.samples.iter().find(|sample| {
        sample.metric == "geo_http_requests_total"
            && sample.labels.get("route") == Some("/geo/:ip")
            && sample.labels.get("status") == Some("200")
    });
    assert!(
        matches!(geo_ok.map(|sample| &sample.value), Some(prometheus_parse::Value::Counter(count)) if *count == 2.0)
    );
    assert_eq!(value("geo_http_requests_total", "status", "400"), [1.0]);
    assert_eq!(value("geo_http_requests_total", "route", "static"), [1.0]);
    assert!(value("process_resident_memory_bytes", "kind", "anon")[0] > 0.0);
    assert!(value("process_resident_memory_bytes", "kind", "file")[0] > 0.0);
    assert_eq!(value("geodb_info", "mode", "embed"), [1.0]);
    // The same address twice: its record rendered once, then copied.
    assert_eq!(
        value("geo_answer_cache_lookups_total", "result", "miss"),
        [1.0]
    );
    assert_eq!(
        value("geo_answer_cache_lookups_total", "result", "hit"),
        [1.0]
    );
    for gauge in [
        "geo_answer_cache_bytes",
        "geo_answer_cache_budget_bytes",
        "geo_answer_cache_slot_bytes",
        "geo_heap_in_use_bytes",
        "geodb_size_bytes",
        "geodb_reader_heap_bytes",
        "geodb_jump_table_bytes",
        "geodb_build_timestamp_seconds",
    ] {
        assert!(
            scrape.samples.iter().any(|sample| sample.metric == gauge),
            "{gauge}"
        );
    }
}

#[tokio::test]
async fn the_openapi_document_describes_the_api() {
    let (_dir, state) = state();
    let reply = get(&state, "/openapi.json", &[]).await;
    assert_eq!(reply.headers["content-type"], "application/json");
    let json = reply.json();
    assert!(json["openapi"].as_str().expect("version").starts_with("3."));
    for path in ["/geo/{ip}", "/geo/me", "/healthz", "/metrics"] {
        assert!(json["paths"][path]["get"].is_object(), "{path}");
    }
}

#[tokio::test]
async fn a_folder_laid_over_the_app_replaces_its_files_and_the_api_stays_the_api() {
    let (dir, mut state) = state();
    let custom = dir.path().join("custom");
    std::fs::create_dir(&custom).expect("mkdir");
    std::fs::write(custom.join("index.html"), "<p>branded</p>").expect("write");
    std::fs::write(custom.join(".env"), "SECRET").expect("write");
    state.spa_overlay = Some(bindery::overlay::Overlay::new(&SPA, &custom).expect("folder"));
    let page = get(&state, "/lookup/8.8.8.8", &[("accept", "text/html")]).await;
    assert_eq!(
        (page.status, &page.body[..]),
        (StatusCode::OK, &b"<p>branded</p>"[..])
    );
    assert_eq!(page.headers["cache-control"], "no-cache");
    // Files the folder lacks come from the binary; hidden ones are never read.
    let embedded = SPA
        .iter()
        .find(|file| file.path() != "index.html")
        .expect("a file");
    let reply = get(&state, &format!("/{}", embedded.path()), &[]).await;
    assert_eq!(reply.body, &embedded.contents().expect("decodes")[..]);
    assert_eq!(
        get(&state, "/.env", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    let answer = get(&state, "/geo/81.2.69.160", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
}
