//! Brotli, zstd and gzip side by side: each client gets the smallest representation it accepts,
//! with its own ETag; the bytes decode, with the reference tools, to the file.

use std::io::Write;
use std::process::{Command, Stdio};

use bindery::serve::ServeCatalog;
use bindery::{EmbeddedFile, Encoding};
use http::StatusCode;

use crate::support::{SPA, VUE, get, repository_file};

const CHROME: &str = "gzip, deflate, br, zstd";

/// The encoding a client with `accept` gets: the one named by `Content-Encoding`, checked to be
/// the file's stored variant with its own ETag and length.
async fn negotiated(
    service: &ServeCatalog,
    file: &EmbeddedFile,
    accept: Option<&str>,
) -> Option<Encoding> {
    let path = format!("/{}", file.path());
    let headers: Vec<(&str, &str)> = accept
        .map(|value| ("accept-encoding", value))
        .into_iter()
        .collect();
    let reply = get(service, &path, &headers).await;
    assert_eq!(reply.status, StatusCode::OK, "{path} {accept:?}");
    assert_eq!(reply.header("vary"), "accept-encoding", "{path}");
    assert_eq!(reply.header("content-length"), reply.body.len().to_string());
    let encoding = match reply.header("content-encoding") {
        "" => None,
        "br" => Some(Encoding::Br),
        "zstd" => Some(Encoding::Zstd),
        "gzip" => Some(Encoding::Gzip),
        other => panic!("{path}: unexpected content-encoding {other}"),
    };
    match encoding {
        Some(encoding) => {
            assert_eq!(
                Some(&reply.body[..]),
                file.encoded(encoding),
                "{path} {encoding}"
            );
            assert_eq!(Some(reply.header("etag")), file.encoded_etag(encoding));
        }
        None => {
            assert_eq!(reply.body, file.contents().expect("decodes")[..], "{path}");
            assert_eq!(reply.header("etag"), file.etag());
        }
    }
    encoding
}

/// The smallest variant the file has among `accepted`.
fn smallest(file: &EmbeddedFile, accepted: &[Encoding]) -> Encoding {
    accepted
        .iter()
        .copied()
        .filter_map(|encoding| Some((file.encoded(encoding)?.len(), encoding)))
        .min()
        .expect("the file has a variant")
        .1
}

#[tokio::test]
async fn chrome_gets_the_smallest_variant_of_every_file() {
    for catalog in [&SPA, &VUE] {
        let service = ServeCatalog::new(catalog);
        for file in catalog {
            if file.encodings().next().is_none() {
                continue;
            }
            let got = negotiated(&service, file, Some(CHROME)).await;
            assert_eq!(got, Some(smallest(file, &Encoding::ALL)), "{}", file.path());
        }
    }
}

#[tokio::test]
async fn each_header_gets_what_it_asks_for() {
    let service = ServeCatalog::new(&SPA);
    let script = SPA.file("app.js").expect("app.js");
    assert_eq!(script.encodings().count(), 3, "the script has all three");
    for (accept, expected) in [
        (Some("gzip"), Some(Encoding::Gzip)),
        (Some("br;q=0, gzip"), Some(Encoding::Gzip)),
        (Some("zstd"), Some(Encoding::Zstd)),
        (Some("br"), Some(Encoding::Br)),
        (Some("gzip, zstd;q=0.5"), Some(Encoding::Gzip)),
        (Some("*"), Some(smallest(script, &Encoding::ALL))),
        (Some("*;q=0.5, gzip"), Some(Encoding::Gzip)),
        (Some("identity"), None),
        (Some("identity;q=0"), None),
        (Some("deflate"), None),
        (Some(""), None),
        (None, None),
    ] {
        assert_eq!(
            negotiated(&service, script, accept).await,
            expected,
            "{accept:?}"
        );
    }
}

