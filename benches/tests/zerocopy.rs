//! Zero-copy sending of the 17 MiB file, embedded by `.incbin` (an assembler blob, not
//! `include_bytes!`): its offset in the executable is exact, and a client that reads slowly
//! gets every byte, sent by `sendfile` in many partial sends.

use std::io::{Read, Write};
use std::time::Duration;

use bindery::serve::ServeCatalog;
use bindery::zerocopy::{self, ZeroCopyListener};
use bindery_benches::{LARGE_STATIC, WEB_PRECOMPRESSED};

#[test]
fn incbin_and_include_bytes_bodies_are_at_their_offsets() {
    use std::os::unix::fs::FileExt;
    let exe = std::fs::File::open("/proc/self/exe").expect("the executable");
    for catalog in [&LARGE_STATIC, &WEB_PRECOMPRESSED] {
        for file in catalog.files() {
            let mut bodies: Vec<&[u8]> = file.raw().into_iter().collect();
            bodies.extend(
                file.encodings()
                    .filter_map(|encoding| file.encoded(encoding)),
            );
            for body in bodies {
                let offset = zerocopy::file_offset(body)
                    .unwrap_or_else(|| panic!("{} not found in the executable", file.path()));
                let mut read = vec![0u8; body.len()];
                exe.read_exact_at(&mut read, offset).expect("read");
                assert!(read == body, "{} at {offset:#x}", file.path());
            }
        }
    }
}

#[test]
fn a_slow_reader_gets_every_byte_of_17_mib_through_partial_sends() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback_service(ServeCatalog::new(&LARGE_STATIC));
    runtime.spawn(async move { axum::serve(ZeroCopyListener::new(listener), app).await });
    let raw = LARGE_STATIC.get("noise.bin").expect("the file");
    let before = zerocopy::stats();

    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    // A small receive window: the server's sends fill it and wait (EAGAIN), again and again.
    socket.set_recv_buffer_size(16 * 1024).expect("rcvbuf");
    socket.connect(&address.into()).expect("connect");
    let mut stream: std::net::TcpStream = socket.into();
    write!(
        stream,
        "GET /noise.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=5-17825791\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = Vec::with_capacity(raw.len() + 1024);
    let mut buffer = vec![0u8; 64 * 1024];
    let mut reads = 0u32;
    loop {
        let read = stream.read(&mut buffer).expect("read");
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..read]);
        reads += 1;
        if reads.is_multiple_of(16) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let body_at = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a head")
        + 4;
    assert!(answer[..body_at].starts_with(b"HTTP/1.1 206"));
    assert!(answer[body_at..] == raw[5..], "every byte, in order");
    let after = zerocopy::stats();
    assert_eq!(
        after.sendfile_bytes - before.sendfile_bytes,
        (raw.len() - 5) as u64
    );
    assert!(
        after.sendfile_calls - before.sendfile_calls > 10,
        "many partial sends: {before:?} -> {after:?}"
    );
}
