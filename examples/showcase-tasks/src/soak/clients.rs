//! The clients a soak runs beside its well-behaved load, each kind on threads of its own until
//! told to stop, each counting what it saw:
//!
//! - openings: connections that send one byte (`P`, `G`), an HTTP/2 preface, a preface and a
//!   SETTINGS frame, or a request head one byte every 500 ms, then wait: closed at the header
//!   deadline;
//! - window-0 holders: HTTP/2 connections (a raw client) whose streams are held at window 0,
//!   with a `HEAD` every second: closed at the idle deadline;
//! - slow range readers: two ranges of the SPA's map read 2 KiB at a time: well-behaved and
//!   slow, every answer complete;
//! - a hog from another address (127.0.0.2) holding more keep-alive connections than its share:
//!   the cap closes its idle ones, nobody else is refused;
//! - spoofers: `/geo/me` with a forged `X-Forwarded-For` from a peer that is no trusted proxy.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bindery_test_support::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};

use super::{HEADER_TIMEOUT, HOG, IDLE_TIMEOUT, OPENINGS, SLOW_READERS, WINDOW_ZERO};

/// What one kind of client saw.
#[derive(Debug, Default)]
pub struct Tally {
    pub opened: AtomicU64,
    /// Closed by the server in time (hostile kinds), or answered in full (well-behaved ones).
    pub ok: AtomicU64,
    /// Outlived its deadline (hostile), or cut short or refused (well-behaved).
    pub bad: AtomicU64,
    /// The longest a connection lived, in milliseconds.
    pub longest_ms: AtomicU64,
    /// The slowest handshake, in milliseconds (where a kind times it): a second or more is a
    /// SYN the server's backlog dropped.
    pub slowest_connect_ms: AtomicU64,
}

impl Tally {
    fn count(&self, ok: bool, lived: Duration) {
        let counter = if ok { &self.ok } else { &self.bad };
        counter.fetch_add(1, Ordering::Relaxed);
        self.longest_ms
            .fetch_max(lived.as_millis() as u64, Ordering::Relaxed);
    }
}

/// Every kind's tally.
#[derive(Debug, Default)]
pub struct Tallies {
    pub openings: Tally,
    pub window_zero: Tally,
    pub slow_readers: Tally,
    /// The hog's connections: opened, and closed by the server (`ok`).
    pub hog: Tally,
    /// Spoofed `/geo/me` sent (`opened`), and believed (`bad`).
    pub spoofs: Tally,
}

/// The running clients.
pub struct Clients {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Clients {
    /// Starts every kind against `address`, counting into `tallies`.
    pub fn start(address: SocketAddr, tallies: &Arc<Tallies>) -> Clients {
        let stop = Arc::new(AtomicBool::new(false));
        let tallies = Arc::clone(tallies);
        let mut threads = Vec::new();
        let mut spawn = |work: fn(SocketAddr, usize, &Tallies), index: usize| {
            let (stop, tallies) = (Arc::clone(&stop), Arc::clone(&tallies));
            threads.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    work(address, index, &tallies);
                }
            }));
        };
        for index in 0..OPENINGS {
            spawn(opening, index);
        }
        for index in 0..WINDOW_ZERO {
            spawn(window_zero, index);
        }
        for index in 0..SLOW_READERS {
            spawn(slow_ranges, index);
        }
        spawn(spoof, 0);
        let (stop_hog, hog_tallies) = (Arc::clone(&stop), Arc::clone(&tallies));
        threads.push(std::thread::spawn(move || {
            hog(address, &stop_hog, &hog_tallies)
        }));
        Clients { stop, threads }
    }

    /// Stops every client and waits for them: their connections are closed when it returns.
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

/// One connection that opens (kind by `index`) and then waits, until the server closes it.
fn opening(address: SocketAddr, index: usize, tallies: &Tallies) {
    let deadline = Duration::from_secs(HEADER_TIMEOUT + 1);
    let connecting = Instant::now();
    let Ok(mut stream) = TcpStream::connect(address) else {
        std::thread::sleep(Duration::from_millis(100));
        return;
    };
    // The server's deadline runs from its accept: the handshake before it is timed apart.
    let started = Instant::now();
    tallies
        .openings
        .slowest_connect_ms
        .fetch_max((started - connecting).as_millis() as u64, Ordering::Relaxed);
    tallies.openings.opened.fetch_add(1, Ordering::Relaxed);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let opened = match index % 5 {
        0 => stream.write_all(b"P"),
        1 => stream.write_all(b"G"),
        2 => stream.write_all(PREFACE),
        3 => stream
            .write_all(PREFACE)
            .and_then(|()| stream.write_all(SETTINGS)),
        _ => Ok(()),
    };
    let dribble = b"GET /geo/8.8.8.8 HTTP/1.1\r\nHost: slowloris\r\nX-Pad: ";
    let mut buffer = [0u8; 4096];
    let mut sent = 0;
    while opened.is_ok() && started.elapsed() < deadline + Duration::from_secs(5) {
        if index % 5 == 4 {
            // Slowloris: a byte of a head that never ends, every 500 ms.
            let byte = dribble.get(sent).copied().unwrap_or(b'a');
            if stream.write_all(&[byte]).is_err() {
                break;
            }
            sent += 1;
        }
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error) if is_timeout(&error) => {}
            Err(_) => break,
        }
    }
    let lived = started.elapsed();
    tallies.openings.count(lived <= deadline, lived);
}

