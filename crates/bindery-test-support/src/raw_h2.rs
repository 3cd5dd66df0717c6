//! A raw HTTP/2 client (prior knowledge, cleartext): frames written and read by hand over a
//! plain socket, so a test decides every setting and window itself, as an attacker would, with
//! no library hiding frames or answering for it. It acknowledges the server's SETTINGS and
//! PINGs (a peer that does not is closed for that) and records what comes back.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// `SETTINGS_INITIAL_WINDOW_SIZE`, the setting that holds every stream's answer at window 0.
pub const INITIAL_WINDOW_SIZE: u16 = 0x4;
/// `SETTINGS_MAX_CONCURRENT_STREAMS`.
pub const MAX_CONCURRENT_STREAMS: u16 = 0x3;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
/// `CANCEL`, the error code a client resets a stream with.
const CANCEL: u32 = 0x8;

/// What the server has sent so far.
#[derive(Debug, Default, Clone)]
pub struct Received {
    /// Streams a HEADERS frame came on (an answer began).
    pub answered: Vec<u32>,
    /// DATA bytes received, by stream.
    pub data: BTreeMap<u32, usize>,
    /// Streams the server reset.
    pub reset: Vec<u32>,
    /// Whether a GOAWAY came.
    pub goaway: bool,
    /// The last stream id of the last GOAWAY.
    pub goaway_last_stream: Option<u32>,
    /// PINGs the server sent (not acknowledgements).
    pub pings: usize,
    /// Whether the server sent its SETTINGS: it speaks HTTP/2.
    pub settings: bool,
    /// When the connection ended (EOF or an error), from the connect.
    pub closed_after: Option<Duration>,
}

struct Shared {
    received: Mutex<Received>,
    changed: Condvar,
    /// Whether the server's PINGs are acknowledged (a peer must; a hostile one may not).
    acks_pings: std::sync::atomic::AtomicBool,
}

/// One raw HTTP/2 connection.
///
/// ```no_run
/// use bindery_test_support::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};
/// let connection = RawH2::connect("127.0.0.1:8080".parse().unwrap(), &[(INITIAL_WINDOW_SIZE, 0)]);
/// let stream = connection.request("GET", "/world.svg", &[("range", "bytes=0-0,2-")]);
/// connection.request("HEAD", "/healthz", &[]);
/// assert!(connection.wait_closed(std::time::Duration::from_secs(10)).is_some());
/// # let _ = stream;
/// ```
pub struct RawH2 {
    writer: Mutex<TcpStream>,
    next_stream: Mutex<u32>,
    shared: Arc<Shared>,
}

impl RawH2 {
    /// Connects, sends the preface and a SETTINGS frame of `settings` (id, value).
    pub fn connect(address: SocketAddr, settings: &[(u16, u32)]) -> RawH2 {
        Self::connect_from(address, None, settings)
    }

    /// [`connect`](Self::connect) from a local address of the caller's choice (another
    /// loopback address, `127.0.0.2`, is another client).
    pub fn connect_from(
        address: SocketAddr,
        local: Option<std::net::IpAddr>,
        settings: &[(u16, u32)],
    ) -> RawH2 {
        Self::try_connect_from(address, local, settings).expect("connect")
    }

    /// [`connect_from`](Self::connect_from), failing instead of panicking: for tools.
    pub fn try_connect_from(
        address: SocketAddr,
        local: Option<std::net::IpAddr>,
        settings: &[(u16, u32)],
    ) -> std::io::Result<RawH2> {
        let stream = crate::try_connect_from(address, local)?;
        let _ = stream.set_nodelay(true);
        let mut payload = Vec::new();
        for (id, value) in settings {
            payload.extend_from_slice(&id.to_be_bytes());
            payload.extend_from_slice(&value.to_be_bytes());
        }
        let mut opening = PREFACE.to_vec();
        opening.extend(frame(SETTINGS, 0, 0, &payload));
        (&stream).write_all(&opening)?;
        let shared = Arc::new(Shared {
            received: Mutex::new(Received::default()),
            changed: Condvar::new(),
            acks_pings: std::sync::atomic::AtomicBool::new(true),
        });
        let reader = stream.try_clone()?;
        let writer = stream.try_clone()?;
        let listener = Arc::clone(&shared);
        std::thread::spawn(move || read_frames(reader, writer, &listener, Instant::now()));
        Ok(RawH2 {
            writer: Mutex::new(stream),
            next_stream: Mutex::new(1),
            shared,
        })
    }

