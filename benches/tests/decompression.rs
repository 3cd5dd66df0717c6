//! Bounded decompression of a gzip-stored file for clients without gzip, through the public
//! service: a multi-MB file (`TEXT_GZIP`'s 4 MiB of JSON lines), ranges and whole bodies, many
//! requests at once, over a real socket and in one runtime.

use std::future::Future;
use std::task::Poll;
use std::time::{Duration, Instant};

use bindery::serve::{Decompression, ServeCatalog};
use bindery_benches::TEXT_GZIP;
use bindery_test_support::raw_request;

const FILE: &str = "/records.json";

fn records() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        TEXT_GZIP
            .get("records.json")
            .expect("the file")
            .into_owned()
    })
}

/// The service of `TEXT_GZIP` with these decompression settings.
fn with(settings: Decompression) -> ServeCatalog {
    ServeCatalog::builder(&TEXT_GZIP)
        .decompression(settings)
        .build()
        .expect("nothing named")
}

fn request(range: Option<&str>) -> http::Request<()> {
    let mut builder = http::Request::get(FILE);
    if let Some(range) = range {
        builder = builder.header("range", range);
    }
    builder.body(()).expect("request")
}

async fn body_of(service: &ServeCatalog, range: Option<&str>) -> (u16, Vec<u8>) {
    use http_body_util::BodyExt;
    let response = service.serve(&request(range)).await.expect("infallible");
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, body.to_vec())
}

#[test]
fn two_hundred_one_byte_ranges_over_a_socket_decompress_a_byte_each_within_the_bound() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = with(Decompression {
        at_once: 2,
        ..Decompression::default()
    });
    let stats = service.clone();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback_service(service);
    runtime.spawn(async move { axum::serve(listener, app).await });

    let clients: Vec<_> = (0..200)
        .map(|_| {
            std::thread::spawn(move || raw_request(address, "GET", FILE, &[("range", "bytes=0-0")]))
        })
        .collect();
    for client in clients {
        let reply = client.join().expect("client");
        assert_eq!(reply.status, 206);
        assert_eq!(reply.body, &records()[..1]);
        assert_eq!(
            reply.header("content-range"),
            Some(format!("bytes 0-0/{}", records().len()).as_str())
        );
    }
    let counted = stats.stats();
    assert!(counted.decompressions_peak <= 2, "{counted:?}");
    assert_eq!(counted.decompressions_refused, 0, "{counted:?}");
    // Each decompression stopped at the range's end: a byte each, not 4 MiB each.
    assert!(
        counted.decompressions >= 1
            && counted.decompressions + counted.decompressions_merged == 200,
        "{counted:?}"
    );
    assert_eq!(
        counted.decompressed_bytes, counted.decompressions,
        "{counted:?}"
    );

    // The whole file, after the flood, decompresses to its bytes.
    let whole = raw_request(address, "GET", FILE, &[]);
    assert_eq!(whole.status, 200);
    assert!(whole.body == records(), "the whole body, decompressed");
}

#[test]
fn requests_for_the_same_bytes_share_one_decompression() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime without a timer");
    let service = ServeCatalog::new(&TEXT_GZIP);
    let bodies = runtime.block_on(async {
        let requests = (0..50).map(|_| body_of(&service, None));
        join_all(requests).await
    });
    for (status, body) in bodies {
        assert_eq!(status, 200);
        assert!(body == records());
    }
    let counted = service.stats();
    assert_eq!(
        (counted.decompressions, counted.decompressions_merged),
        (1, 49),
        "{counted:?}"
    );
}

#[test]
fn a_range_decompresses_no_further_than_its_end() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let service = ServeCatalog::new(&TEXT_GZIP);
    let (status, body) = runtime.block_on(body_of(&service, Some("bytes=100-199")));
    assert_eq!(status, 206);
    assert_eq!(body, &records()[100..200]);
    let (status, body) = runtime.block_on(body_of(&service, Some("bytes=0-9,1000-1009")));
    assert_eq!(status, 206);
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains(std::str::from_utf8(&records()[1000..1010]).expect("ASCII")));
    assert_eq!(service.stats().decompressed_bytes, 200 + 1010);
    // Without a runtime, in place, the same bound.
    let in_place = ServeCatalog::new(&TEXT_GZIP);
    let response = in_place.respond(&request(Some("bytes=5-9")));
    assert_eq!(response.status(), 206);
    assert_eq!(in_place.stats().decompressed_bytes, 10);
}

#[test]
fn a_decompression_no_request_wants_any_more_is_abandoned() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let service = ServeCatalog::new(&TEXT_GZIP);
    runtime.block_on(async {
        let whole = request(None);
        let mut pending = Box::pin(service.serve(&whole));
        // Polled once: the decompression is asked for. Then the request goes away.
        std::future::poll_fn(|context| {
            assert!(pending.as_mut().poll(context).is_pending());
            Poll::Ready(())
        })
        .await;
        drop(pending);
        let deadline = Instant::now() + Duration::from_secs(30);
        while service.stats().decompressions_abandoned == 0 {
            assert!(Instant::now() < deadline, "never abandoned");
            tokio::task::yield_now().await;
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    let counted = service.stats();
    assert!(
        counted.decompressed_bytes < records().len() as u64,
        "{counted:?}"
    );
    assert_eq!(counted.decompressions_running, 0);
}

#[test]
fn beyond_the_queue_requests_get_503_with_retry_after() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let service = with(Decompression {
        at_once: 1,
        queue: 0,
        ..Decompression::default()
    });
    let len = records().len();
    let ranges: Vec<String> = (0..3)
        .map(|start| format!("bytes={start}-{}", len - 1 - start))
        .collect();
    let responses = runtime.block_on(async {
        let requests = ranges.iter().map(|range| async {
            let response = service
                .serve(&request(Some(range)))
                .await
                .expect("infallible");
            (
                response.status().as_u16(),
                response.headers().get("retry-after").cloned(),
                response.headers().get("cache-control").cloned(),
            )
        });
        join_all(requests).await
    });
    assert_eq!(responses[0].0, 206, "the first takes the one turn");
    for (status, retry_after, cache_control) in &responses[1..] {
        assert_eq!(*status, 503);
        assert_eq!(
            retry_after.as_ref().map(|value| value.as_bytes()),
            Some(&b"1"[..])
        );
        assert_eq!(
            cache_control.as_ref().map(|value| value.as_bytes()),
            Some(&b"no-store"[..])
        );
    }
    assert_eq!(service.stats().decompressions_refused, 2);
}

/// Polls every future in turn until all are done (no extra dependency for `join_all`).
async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<_> = futures
        .into_iter()
        .map(|future| Some(Box::pin(future)))
        .collect();
    let mut done: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|context| {
        let mut all = true;
        for (slot, output) in pending.iter_mut().zip(done.iter_mut()) {
            if let Some(future) = slot {
                match future.as_mut().poll(context) {
                    Poll::Ready(value) => {
                        *output = Some(value);
                        *slot = None;
                    }
                    Poll::Pending => all = false,
                }
            }
        }
        if all { Poll::Ready(()) } else { Poll::Pending }
    })
    .await;
    done.into_iter()
        .map(|output| output.expect("done"))
        .collect()
}
