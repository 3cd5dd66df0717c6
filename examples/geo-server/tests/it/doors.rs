//! The front door answers exactly as the router does: the same status, headers and body for
//! every kind of request, and the same counts in `/metrics`.

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use geo_server::{AppState, app, assets, router};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

/// One request: method, URI and headers.
type Case = (Method, String, Vec<(&'static str, String)>);

fn state() -> AppState {
    let mut state =
        AppState::new(geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").expect("sample"));
    state.metrics_public = true;
    state
}

fn request((method, uri, headers): &Case) -> Request<Body> {
    let mut request = Request::builder().method(method.clone()).uri(uri.as_str());
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let mut request = request.body(Body::empty()).expect("request");
    let peer: SocketAddr = "81.2.69.160:40000".parse().expect("peer");
    request.extensions_mut().insert(ConnectInfo(peer));
    request
}

/// Status, headers and body of one answer.
async fn answer<S, B>(service: S, request: Request<Body>) -> (StatusCode, HeaderMap, Vec<u8>)
where
    S: tower::Service<
            Request<Body>,
            Response = http::Response<B>,
            Error = std::convert::Infallible,
        >,
    B: axum::body::HttpBody,
    B::Error: std::fmt::Debug,
{
    let response = service.oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("body").to_bytes().to_vec();
    (parts.status, parts.headers, body)
}

/// A GET of `uri`, no headers.
fn get(uri: &str) -> Case {
    (Method::GET, uri.to_owned(), Vec::new())
}

/// A request of `method` with these headers.
fn with(method: Method, uri: &str, headers: &[(&'static str, &str)]) -> Case {
    let headers = headers
        .iter()
        .map(|(name, value)| (*name, (*value).to_owned()))
        .collect();
    (method, uri.to_owned(), headers)
}

/// Every case, the last a conditional on the answer's own validator (304 at both doors; the
/// test fills in the tag).
fn cases() -> Vec<Case> {
    let mut cases = api_cases();
    cases.extend(router_cases());
    cases.extend(static_cases());
    // A conditional on the answer's own validator: 304 at both doors.
    cases.push(with(
        Method::GET,
        "/geo/8.8.8.8",
        &[("if-none-match", "\"placeholder\"")],
    ));
    cases
}

/// The API's hot path: answers, misses, errors of every kind, escapes, languages.
fn api_cases() -> Vec<Case> {
    vec![
        get("/geo/8.8.8.8"),
        get("/geo/81.2.69.160"),
        get("/geo/2001:4860:4860::8888"),
        get("/geo/%3A%3Affff%3A8.8.8.8"),
        get("/geo/%38.8.8.8"),
        get("/geo/%FF%FE"),
        get("/geo/10.0.0.1"),
        get("/geo/010.1.1.1"),
        get("/geo/8.8.8.8."),
        get("/geo/fe80::1%25eth0"),
        get(&format!("/geo/{}", "1".repeat(60))),
        get("/geo/not-an-ip"),
        get("/geo/8.8.8.8?lang=de"),
        get("/geo/8.8.8.8?lang=pt-BR&x=1"),
        get("/geo/8.8.8.8?lang=xx"),
        get("/geo/8.8.8.8?lang=de&lang=fr"),
        get("/geo/8.8.8.8?%FF"),
        get("/geo/8.8.8.8?"),
        get("/geo/8.8.8.8/"),
        get("/geo/8.8.8.8/extra"),
        get("/geo//8.8.8.8"),
        with(Method::HEAD, "/geo/8.8.8.8", &[]),
        with(Method::HEAD, "/geo/not-an-ip", &[]),
        with(Method::POST, "/geo/8.8.8.8", &[]),
        with(Method::DELETE, "/geo/8.8.8.8", &[]),
        with(Method::OPTIONS, "/geo/8.8.8.8", &[]),
        with(
            Method::GET,
            "/geo/8.8.8.8",
            &[("if-modified-since", "Tue, 03 Jul 2040 21:26:56 GMT")],
        ),
        with(Method::GET, "/geo/8.8.8.8", &[("if-none-match", "*")]),
        with(
            Method::GET,
            "/geo/8.8.8.8",
            &[("if-none-match", "\"other\"")],
        ),
    ]
}

/// The router's own routes.
fn router_cases() -> Vec<Case> {
    vec![
        get("/geo/me"),
        get("/geo/me?lang=ja"),
        get("/geo/"),
        get("/geo"),
        get("/healthz"),
        get("/openapi.json"),
        with(Method::POST, "/healthz", &[]),
    ]
}

/// Static files: the SPA, its fallback, encodings, ranges, conditionals, bad paths.
fn static_cases() -> Vec<Case> {
    vec![
        get("/"),
        get("/index.html"),
        get("/app.js"),
        with(Method::GET, "/app.js", &[("accept-encoding", "gzip")]),
        with(
            Method::GET,
            "/app.js",
            &[("accept-encoding", "br;q=1, zstd;q=0.5")],
        ),
        with(Method::GET, "/world.svg", &[("range", "bytes=10-19")]),
        with(Method::HEAD, "/style.css", &[]),
        with(Method::POST, "/style.css", &[]),
        with(Method::GET, "/lookup/1.1.1.1", &[("accept", "text/html")]),
        with(Method::GET, "/geography", &[("accept", "text/html")]),
        with(Method::GET, "/metrics/x", &[("accept", "text/html")]),
        with(Method::GET, "/healthz/", &[("accept", "text/html")]),
        get("/missing.js"),
        get("/%2e%2e/Cargo.toml"),
        get("//etc/passwd"),
    ]
}

#[tokio::test]
async fn the_front_door_answers_as_the_router_does() {
    let front = app(state());
    let routed_state = state();
    let routed = router(routed_state.clone(), assets());
    // The validator of an answer, for the last case's conditional.
    let etag = answer(
        front.clone(),
        request(&(Method::GET, "/geo/8.8.8.8".into(), vec![])),
    )
    .await
    .1["etag"]
        .to_str()
        .expect("ASCII")
        .to_owned();
    let _ = answer(
        routed.clone(),
        request(&(Method::GET, "/geo/8.8.8.8".into(), vec![])),
    )
    .await;
    let mut cases = cases();
    if let Some(last) = cases.last_mut() {
        last.2 = vec![("if-none-match", etag)];
    }
    let mut statuses = std::collections::BTreeSet::new();
    for case in &cases {
        let status = same_answer(case, front.clone(), routed.clone()).await;
        statuses.insert(status.as_u16());
    }
    // The cases reach every kind of answer.
    for status in [200, 206, 304, 400, 404, 405] {
        assert!(statuses.contains(&status), "no {status} among the cases");
    }
    same_counts(front, routed).await;
}

/// The answers of both doors to `case`, compared: the status they share.
async fn same_answer<F, R, A, B>(case: &Case, front: F, routed: R) -> StatusCode
where
    F: tower::Service<
            Request<Body>,
            Response = http::Response<A>,
            Error = std::convert::Infallible,
        >,
    R: tower::Service<
            Request<Body>,
            Response = http::Response<B>,
            Error = std::convert::Infallible,
        >,
    A: axum::body::HttpBody,
    A::Error: std::fmt::Debug,
    B: axum::body::HttpBody,
    B::Error: std::fmt::Debug,
{
    let mut from_front = answer(front, request(case)).await;
    let mut from_router = answer(routed, request(case)).await;
    // The router writes `Content-Length` into some responses that hyper would get from the
    // body's size anyway; where present it must be right, and HEAD must carry it.
    for (_, headers, body) in [&mut from_front, &mut from_router] {
        let length = headers.remove("content-length");
        if case.0 == Method::HEAD {
            assert!(length.is_some(), "{case:?}: HEAD without Content-Length");
        } else if let Some(length) = length {
            assert_eq!(
                length.to_str().ok(),
                Some(body.len().to_string().as_str()),
                "{case:?}"
            );
        }
    }
    assert_eq!(from_front.0, from_router.0, "{case:?}: status");
    assert_eq!(from_front.1, from_router.1, "{case:?}: headers");
    assert_eq!(
        String::from_utf8_lossy(&from_front.2),
        String::from_utf8_lossy(&from_router.2),
        "{case:?}: body"
    );
    from_front.0
}

/// Both doors counted the same requests under the same labels.
async fn same_counts<F, R, A, B>(front: F, routed: R)
where
    F: tower::Service<
            Request<Body>,
            Response = http::Response<A>,
            Error = std::convert::Infallible,
        >,
    R: tower::Service<
            Request<Body>,
            Response = http::Response<B>,
            Error = std::convert::Infallible,
        >,
    A: axum::body::HttpBody,
    A::Error: std::fmt::Debug,
    B: axum::body::HttpBody,
    B::Error: std::fmt::Debug,
{
    let counts = |text: &str| {
        text.lines()
            .filter(|line| line.starts_with("geo_http_requests_total{"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let metrics = (Method::GET, "/metrics".to_owned(), Vec::new());
    let front_metrics = answer(front, request(&metrics)).await.2;
    let router_metrics = answer(routed, request(&metrics)).await.2;
    let front_counts = counts(&String::from_utf8_lossy(&front_metrics));
    assert_eq!(
        front_counts,
        counts(&String::from_utf8_lossy(&router_metrics))
    );
    assert!(
        front_counts
            .iter()
            .any(|line| line.contains("route=\"/geo/:ip\"") && line.contains("status=\"200\"")),
        "{front_counts:?}"
    );
    assert!(
        front_counts
            .iter()
            .any(|line| line.contains("route=\"static\"") && line.contains("status=\"404\"")),
        "{front_counts:?}"
    );
}

#[tokio::test]
async fn a_mounted_catalog_is_served_below_its_prefix_and_routes_can_be_added() {
    let mounted = |catalog: &'static bindery::Catalog, prefix: &str| {
        bindery::serve::ServeCatalog::builder(catalog)
            .mounted_at(prefix)
            .build()
            .expect("nothing named")
    };
    let front = app(state())
        .mount(mounted(&geo_server::SPA, "/copy/"))
        .route("/hello", axum::routing::get(|| async { "hello" }));
    let get = |uri: &str| (Method::GET, uri.to_owned(), Vec::new());
    let (status, headers, body) = answer(front.clone(), request(&get("/copy/app.js"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/javascript; charset=utf-8");
    assert_eq!(
        body,
        answer(front.clone(), request(&get("/app.js"))).await.2
    );
    assert_eq!(
        answer(front.clone(), request(&get("/copy"))).await.1["location"],
        "/copy/"
    );
    // Outside the mount the SPA answers as before.
    let (status, _, body) = answer(front.clone(), request(&get("/copyx/app.js"))).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let (status, _, body) = answer(front.clone(), request(&get("/hello"))).await;
    assert_eq!((status, &body[..]), (StatusCode::OK, &b"hello"[..]));
    // The API is untouched.
    let (status, _, _) = answer(front.clone(), request(&get("/geo/8.8.8.8"))).await;
    assert_eq!(status, StatusCode::OK);

    // Mounted again, a prefix is replaced; at the root, a catalog replaces the SPA.
    static FIXTURES: bindery::Catalog = bindery::embed!("../../assets/fixtures");
    let front = front
        .mount(mounted(&FIXTURES, "copy"))
        .mount(mounted(&FIXTURES, "/"));
    let (status, _, body) = answer(front.clone(), request(&get("/copy/hello.txt"))).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, &b"Hello, bindery!\n"[..])
    );
    let (status, _, _) = answer(front.clone(), request(&get("/copy/favicon.svg"))).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the SPA's copy is replaced at /copy"
    );
    let (status, _, body) = answer(front.clone(), request(&get("/hello.txt"))).await;
    assert_eq!(
        (status, &body[..]),
        (StatusCode::OK, &b"Hello, bindery!\n"[..])
    );
    let (status, _, _) = answer(front, request(&get("/favicon.svg"))).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the SPA is gone from the root"
    );
}

#[tokio::test]
async fn a_request_over_the_time_limit_gets_a_json_408_and_quick_ones_start_no_timer() {
    let front = app(state())
        .route(
            "/slow",
            axum::routing::get(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                "late"
            }),
        )
        .request_timeout(std::time::Duration::from_millis(50));
    let get = |uri: &str| (Method::GET, uri.to_owned(), Vec::new());
    let started = std::time::Instant::now();
    let (status, headers, body) = answer(front.clone(), request(&get("/slow"))).await;
    assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["cache-control"], "no-store");
    let json: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(json["status"], 408);
    // Answers ready at once are unaffected by the limit.
    for uri in ["/geo/8.8.8.8", "/app.js", "/healthz"] {
        assert_eq!(
            answer(front.clone(), request(&get(uri))).await.0,
            StatusCode::OK,
            "{uri}"
        );
    }
}
