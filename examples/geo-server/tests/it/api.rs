//! `/geo/<ip>` and `/geo/me`: answers identical in every mode, every error status.

use axum::body::Body;
use geo_server::AppState;
use geo_server::db::DbMode;
use http::{Request, StatusCode};

use crate::support::{database, get, send};

const ADDRESSES: [&str; 8] = [
    "8.8.8.8",
    "81.2.69.160",
    "1.1.1.1",
    "2001:4860:4860::8888",
    "2a00:1450:4001::1",
    "::ffff:81.2.69.160",
    "10.0.0.1",
    "::1",
];

#[tokio::test]
async fn every_mode_gives_identical_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut answers = Vec::new();
    for mode in [DbMode::Embed, DbMode::Copy, DbMode::Mmap] {
        let state = AppState::new(database(mode, dir.path()));
        let mut replies = Vec::new();
        for address in ADDRESSES {
            for lang in ["", "?lang=de", "?lang=ja"] {
                let reply = get(&state, &format!("/geo/{address}{lang}"), &[]).await;
                replies.push((address, lang, reply.status, reply.body));
            }
        }
        answers.push(replies);
    }
    assert_eq!(answers[0], answers[1], "embed vs copy");
    assert_eq!(answers[0], answers[2], "embed vs mmap");
}

#[tokio::test]
async fn a_known_address_answers_with_the_full_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    let reply = get(&state, "/geo/81.2.69.160", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers["content-type"], "application/json");
    let json = reply.json();
    assert_eq!(json["ip"], "81.2.69.160");
    assert_eq!(json["network"], "81.2.68.0/23");
    assert_eq!(json["continent"]["code"], "EU");
    assert_eq!(json["country"]["iso_code"], "GB");
    assert_eq!(json["country"]["name"], "United Kingdom");
    assert_eq!(json["subdivisions"][0]["iso_code"], "ENG");
    assert_eq!(json["city"], "London");
    assert_eq!(json["postal"], "NW10");
    assert_eq!(json["location"]["time_zone"], "Europe/London");
    assert_eq!(json["location"]["accuracy_radius"], 50);
    assert!(json["location"]["latitude"].as_f64().is_some());
    assert_eq!(json["registered_country"]["iso_code"], "GB");

    let google = get(&state, "/geo/8.8.8.8", &[]).await.json();
    assert_eq!(google["country"]["iso_code"], "US");
    assert_eq!(
        google["city"],
        serde_json::Value::Null,
        "country-only record"
    );
    let v6 = get(&state, "/geo/2001:4860:4860::8888", &[]).await.json();
    assert_eq!(v6["city"], "Mountain View");
}

#[tokio::test]
async fn languages_are_chosen_with_lang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    let german = get(&state, "/geo/81.2.69.160?lang=de", &[]).await.json();
    assert_eq!(german["country"]["name"], "Vereinigtes Königreich");
    let french = get(&state, "/geo/81.2.69.160?lang=fr", &[]).await.json();
    assert_eq!(french["city"], "Londres");
    let russian = get(&state, "/geo/81.2.69.160?lang=ru", &[]).await.json();
    assert_eq!(
        russian["city"], "London",
        "missing names fall back to English"
    );
    for bad in ["?lang=xx", "?lang=", "?lang=EN", "?lang=de&lang=fr"] {
        let reply = get(&state, &format!("/geo/81.2.69.160{bad}"), &[]).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(
            reply.json()["error"]
                .as_str()
                .expect("message")
                .contains("language"),
            "{bad}"
        );
    }
}

#[tokio::test]
async fn mapped_ipv6_is_answered_as_ipv4() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    let mapped = get(&state, "/geo/::ffff:8.8.8.8", &[]).await.json();
    assert_eq!(mapped["ip"], "8.8.8.8");
    assert_eq!(mapped["network"], "8.8.0.0/19");
}

#[tokio::test]
async fn malformed_addresses_get_400_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    let long = "1".repeat(10_000);
    let long_path = format!("/geo/{long}");
    for path in [
        "/geo/garbage",
        "/geo/010.1.1.1",
        "/geo/8.8.8.8.",
        "/geo/8.8.8",
        "/geo/%00",
        "/geo/8.8.8.8%00",
        "/geo/fe80::1%25eth0",
        "/geo/%20",
        "/geo/%ff",
        "/geo/1.2.3.4%2F24",
        long_path.as_str(),
        "/geo/",
        "/geo",
        "/geo/0x7f.1",
    ] {
        let reply = get(&state, path, &[]).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}");
        let json = reply.json();
        assert_eq!(json["status"], 400, "{path}");
        assert!(
            json["error"].as_str().is_some_and(|text| !text.is_empty()),
            "{path}"
        );
    }
    let zone = get(&state, "/geo/fe80::1%25eth0", &[]).await.json();
    assert!(zone["error"].as_str().expect("text").contains("zone"));
}

#[tokio::test]
async fn addresses_without_data_get_404_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    for address in [
        "10.0.0.1",
        "192.168.0.1",
        "127.0.0.1",
        "::1",
        "fe80::1",
        "0.0.0.0",
        "255.255.255.255",
        "240.0.0.1",
    ] {
        let reply = get(&state, &format!("/geo/{address}"), &[]).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{address}");
        assert_eq!(reply.json()["status"], 404);
    }
}

#[tokio::test]
async fn geo_me_looks_up_the_peer_and_forwarded_only_when_trusted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut state = AppState::new(database(DbMode::Embed, dir.path()));
    let from = |peer: &str| {
        let request = Request::get("/geo/me")
            .header("x-forwarded-for", "203.0.113.9, 8.8.8.8")
            .body(Body::empty());
        (request.expect("request"), peer.parse().expect("peer"))
    };
    let (request, peer) = from("81.2.69.160:5555");
    let reply = send(&state, request, peer).await;
    assert_eq!(
        reply.json()["city"],
        "London",
        "the socket peer, X-Forwarded-For ignored"
    );

    let (request, peer) = from("[::ffff:81.2.69.160]:5555");
    assert_eq!(
        send(&state, request, peer).await.json()["ip"],
        "81.2.69.160"
    );

    state.trusted_proxies = "loopback".parse().expect("loopback");
    let (request, peer) = from("127.0.0.1:5555");
    let reply = send(&state, request, peer).await;
    assert_eq!(
        reply.json()["ip"],
        "8.8.8.8",
        "the right-most entry, written by our proxy"
    );

    let loopback = get(
        &AppState::new(database(DbMode::Embed, dir.path())),
        "/geo/me",
        &[],
    )
    .await;
    assert_eq!(loopback.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn other_methods_get_405_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::new(database(DbMode::Embed, dir.path()));
    let request = Request::post("/geo/8.8.8.8")
        .body(Body::empty())
        .expect("request");
    let reply = send(&state, request, "127.0.0.1:1".parse().expect("peer")).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.headers["allow"], "GET, HEAD");
    assert_eq!(reply.json()["status"], 405);
}