    /// Opens a stream with a request (`:authority` test, `:scheme` http) and no body; its id.
    /// A write to a connection the server closed is ignored: [`received`](Self::received)
    /// tells.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> u32 {
        let mut block = Vec::new();
        for (name, value) in [
            (":method", method),
            (":scheme", "http"),
            (":path", path),
            (":authority", "test"),
        ]
        .iter()
        .chain(headers)
        {
            literal(&mut block, name, value);
        }
        let id = self.next_id();
        self.send(&frame(HEADERS, END_HEADERS | END_STREAM, id, &block));
        id
    }

    /// Opens a stream whose header block never ends: a HEADERS frame without END_HEADERS (a
    /// CONTINUATION should follow); its id.
    pub fn open_header_block(&self, path: &str) -> u32 {
        let mut block = Vec::new();
        for (name, value) in [
            (":method", "GET"),
            (":scheme", "http"),
            (":path", path),
            (":authority", "test"),
        ] {
            literal(&mut block, name, value);
        }
        let id = self.next_id();
        self.send(&frame(HEADERS, END_STREAM, id, &block));
        id
    }

    /// Ends a header block [`open_header_block`](Self::open_header_block) left open.
    pub fn end_header_block(&self, stream: u32) {
        self.send(&frame(CONTINUATION, END_HEADERS, stream, &[]));
    }

    /// Resets `stream` (RST_STREAM, CANCEL).
    pub fn reset(&self, stream: u32) {
        self.send(&frame(RST_STREAM, 0, stream, &CANCEL.to_be_bytes()));
    }

    /// From now on, the server's PINGs go unanswered (as a hostile client's would).
    pub fn stop_acking_pings(&self) {
        self.shared
            .acks_pings
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    fn next_id(&self) -> u32 {
        let mut next = self
            .next_stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let id = *next;
        *next += 2;
        id
    }

    /// Lets the server send `increment` more bytes on `stream` (0: the connection).
    pub fn window_update(&self, stream: u32, increment: u32) {
        self.send(&frame(WINDOW_UPDATE, 0, stream, &increment.to_be_bytes()));
    }

    fn send(&self, bytes: &[u8]) {
        let writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = (&*writer).write_all(bytes);
    }

    /// What the server sent so far.
    pub fn received(&self) -> Received {
        self.shared
            .received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits up to `patience` for the server to close the connection; how long after the
    /// connect it did, or `None`.
    pub fn wait_closed(&self, patience: Duration) -> Option<Duration> {
        let deadline = Instant::now() + patience;
        let mut received = self
            .shared
            .received
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        loop {
            if received.closed_after.is_some() {
                return received.closed_after;
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            received = self
                .shared
                .changed
                .wait_timeout(received, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for RawH2 {
    /// Closes the connection (the reader's copy of the socket would keep it open).
    fn drop(&mut self) {
        let writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writer.shutdown(std::net::Shutdown::Both);
    }
}

/// A frame: 9 bytes of header (length, type, flags, stream), then `payload`.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).expect("small frame");
    let mut out = length.to_be_bytes()[1..].to_vec();
    out.extend([kind, flags]);
    out.extend((stream & 0x7fff_ffff).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// An HPACK "literal header field without indexing, new name" (RFC 7541 §6.2.2), no Huffman.
fn literal(block: &mut Vec<u8>, name: &str, value: &str) {
    block.push(0);
    for text in [name, value] {
        integer(block, text.len());
        block.extend_from_slice(text.as_bytes());
    }
}

/// An HPACK integer with a 7-bit prefix and the Huffman bit clear (RFC 7541 §5.1).
fn integer(block: &mut Vec<u8>, mut value: usize) {
    if value < 127 {
        block.push(value as u8);
        return;
    }
    block.push(127);
    value -= 127;
    while value >= 128 {
        block.push((value % 128 + 128) as u8);
        value /= 128;
    }
    block.push(value as u8);
}

/// Reads frames until the connection ends, answering SETTINGS and PING as a peer must.
fn read_frames(mut reader: TcpStream, mut writer: TcpStream, shared: &Shared, started: Instant) {
    let mut header = [0u8; 9];
    loop {
        if reader.read_exact(&mut header).is_err() {
            break;
        }
        let length = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
        let (kind, flags) = (header[3], header[4]);
        let stream = u32::from_be_bytes([header[5], header[6], header[7], header[8]]) & 0x7fff_ffff;
        let mut payload = vec![0u8; length];
        if reader.read_exact(&mut payload).is_err() {
            break;
        }
        let acks_pings = shared.acks_pings.load(std::sync::atomic::Ordering::Relaxed);
        let reply = match (kind, flags & ACK) {
            (SETTINGS, 0) => Some(frame(SETTINGS, ACK, 0, &[])),
            (PING, 0) if acks_pings => Some(frame(PING, ACK, 0, &payload)),
            _ => None,
        };
        if let Some(reply) = reply {
            let _ = writer.write_all(&reply);
        }
        let mut received = shared
            .received
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match kind {
            DATA => *received.data.entry(stream).or_default() += length,
            HEADERS => received.answered.push(stream),
            RST_STREAM => received.reset.push(stream),
            GOAWAY => {
                received.goaway = true;
                received.goaway_last_stream = payload.get(..4).map(|last| {
                    u32::from_be_bytes([last[0], last[1], last[2], last[3]]) & 0x7fff_ffff
                });
            }
            PING if flags & ACK == 0 => received.pings += 1,
            SETTINGS => received.settings = true,
            _ => {}
        }
        shared.changed.notify_all();
    }
    let mut received = shared
        .received
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    received.closed_after = Some(started.elapsed());
    shared.changed.notify_all();
}

#[cfg(test)]
mod tests {
    use super::{frame, integer, literal};

    #[test]
    fn frames_and_literals_are_encoded_as_the_rfcs_say() {
        assert_eq!(frame(4, 1, 0, &[]), [0, 0, 0, 4, 1, 0, 0, 0, 0]);
        assert_eq!(
            frame(8, 0, 3, &[0, 0, 0, 9])[..9],
            [0, 0, 4, 8, 0, 0, 0, 0, 3]
        );
        let mut block = Vec::new();
        literal(&mut block, ":path", "/");
        assert_eq!(block, b"\x00\x05:path\x01/");
        // RFC 7541 C.1.2: 1337 with a 5-bit prefix is 31, 154, 10; with 7 bits, 127 then the rest.
        let mut long = Vec::new();
        integer(&mut long, 1337);
        assert_eq!(long, [127, 186, 9]);
    }
}
