//! Delivery and memory through the geo server's connection handling and `ServeCatalog`, over
//! real sockets, with this test binary's heap counted: a download slower than the idle deadline
//! that keeps moving, slow readers of two ranges of the 17 MiB file, and one-byte ranges of a
//! gzip-stored file held by HTTP/2 streams at window 0.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bindery::serve::{Decompression, ServeCatalog};
use bindery_benches::{LARGE_STATIC, TEXT_GZIP};
use bindery_test_support::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};
use geo_server::alloc::heap_in_use;

#[global_allocator]
static ALLOCATOR: geo_server::alloc::CountingAllocator = geo_server::alloc::CountingAllocator;

/// The heap is the whole process's: tests that measure it take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const MIB: usize = 1024 * 1024;

/// A geo server with the 17 MiB file at `/large` and the 4 MiB gzip-stored JSON at `/text`.
struct Running {
    address: SocketAddr,
    text: ServeCatalog,
    _runtime: tokio::runtime::Runtime,
}

fn start(idle: Duration, text: Decompression) -> Running {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let db = geo_server::db::GeoDb::embedded(geodb::SAMPLE, "sample").expect("sample");
    let mounted = |catalog: &'static bindery::Catalog, prefix: &str, settings: Decompression| {
        ServeCatalog::builder(catalog)
            .mounted_at(prefix)
            .decompression(settings)
            .build()
            .expect("nothing named")
    };
    let text = mounted(&TEXT_GZIP, "/text", text);
    let app = geo_server::app(geo_server::AppState::new(db))
        .mount(mounted(&LARGE_STATIC, "/large", Decompression::default()))
        .mount(text.clone());
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let server = bindery::serve::Server::new(listener)
        .idle_timeout(idle)
        .header_read_timeout(Duration::from_secs(5))
        .with_graceful_shutdown(std::future::pending());
    runtime.spawn(server.serve(app.request_timeout(Duration::from_secs(30))));
    Running {
        address,
        text,
        _runtime: runtime,
    }
}

/// A connection whose receive buffer is `window` bytes: a client that reads little at a time.
fn slow_client(address: SocketAddr, window: usize) -> std::net::TcpStream {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket.set_recv_buffer_size(window).expect("rcvbuf");
    socket.connect(&address.into()).expect("connect");
    socket.into()
}

#[test]
fn a_download_slower_than_the_idle_deadline_but_moving_is_never_cut() {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let server = start(Duration::from_secs(2), Decompression::default());
    let expected = LARGE_STATIC.get("noise.bin").expect("the file");
    let mut stream = slow_client(server.address, 64 * 1024);
    write!(
        stream,
        "GET /large/noise.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    // About 3.5 MB/s: 17 MiB over 5 s, more than twice the idle deadline.
    let started = Instant::now();
    let mut answer = Vec::with_capacity(expected.len() + 1024);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = stream.read(&mut buffer).expect("read");
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..read]);
        std::thread::sleep(Duration::from_millis(18));
    }
    let took = started.elapsed();
    let body_start = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a head")
        + 4;
    assert!(
        took > Duration::from_secs(3),
        "{took:?}: the read was not slow enough to test anything"
    );
    assert_eq!(
        answer.len() - body_start,
        expected.len(),
        "cut after {took:?}"
    );
    assert!(answer[body_start..] == *expected, "the same bytes");
}

#[test]
fn twenty_slow_readers_of_two_ranges_of_the_17_mib_file_cost_no_copy_of_it() {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let server = start(Duration::from_secs(30), Decompression::default());
    // Warm: the first answer sets up what every later one shares.
    let warm = bindery_test_support::raw_request(server.address, "HEAD", "/large/noise.bin", &[]);
    assert_eq!(warm.status, 200);
    let baseline = heap_in_use();
    let mut readers = Vec::new();
    for _ in 0..20 {
        let mut stream = slow_client(server.address, 4096);
        write!(
            stream,
            "GET /large/noise.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-8388607,9437184-17825791\r\n\r\n"
        )
        .expect("send");
        let mut head = [0u8; 2048];
        let read = stream.read(&mut head).expect("read");
        let text = String::from_utf8_lossy(&head[..read]);
        assert!(
            text.starts_with("HTTP/1.1 206") && text.contains("multipart/byteranges"),
            "{text}"
        );
        // ...and then nothing more is read: the answer waits on the server.
        readers.push(stream);
    }
    std::thread::sleep(Duration::from_millis(500));
    let held = heap_in_use().saturating_sub(baseline);
    assert!(
        held <= 10 * MIB,
        "20 readers hold {} MiB of heap (one copy of the file is 17 MiB)",
        held / MIB
    );
    drop(readers);
}

#[test]
fn two_hundred_one_byte_ranges_of_a_gzip_file_stay_within_the_byte_budget() {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let budget = 16 * MIB;
    let server = start(
        Duration::from_secs(60),
        Decompression {
            at_once: 2,
            heap_budget: budget,
            // One client may hold an eighth of the queue: all 200 of this one's wait their turn.
            queue: 8 * 200,
            ..Decompression::default()
        },
    );
    let len = TEXT_GZIP.file("records.json").expect("the file").len();
    let baseline = heap_in_use();
    // Four HTTP/2 connections at window 0, 50 streams each: every answer is held unsent.
    let connections: Vec<RawH2> = (0..4)
        .map(|_| RawH2::connect(server.address, &[(INITIAL_WINDOW_SIZE, 0)]))
        .collect();
    for (index, connection) in connections.iter().enumerate() {
        for stream in 0..50 {
            let at = (index * 50 + stream) * (len / 200) + 17;
            let range = format!("bytes={at}-{at}");
            connection.request("GET", "/text/records.json", &[("range", &range)]);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while connections
        .iter()
        .map(|connection| connection.received().answered.len())
        .sum::<usize>()
        < 200
    {
        assert!(Instant::now() < deadline, "{:?}", server.text.stats());
        std::thread::sleep(Duration::from_millis(50));
    }
    let stats = server.text.stats();
    assert_eq!(
        (stats.heap_refused, stats.decompressions_refused),
        (0, 0),
        "every one served: {stats:?}"
    );
    assert!(stats.heap_peak <= budget, "{stats:?}");
    assert!(
        stats.decompressions_peak <= 2,
        "at most `at_once`: {stats:?}"
    );
    assert!(
        stats.heap_bytes <= 200,
        "the answers held are a byte each: {stats:?}"
    );
    let held = heap_in_use().saturating_sub(baseline);
    assert!(
        held <= budget,
        "200 held one-byte answers took {} MiB of heap",
        held / MIB
    );
}