#[tokio::test]
async fn a_range_request_gets_identity_bytes() {
    let service = ServeCatalog::new(&SPA);
    let reply = get(
        &service,
        "/app.js",
        &[("accept-encoding", CHROME), ("range", "bytes=0-99")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(reply.header("content-encoding"), "");
    assert_eq!(reply.body, repository_file("assets/spa/app.js")[..100]);
}

#[tokio::test]
async fn every_representation_has_its_own_etag_and_a_304_answers_only_its_own() {
    let service = ServeCatalog::new(&SPA);
    let script = SPA.file("app.js").expect("app.js");
    let mut tags = vec![(None, script.etag())];
    for encoding in Encoding::ALL {
        tags.push((
            Some(encoding),
            script.encoded_etag(encoding).expect("variant"),
        ));
    }
    let mut distinct: Vec<&str> = tags.iter().map(|(_, tag)| *tag).collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{tags:?}");

    for (asked, _) in &tags {
        let accept = asked.map_or("identity", Encoding::as_str);
        for (tagged, tag) in &tags {
            let reply = get(
                &service,
                "/app.js",
                &[("accept-encoding", accept), ("if-none-match", tag)],
            )
            .await;
            if asked == tagged {
                assert_eq!(reply.status, StatusCode::NOT_MODIFIED, "{accept} {tag}");
                assert_eq!(reply.header("etag"), *tag);
                assert!(reply.body.is_empty());
            } else {
                assert_eq!(reply.status, StatusCode::OK, "{accept} with {tag}");
            }
        }
    }
}

#[tokio::test]
async fn head_names_the_variant_without_a_body() {
    let service = ServeCatalog::new(&SPA);
    let script = SPA.file("app.js").expect("app.js");
    let request = http::Request::head("/app.js")
        .header("accept-encoding", "br")
        .body(())
        .expect("request");
    let reply = crate::support::send(&service, request).await;
    assert_eq!(reply.header("content-encoding"), "br");
    assert_eq!(
        reply.header("content-length"),
        script.encoded(Encoding::Br).expect("br").len().to_string()
    );
    assert!(reply.body.is_empty());
}

#[test]
fn chrome_receives_a_fraction_of_the_gzip_bytes() {
    for (catalog, path, at_most) in [(&SPA, "world.svg", 0.7), (&VUE, "vue.min.js", 0.93)] {
        let file = catalog.file(path).expect("file");
        let gzip = file.encoded(Encoding::Gzip).expect("gzip").len() as f64;
        let sent = file
            .encoded(smallest(file, &Encoding::ALL))
            .expect("variant")
            .len() as f64;
        assert!(
            sent <= at_most * gzip,
            "{path}: {sent} bytes sent against {gzip} gzip bytes (ratio {:.3}, at most {at_most})",
            sent / gzip
        );
    }
}

/// Runs a reference decoder (Debian's `brotli`, `zstd`, `gzip`) on `bytes`.
fn reference_decode(program: &str, bytes: &[u8]) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(["-d", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| {
            panic!(
                "`{program}` is needed to check variants with a decoder independent of bindery's \
                 encoders: `apt-get install brotli zstd gzip` (cargo xtask ci does): {error}"
            )
        });
    let mut stdin = child.stdin.take().expect("stdin");
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("decoder runs");
    writer.join().expect("writer").expect("input written");
    assert!(
        output.status.success(),
        "{program} -d failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

#[test]
fn every_variant_decodes_to_the_file_with_the_reference_tools() {
    if !bindery_test_support::slow_test(
        "bindery",
        "every_variant_decodes_to_the_file_with_the_reference_tools",
        "needs the brotli and zstd command-line tools",
    ) {
        return;
    }
    let mut checked = 0;
    for (catalog, folder) in [(&SPA, "assets/spa"), (&VUE, "benches/assets/web")] {
        for file in catalog {
            let source = repository_file(&format!("{folder}/{}", file.path()));
            for encoding in file.encodings() {
                let program = match encoding {
                    Encoding::Br => "brotli",
                    Encoding::Zstd => "zstd",
                    Encoding::Gzip => "gzip",
                };
                let bytes = file.encoded(encoding).expect("listed");
                let decoded = reference_decode(program, bytes);
                assert!(decoded == source, "{} {encoding}", file.path());
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "{checked} variants checked");
}
