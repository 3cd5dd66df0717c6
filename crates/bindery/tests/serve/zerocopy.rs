//! Zero-copy sending through a real socket: every body that goes by `sendfile` is the embedded
//! bytes (whole, ranges, variants, pipelined, over HTTP/2), HEAD and 304 send none, and bytes
//! that are not in the executable's read-only data never go by it. The 17 MiB `.incbin` file
//! and a slow reader are in `benches/tests/zerocopy.rs`.

use std::io::{Read, Write};
use std::net::SocketAddr;

use bindery::Encoding;
use bindery::serve::ServeCatalog;
use bindery::zerocopy::{self, ZeroCopyListener};
use bindery_test_support::raw_request;

use crate::support::{COPY, STATIC, VUE};

/// Every file of `catalog`, and every variant, read back from the executable at the offset
/// `file_offset` gives: the mapping from memory to file is exact.
fn check_offsets(catalog: &'static bindery::Catalog) -> usize {
    use std::os::unix::fs::FileExt;
    let exe = std::fs::File::open("/proc/self/exe").expect("the executable");
    let mut checked = 0;
    for file in catalog.files() {
        let mut bodies: Vec<&[u8]> = file.raw().into_iter().collect();
        bodies.extend(
            file.encodings()
                .filter_map(|encoding| file.encoded(encoding)),
        );
        for body in bodies.into_iter().filter(|body| !body.is_empty()) {
            let offset = zerocopy::file_offset(body)
                .unwrap_or_else(|| panic!("{} is not found in the executable", file.path()));
            let mut read = vec![0u8; body.len()];
            exe.read_exact_at(&mut read, offset).expect("read");
            assert!(read == body, "{} at {offset:#x}", file.path());
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_embedded_body_is_at_its_offset_in_the_executable() {
    assert!(zerocopy::is_available());
    assert!(check_offsets(&STATIC) > 10);
    assert!(
        check_offsets(&VUE) >= 4,
        "vue.min.js and its br, zstd, gzip variants"
    );
    // Heap, stack and writable data are never taken for embedded bytes.
    let heap = STATIC.files()[0].contents().expect("bytes").into_owned();
    assert_eq!(zerocopy::file_offset(&heap), None);
    let stack = [7u8; 64];
    assert_eq!(zerocopy::file_offset(&stack), None);
    static mut WRITABLE: [u8; 32] = [1; 32];
    // SAFETY: read once, never written; only its address matters.
    let writable = unsafe { &*std::ptr::addr_of!(WRITABLE) };
    assert_eq!(zerocopy::file_offset(writable), None);
    // A copy-mode catalog's bytes are still in the binary, but its bodies are heap copies.
    assert!(COPY.files().iter().all(|file| file.raw().is_some()));
}

/// Serves `service` through the zero-copy listener on a free port.
fn serve(runtime: &tokio::runtime::Runtime, service: ServeCatalog) -> SocketAddr {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback_service(service);
    // vue.min.js (105 KiB) is under the 1 MiB default: send it by `sendfile` all the same.
    let listener = ZeroCopyListener::new(listener).threshold(16 * 1024);
    runtime.spawn(async move { axum::serve(listener, app).await });
    address
}

fn vue() -> &'static bindery::EmbeddedFile {
    VUE.file("vue.min.js").expect("the file")
}

#[test]
fn bodies_sent_by_sendfile_are_the_embedded_bytes_and_the_path_is_taken() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let address = serve(&runtime, ServeCatalog::new(&VUE));
    let raw = vue().raw().expect("static");
    let before = zerocopy::stats();

    let whole = raw_request(address, "GET", "/vue.min.js", &[]);
    assert_eq!(whole.status, 200);
    assert!(whole.body == raw, "the whole file");
    let after_whole = zerocopy::stats();
    assert!(
        after_whole.sendfile_bytes - before.sendfile_bytes >= raw.len() as u64,
        "{before:?} -> {after_whole:?}"
    );

    let range = raw_request(
        address,
        "GET",
        "/vue.min.js",
        &[("range", "bytes=1000-60999")],
    );
    assert_eq!(range.status, 206);
    assert!(range.body == raw[1000..61000], "the range");

    let brotli = vue().encoded(Encoding::Br).expect("a br variant");
    let encoded = raw_request(address, "GET", "/vue.min.js", &[("accept-encoding", "br")]);
    assert_eq!(encoded.header("content-encoding"), Some("br"));
    assert!(encoded.body == brotli, "the variant as stored");

    let head = raw_request(address, "HEAD", "/vue.min.js", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    let not_modified = raw_request(
        address,
        "GET",
        "/vue.min.js",
        &[("if-none-match", vue().etag())],
    );
    assert_eq!(not_modified.status, 304);
    assert!(not_modified.body.is_empty());

    let sent = zerocopy::stats().sendfile_bytes - before.sendfile_bytes;
    assert_eq!(
        sent,
        (raw.len() + 60_000 + brotli.len()) as u64,
        "every body by sendfile, nothing else"
    );
}

#[test]
fn pipelined_requests_get_their_answers_in_order() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let address = serve(&runtime, ServeCatalog::new(&VUE));
    let raw = vue().raw().expect("static");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .write_all(
            b"GET /vue.min.js HTTP/1.1\r\nHost: x\r\n\r\n\
              GET /vue.min.js HTTP/1.1\r\nHost: x\r\nRange: bytes=0-19999\r\n\r\n\
              GET /vue.min.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("read");
    let mut rest = &answer[..];
    for expected in [raw, &raw[..20_000], raw] {
        let head_end = rest
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .expect("a head")
            + 4;
        let head = String::from_utf8_lossy(&rest[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .and_then(|value| value.trim().parse().ok())
            .expect("content-length");
        assert_eq!(length, expected.len());
        assert!(rest[head_end..head_end + length] == *expected);
        rest = &rest[head_end + length..];
    }
    assert!(rest.is_empty());
}

#[test]
fn http2_over_the_zero_copy_stream_is_unchanged() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let address = serve(&runtime, ServeCatalog::new(&VUE));
    let raw = vue().raw().expect("static");
    let body = runtime.block_on(async {
        let tcp = tokio::net::TcpStream::connect(address)
            .await
            .expect("connect");
        let (mut client, connection) = h2::client::handshake(tcp).await.expect("h2");
        tokio::spawn(connection);
        let request = http::Request::get(format!("http://{address}/vue.min.js"))
            .body(())
            .expect("request");
        let (response, _) = client.send_request(request, true).expect("send");
        let response = response.await.expect("answer");
        assert_eq!(response.status(), 200);
        let mut body = response.into_body();
        let mut bytes = Vec::new();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.expect("data");
            let _ = body.flow_control().release_capacity(chunk.len());
            bytes.extend_from_slice(&chunk);
        }
        bytes
    });
    assert!(body == raw, "HTTP/2 bodies are the file's bytes");
}

#[test]
fn heap_bodies_never_go_by_sendfile() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let address = serve(&runtime, ServeCatalog::new(&COPY));
    let before = zerocopy::stats();
    let file = COPY
        .files()
        .iter()
        .max_by_key(|file| file.len())
        .expect("a file");
    let reply = raw_request(address, "GET", &format!("/{}", file.path()), &[]);
    assert_eq!(reply.status, 200);
    assert!(reply.body == *file.contents().expect("bytes"));
    let after = zerocopy::stats();
    assert_eq!(
        after.sendfile_bytes, before.sendfile_bytes,
        "copy mode sends heap copies"
    );
    assert!(after.plain_writes > before.plain_writes);
}