fn is_timeout(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// One HTTP/2 connection at window 0: 20 answers held, a `HEAD` every second, until the
/// server closes it (at the idle deadline from the held streams' start, whatever the `HEAD`s).
fn window_zero(address: SocketAddr, _: usize, tallies: &Tallies) {
    let deadline = Duration::from_secs(IDLE_TIMEOUT + 2);
    let Ok(connection) = RawH2::try_connect_from(address, None, &[(INITIAL_WINDOW_SIZE, 0)]) else {
        std::thread::sleep(Duration::from_millis(100));
        return;
    };
    tallies.window_zero.opened.fetch_add(1, Ordering::Relaxed);
    for _ in 0..20 {
        connection.request("GET", "/world.svg", &[("range", "bytes=0-0,2-")]);
    }
    let started = Instant::now();
    loop {
        if let Some(closed) = connection.wait_closed(Duration::from_secs(1)) {
            tallies.window_zero.count(closed <= deadline, closed);
            return;
        }
        if started.elapsed() > deadline + Duration::from_secs(5) {
            tallies.window_zero.count(false, started.elapsed());
            return;
        }
        connection.request("HEAD", "/healthz", &[]);
    }
}

/// One slow reader of two ranges of the map (76 KB): 2 KiB every 50 ms through a small
/// receive window; the answer must come whole.
fn slow_ranges(address: SocketAddr, _: usize, tallies: &Tallies) {
    let started = Instant::now();
    let complete = read_slowly(address, tallies).unwrap_or(false);
    tallies.slow_readers.count(complete, started.elapsed());
    if !complete {
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn read_slowly(address: SocketAddr, tallies: &Tallies) -> std::io::Result<bool> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.set_recv_buffer_size(4096)?;
    socket.connect_timeout(&address.into(), Duration::from_secs(5))?;
    let mut stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(Duration::from_secs(IDLE_TIMEOUT * 2)))?;
    tallies.slow_readers.opened.fetch_add(1, Ordering::Relaxed);
    let head = "GET /world.svg HTTP/1.1\r\nHost: soak\r\nRange: bytes=0-9999,20000-\r\nConnection: close\r\n\r\n";
    stream.write_all(head.as_bytes())?;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 2048];
    loop {
        let read = stream.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..read]);
        std::thread::sleep(Duration::from_millis(50));
    }
    let Some(split) = answer.windows(4).position(|window| window == b"\r\n\r\n") else {
        return Ok(false);
    };
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok());
    Ok(head.starts_with("http/1.1 206") && length == Some(answer.len() - split - 4))
}

/// The hog, from 127.0.0.2: [`HOG`] keep-alive connections, each sending a `HEAD` every two
/// seconds; a connection the server closed (to make room) is counted and opened again.
fn hog(address: SocketAddr, stop: &AtomicBool, tallies: &Tallies) {
    let source = "127.0.0.2".parse().ok();
    let mut held: Vec<Option<TcpStream>> = (0..HOG).map(|_| None).collect();
    while !stop.load(Ordering::Relaxed) {
        for slot in &mut held {
            if slot.is_none() {
                let Ok(stream) = bindery_test_support::try_connect_from(address, source) else {
                    continue;
                };
                let _ = stream.set_nonblocking(true);
                tallies.hog.opened.fetch_add(1, Ordering::Relaxed);
                *slot = Some(stream);
            }
            let Some(stream) = slot else { continue };
            let mut buffer = [0u8; 4096];
            let closed = loop {
                match stream.read(&mut buffer) {
                    Ok(0) => break true,
                    Ok(_) => {}
                    Err(error) if is_timeout(&error) => break false,
                    Err(_) => break true,
                }
            };
            let head = b"HEAD /healthz HTTP/1.1\r\nHost: hog\r\n\r\n";
            if closed || stream.write_all(head).is_err() {
                tallies.hog.count(true, Duration::ZERO);
                *slot = None;
            }
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// One spoofed `/geo/me` from a peer outside the trusted ranges: the answer must be for the
/// peer, never for the forged addresses.
fn spoof(address: SocketAddr, _: usize, tallies: &Tallies) {
    let forged = [("X-Forwarded-For", "8.8.8.8, 203.0.113.7:51234")];
    if let Ok(reply) =
        bindery_test_support::try_raw_request(address, None, "GET", "/geo/me", &forged)
    {
        tallies.spoofs.opened.fetch_add(1, Ordering::Relaxed);
        let text = reply.text();
        if text.contains("8.8.8.8") || text.contains("203.0.113.7") {
            tallies.spoofs.bad.fetch_add(1, Ordering::Relaxed);
        }
    }
    std::thread::sleep(Duration::from_millis(200));
}
