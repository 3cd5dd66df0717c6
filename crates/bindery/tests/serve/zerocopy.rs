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

/// Runs this binary's test `name` again in a child process with `BINDERY_ZEROCOPY_CHILD` set:
/// the image is read once per process, so what happens before the first use needs a process
/// of its own (under nextest and `cargo test` alike).
fn in_child(name: &str) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env("BINDERY_ZEROCOPY_CHILD", "1")
        .output()
        .expect("the child runs")
}

fn is_child() -> bool {
    std::env::var_os("BINDERY_ZEROCOPY_CHILD").is_some()
}

fn child_passed(name: &str) {
    let child = in_child(name);
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
}

#[test]
fn another_map_of_the_executable_does_not_move_the_offsets() {
    if !is_child() {
        return child_passed("zerocopy::another_map_of_the_executable_does_not_move_the_offsets");
    }
    // What a symbolizer or profiler does: map the executable itself, read-only, at offset 0,
    // below where the loader put it, before zero-copy first looks.
    let exe = std::fs::File::open("/proc/self/exe").expect("the executable");
    let mapped = (1..64usize).find_map(|gib| {
        // SAFETY: a fresh private read-only map of a file this process holds open, at an
        // address nothing uses (MAP_FIXED_NOREPLACE refuses one in use); it is never unmapped.
        let address = unsafe {
            libc::mmap(
                (gib << 30) as *mut libc::c_void,
                64 * 1024,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_FIXED_NOREPLACE,
                std::os::fd::AsRawFd::as_raw_fd(&exe),
                0,
            )
        };
        (address != libc::MAP_FAILED).then_some(address as usize)
    });
    let mapped = mapped.expect("a free address below 64 GiB");
    let loaded = check_offsets as fn(&'static bindery::Catalog) -> usize as usize;
    assert!(
        mapped < loaded,
        "the extra map lies below the image ({mapped:#x} < {loaded:#x})"
    );
    assert!(zerocopy::is_available());
    assert!(check_offsets(&STATIC) > 10);
}

#[test]
fn without_sigpipe_ignored_zero_copy_stays_off_and_a_closed_client_kills_nothing() {
    if !is_child() {
        return child_passed(
            "zerocopy::without_sigpipe_ignored_zero_copy_stays_off_and_a_closed_client_kills_nothing",
        );
    }
    // SAFETY: back to the default disposition, before any thread of this test writes anything.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    assert!(!zerocopy::is_available(), "sendfile would raise SIGPIPE");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let address = serve(&runtime, ServeCatalog::new(&VUE));
    for _ in 0..20 {
        let mut stream = std::net::TcpStream::connect(address).expect("connect");
        write!(stream, "GET /vue.min.js HTTP/1.1\r\nHost: x\r\n\r\n").expect("send");
        drop(stream); // gone before the body is written
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let reply = raw_request(address, "GET", "/vue.min.js", &[]);
    assert_eq!(reply.status, 200, "still serving");
    assert_eq!(zerocopy::stats().sendfile_calls, 0);
}

#[test]
fn a_failure_that_may_pass_is_tried_again() {
    if !is_child() {
        return child_passed("zerocopy::a_failure_that_may_pass_is_tried_again");
    }
    // No descriptor left to open the executable with: the first use fails, for now.
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` and `setrlimit` read and write a local struct of the right type.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    // The lowest free descriptor: with the limit there, every open fails.
    let lowest = std::os::fd::AsRawFd::as_raw_fd(&std::fs::File::open("/dev/null").expect("open"));
    let lowered = libc::rlimit {
        rlim_cur: u64::try_from(lowest).expect("a descriptor"),
        rlim_max: limit.rlim_max,
    };
    // SAFETY: as above.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lowered) };
    assert!(!zerocopy::is_available());
    // SAFETY: as above.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    assert!(!zerocopy::is_available(), "not before a second has passed");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert!(zerocopy::is_available(), "tried again, and it works now");
}
