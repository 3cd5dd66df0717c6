//! Building the app in each database mode and sending it requests.

use std::net::SocketAddr;
use std::path::Path;

use axum::body::Body;
use axum::extract::ConnectInfo;
use geo_server::db::{DbMode, GeoDb};
use geo_server::{AppState, app};
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

/// The sample database written to a file, for the modes that read files.
pub fn sample_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("sample.mmdb");
    std::fs::write(&path, geodb::SAMPLE).expect("write sample");
    path
}

/// A database in `mode` over the sample (files go in `dir`).
pub fn database(mode: DbMode, dir: &Path) -> GeoDb {
    match mode {
        DbMode::Embed => GeoDb::embedded(geodb::SAMPLE, "sample"),
        DbMode::Copy => GeoDb::copied(geodb::SAMPLE, "sample"),
        // SAFETY: the test's own file, never modified while mapped.
        DbMode::Mmap => unsafe { GeoDb::mapped(&sample_file(dir)) },
    }
    .expect("sample loads")
}

/// What came back.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Sends one request to a fresh router over `state`, from `peer`.
pub async fn send(state: &AppState, request: Request<Body>, peer: SocketAddr) -> Reply {
    let mut request = request;
    request.extensions_mut().insert(ConnectInfo(peer));
    let response = app(state.clone())
        .oneshot(request)
        .await
        .expect("infallible");
    let (parts, body) = response.into_parts();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.expect("body").to_bytes().to_vec(),
    }
}

/// GET `uri` from 127.0.0.1 with the given headers.
pub async fn get(state: &AppState, uri: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let peer: SocketAddr = "127.0.0.1:40000".parse().expect("address");
    send(state, request.body(Body::empty()).expect("request"), peer).await
}

/// Writes a small City database where `81.2.69.160/32` is in "Testville", for swap tests, or of
/// another `database_type` for wrong-type tests.
pub fn write_other_database(path: &Path, database_type: &str, city: &str) {
    let mut writer = mmdb_writer::Writer::builder(database_type)
        .description(&[("en", "geo-server test database")])
        .build_epoch(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000))
        .build();
    // Typed fields: maxminddb insists on GeoIP2's integer widths (u32 ids, u16 radius).
    #[derive(serde::Serialize)]
    struct Names<'a> {
        en: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Named<'a> {
        geoname_id: u32,
        names: Names<'a>,
    }
    #[derive(serde::Serialize)]
    struct Location {
        latitude: f64,
        longitude: f64,
        accuracy_radius: u16,
        time_zone: &'static str,
    }
    #[derive(serde::Serialize)]
    struct Record<'a> {
        city: Named<'a>,
        country: Named<'a>,
        location: Location,
    }
    let record = Record {
        city: Named {
            geoname_id: 1,
            names: Names { en: city },
        },
        country: Named {
            geoname_id: 2,
            names: Names {
                en: "United Kingdom",
            },
        },
        location: Location {
            latitude: 1.5,
            longitude: 2.5,
            accuracy_radius: 5,
            time_zone: "Europe/London",
        },
    };
    let network: ipnet::IpNet = "81.2.69.0/24".parse().expect("network");
    writer.insert(network, &record).expect("insert");
    std::fs::write(path, writer.to_bytes().expect("bytes")).expect("write");
}
