//! Hostile clients against a server process on loopback, all at once, and what they got: the
//! same attack for bindery's `Server`, plain `axum::serve`, actix-web and rocket (the test that
//! holds the library's server to its deadlines, and `cargo xtask bench-hostile`).
//!
//! - connections that send one byte of a request head every few seconds (from a few addresses);
//! - HTTP/2 connections whose streams are held at window 0 (two-range requests), with a `HEAD`
//!   every few seconds on each;
//! - slow readers of a large file, a kilobyte a second each;
//! - one client opening more keep-alive connections than the server has descriptors;
//! - and a normal client from an address of its own, one request at a time throughout.
//!
//! The server's RSS is read from `/proc` before, during and after.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::raw_h2::{INITIAL_WINDOW_SIZE, RawH2};

/// What the attack sends, and where.
#[derive(Debug, Clone)]
pub struct Attack {
    /// Connections that send a byte of a request head every [`slow_header_every`](Self::slow_header_every).
    pub slow_headers: usize,
    /// How often each of them sends its next byte.
    pub slow_header_every: Duration,
    /// Loopback addresses they come from (127.0.1.1, 127.0.1.2, …), shared out evenly.
    pub slow_header_sources: usize,
    /// HTTP/2 connections whose streams are held at window 0.
    pub window_zero: usize,
    /// Streams each opens (a server refuses those past its limit).
    pub window_zero_streams: usize,
    /// The paths their streams ask two ranges of, taken in turn by connection.
    pub window_zero_paths: Vec<String>,
    /// How often each sends a `HEAD` of [`normal_path`](Self::normal_path).
    pub head_every: Duration,
    /// Slow readers of [`slow_reader_path`](Self::slow_reader_path).
    pub slow_readers: usize,
    /// What they read.
    pub slow_reader_path: String,
    /// Bytes a second each reads.
    pub slow_reader_rate: usize,
    /// Keep-alive connections of one client (127.0.0.4), each after one answered request.
    pub hog: usize,
    /// What the hog and the normal client ask for.
    pub normal_path: String,
    /// How long the attack may last: hostile connections still open then are counted open.
    pub patience: Duration,
    /// How long after the attack the server's memory may take to come back.
    pub settle: Duration,
}

impl Attack {
    /// The attack of issue 49 against `big` (a large static file), `gzip` (a gzip-stored one)
    /// and `small` (a page).
    pub fn standard(big: &str, gzip: &str, small: &str) -> Attack {
        Attack {
            slow_headers: 500,
            slow_header_every: Duration::from_secs(5),
            slow_header_sources: 5,
            window_zero: 10,
            window_zero_streams: 199,
            window_zero_paths: vec![big.to_owned(), gzip.to_owned()],
            head_every: Duration::from_secs(3),
            slow_readers: 50,
            slow_reader_path: big.to_owned(),
            slow_reader_rate: 1000,
            hog: 1100,
            normal_path: small.to_owned(),
            patience: Duration::from_secs(100),
            settle: Duration::from_secs(30),
        }
    }
}

/// When each connection of one kind was closed by the server.
#[derive(Debug, Clone, Default)]
pub struct Closures {
    /// Connections made.
    pub opened: usize,
    /// Connections that could not be made (refused, timed out).
    pub failed: usize,
    /// After how long each closed connection was closed, from its connect, sorted.
    pub closed_after: Vec<Duration>,
    /// Connections still open at the end of the attack.
    pub open_at_end: usize,
}

impl Closures {
    /// The longest time to a close, if any closed.
    pub fn longest(&self) -> Option<Duration> {
        self.closed_after.last().copied()
    }

    /// The median time to a close, if any closed.
    pub fn median(&self) -> Option<Duration> {
        self.closed_after.get(self.closed_after.len() / 2).copied()
    }
}

/// What the normal client got.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// Requests sent.
    pub requests: usize,
    /// Answered with a 2xx within the timeout.
    pub answered: usize,
    /// The slowest answer.
    pub slowest: Duration,
    /// The longest time without an answer: from the start of a request that got none to the
    /// next answer (or the end).
    pub longest_without_answer: Duration,
}

/// Everything the attack saw.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The slow-header connections.
    pub slow_headers: Closures,
    /// The HTTP/2 connections at window 0.
    pub window_zero: Closures,
    /// HTTP/2 connections whose preface got no SETTINGS back (the server speaks no HTTP/2).
    pub window_zero_without_http2: usize,
    /// The slow readers (closed: cut by the server).
    pub slow_readers: Closures,
    /// The fewest bytes a slow reader received.
    pub slow_reader_least_bytes: usize,
    /// The hog's connections.
    pub hog: Closures,
    /// The hog's requests answered.
    pub hog_answered: usize,
    /// The normal client, during the attack.
    pub normal: Served,
    /// How long the attack ran (until every connection but the slow readers' closed, or
    /// patience).
    pub ran: Duration,
    /// The server's anonymous resident memory (heap, stacks: what clients can make it hold;
    /// the executable's pages, embedded files included, are the page cache's) after one
    /// request for each file and before the attack, KiB.
    pub anon_before: u64,
    /// Its highest during the attack, KiB.
    pub anon_peak: u64,
    /// At the end of the settling time, KiB.
    pub anon_after: u64,
    /// How long after the attack it was first within 16 MiB of `anon_before`, if it was.
    pub anon_back_after: Option<Duration>,
    /// The whole resident set (`VmRSS`) before the attack and at its peak, KiB.
    pub rss_before_and_peak: (u64, u64),
}

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `RssAnon`), 0 when it cannot be read.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| {
                line.strip_prefix(field)
                    .is_some_and(|rest| rest.starts_with(':'))
            })?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

fn anon_kib(pid: u32) -> u64 {
    status_kib(pid, "RssAnon")
}

/// Runs `attack` against the server at `address` (process `pid`) and reports.
pub fn run(address: SocketAddr, pid: u32, attack: &Attack) -> Report {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime for the clients");
    runtime.block_on(attack_all(address, pid, attack.clone()))
}

async fn attack_all(address: SocketAddr, pid: u32, attack: Attack) -> Report {
    let mut paths = attack.window_zero_paths.clone();
    paths.extend([attack.slow_reader_path.clone(), attack.normal_path.clone()]);
    for path in paths {
        let _ = fetch(address, &path).await;
    }
    let mut report = Report {
        anon_before: anon_kib(pid),
        ..Report::default()
    };
    let rss_before = status_kib(pid, "VmRSS");
    let mut rss_peak = rss_before;
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let normal = tokio::spawn(normal_client(
        address,
        attack.normal_path.clone(),
        Arc::clone(&stop),
    ));
    let window_zero = {
        let attack = attack.clone();
        let stop = Arc::clone(&stop);
        tokio::task::spawn_blocking(move || window_zero(address, &attack, &stop))
    };
    let slow = spawn_each(attack.slow_headers, |index| {
        let source = IpAddr::from([
            127,
            0,
            1,
            1 + (index % attack.slow_header_sources.max(1)) as u8,
        ]);
        slow_header(address, source, attack.slow_header_every, Arc::clone(&stop))
    });
    let readers = spawn_each(attack.slow_readers, |_| {
        slow_reader(
            address,
            attack.slow_reader_path.clone(),
            attack.slow_reader_rate,
            Arc::clone(&stop),
        )
    });
    let hog = spawn_each(attack.hog, |_| {
        hog(address, attack.normal_path.clone(), Arc::clone(&stop))
    });
    // Until every connection but the readers' is closed, or patience runs out.
    let mut peak = report.anon_before;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        peak = peak.max(anon_kib(pid));
        rss_peak = rss_peak.max(status_kib(pid, "VmRSS"));
        let waiting = slow.iter().any(|task| !task.is_finished())
            || hog.iter().any(|task| !task.is_finished())
            || !window_zero.is_finished();
        if !waiting || started.elapsed() >= attack.patience {
            break;
        }
    }
    report.ran = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    report.slow_headers = closures(slow).await;
    let (readers, least) = reader_closures(readers).await;
    report.slow_readers = readers;
    report.slow_reader_least_bytes = least;
    let (hog, answered) = hog_closures(hog).await;
    report.hog = hog;
    report.hog_answered = answered;
    let (window_zero, without_http2) = window_zero.await.expect("the window-0 clients");
    report.window_zero = window_zero;
    report.window_zero_without_http2 = without_http2;
    report.normal = normal.await.expect("the normal client");
    report.anon_peak = peak;
    report.rss_before_and_peak = (rss_before, rss_peak);
    settle(pid, attack.settle, &mut report).await;
    report
}

/// Watches the memory for `settle` after the attack: when it came back, where it ended.
async fn settle(pid: u32, settle: Duration, report: &mut Report) {
    let ended = Instant::now();
    while ended.elapsed() < settle {
        let anon = anon_kib(pid);
        if report.anon_back_after.is_none() && anon <= report.anon_before + 16 * 1024 {
            report.anon_back_after = Some(ended.elapsed());
        }
        report.anon_after = anon;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn spawn_each<F, T>(
    count: usize,
    mut make: impl FnMut(usize) -> F,
) -> Vec<tokio::task::JoinHandle<T>>
where
    F: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    (0..count).map(|index| tokio::spawn(make(index))).collect()
}

/// What one connection saw: `None` when it could not connect; else when it was closed.
type Outcome = Option<Option<Duration>>;

async fn closures(tasks: Vec<tokio::task::JoinHandle<Outcome>>) -> Closures {
    let mut closures = Closures::default();
    for task in tasks {
        record(&mut closures, task.await.unwrap_or(None));
    }
    closures.closed_after.sort();
    closures
}

fn record(closures: &mut Closures, outcome: Outcome) {
    match outcome {
        None => closures.failed += 1,
        Some(closed) => {
            closures.opened += 1;
            match closed {
                Some(after) => closures.closed_after.push(after),
                None => closures.open_at_end += 1,
            }
        }
    }
}

async fn connect(
    address: SocketAddr,
    source: Option<IpAddr>,
    receive_buffer: Option<u32>,
) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().ok()?;
    if let Some(source) = source {
        socket.bind(SocketAddr::new(source, 0)).ok()?;
    }
    if let Some(size) = receive_buffer {
        socket.set_recv_buffer_size(size).ok()?;
    }
    tokio::time::timeout(Duration::from_secs(5), socket.connect(address))
        .await
        .ok()?
        .ok()
}

/// Whether the server closed `stream` (a read of 0 or an error) before `stop`; reads and drops
/// whatever it sends meanwhile.
async fn closed_within(stream: &mut TcpStream, stop: &AtomicBool) -> bool {
    let mut buffer = [0u8; 4096];
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buffer)).await {
            Err(_) | Ok(Ok(1..)) => {}
            Ok(Ok(0) | Err(_)) => return true,
        }
    }
}

async fn slow_header(
    address: SocketAddr,
    source: IpAddr,
    every: Duration,
    stop: Arc<AtomicBool>,
) -> Outcome {
    let mut stream = connect(address, Some(source), None).await?;
    let connected = Instant::now();
    let head = b"GET / HTTP/1.1\r\nhost: test\r\nx-slow: ";
    let mut sent = 0;
    let mut next_byte = Instant::now();
    loop {
        if Instant::now() >= next_byte {
            let byte = head.get(sent).copied().unwrap_or(b'a');
            if stream.write_all(&[byte]).await.is_err() {
                return Some(Some(connected.elapsed()));
            }
            sent += 1;
            next_byte += every;
        }
        let mut buffer = [0u8; 1024];
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return Some(Some(connected.elapsed())),
            _ if stop.load(Ordering::Relaxed) => return Some(None),
            _ => {}
        }
    }
}

/// A slow reader: the bytes it got, and when it was cut if it was.
async fn slow_reader(
    address: SocketAddr,
    path: String,
    rate: usize,
    stop: Arc<AtomicBool>,
) -> (Outcome, usize) {
    let Some(mut stream) = connect(address, Some([127, 0, 0, 3].into()), Some(4096)).await else {
        return (None, 0);
    };
    let connected = Instant::now();
    let head = format!("GET {path} HTTP/1.1\r\nhost: test\r\n\r\n");
    if stream.write_all(head.as_bytes()).await.is_err() {
        return (Some(Some(connected.elapsed())), 0);
    }
    let mut received = 0;
    let mut buffer = vec![0u8; rate.max(1)];
    loop {
        if stop.load(Ordering::Relaxed) {
            return (Some(None), received);
        }
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buffer)).await {
            Err(_) => continue,
            Ok(Ok(0) | Err(_)) => return (Some(Some(connected.elapsed())), received),
            Ok(Ok(read)) => received += read,
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn reader_closures(
    tasks: Vec<tokio::task::JoinHandle<(Outcome, usize)>>,
) -> (Closures, usize) {
    let mut closures = Closures::default();
    let mut least = usize::MAX;
    for task in tasks {
        let (outcome, bytes) = task.await.unwrap_or((None, 0));
        if outcome.is_some() {
            least = least.min(bytes);
        }
        record(&mut closures, outcome);
    }
    closures.closed_after.sort();
    (closures, if least == usize::MAX { 0 } else { least })
}

/// One of the hog's connections: one request, answered or not, then held idle.
async fn hog(address: SocketAddr, path: String, stop: Arc<AtomicBool>) -> (Outcome, bool) {
    let Some(mut stream) = connect(address, Some([127, 0, 0, 4].into()), None).await else {
        return (None, false);
    };
    let connected = Instant::now();
    let head = format!("GET {path} HTTP/1.1\r\nhost: test\r\n\r\n");
    if stream.write_all(head.as_bytes()).await.is_err() {
        return (Some(Some(connected.elapsed())), false);
    }
    let mut buffer = [0u8; 16384];
    let answered =
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return (Some(Some(connected.elapsed())), false),
            Ok(Ok(read)) => buffer[..read].starts_with(b"HTTP/1.1 2"),
            Err(_) => false,
        };
    let closed = closed_within(&mut stream, &stop).await;
    (Some(closed.then(|| connected.elapsed())), answered)
}

async fn hog_closures(tasks: Vec<tokio::task::JoinHandle<(Outcome, bool)>>) -> (Closures, usize) {
    let mut closures = Closures::default();
    let mut answered = 0;
    for task in tasks {
        let (outcome, was_answered) = task.await.unwrap_or((None, false));
        answered += usize::from(was_answered);
        record(&mut closures, outcome);
    }
    closures.closed_after.sort();
    (closures, answered)
}

/// One request for `path` on a connection of its own, from 127.0.0.2, read to its end: whether
/// it was answered with a 2xx within 30 s.
async fn fetch(address: SocketAddr, path: &str) -> bool {
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        let mut stream = connect(address, Some([127, 0, 0, 2].into()), None).await?;
        let head = format!("GET {path} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.ok()?;
        let mut status = [0u8; 10];
        stream.read_exact(&mut status).await.ok()?;
        let mut rest = [0u8; 65536];
        while stream.read(&mut rest).await.ok()? > 0 {}
        Some(status.starts_with(b"HTTP/1.1 2"))
    })
    .await;
    matches!(answer, Ok(Some(true)))
}

/// One request at a time, a new connection each, from 127.0.0.2, until `stop`.
async fn normal_client(address: SocketAddr, path: String, stop: Arc<AtomicBool>) -> Served {
    let mut served = Served::default();
    let mut unanswered_since: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        served.requests += 1;
        let started = Instant::now();
        let answered = tokio::time::timeout(Duration::from_secs(5), fetch(address, &path)).await;
        if matches!(answered, Ok(true)) {
            served.answered += 1;
            if let Some(since) = unanswered_since.take() {
                served.longest_without_answer = served.longest_without_answer.max(since.elapsed());
            }
        } else if unanswered_since.is_none() {
            unanswered_since = Some(started);
        }
        served.slowest = served.slowest.max(started.elapsed());
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    if let Some(since) = unanswered_since {
        served.longest_without_answer = served.longest_without_answer.max(since.elapsed());
    }
    served
}

/// The window-0 connections, each on the raw HTTP/2 client: streams of two ranges, `HEAD`s
/// every few seconds, until each is closed or `stop`.
fn window_zero(address: SocketAddr, attack: &Attack, stop: &AtomicBool) -> (Closures, usize) {
    let mut closures = Closures::default();
    let mut connections = Vec::new();
    for index in 0..attack.window_zero {
        let source = Some(IpAddr::from([127, 0, 2, 1 + index as u8]));
        match RawH2::try_connect_from(address, source, &[(INITIAL_WINDOW_SIZE, 0)]) {
            Ok(connection) => connections.push(connection),
            Err(_) => closures.failed += 1,
        }
    }
    for (index, connection) in connections.iter().enumerate() {
        let path = &attack.window_zero_paths[index % attack.window_zero_paths.len().max(1)];
        for _ in 0..attack.window_zero_streams {
            connection.request("GET", path, &[("range", "bytes=0-0,2-")]);
        }
    }
    let mut last_head = Instant::now();
    while !stop.load(Ordering::Relaxed)
        && connections
            .iter()
            .any(|c| c.received().closed_after.is_none())
    {
        if last_head.elapsed() >= attack.head_every {
            for connection in &connections {
                connection.request("HEAD", &attack.normal_path, &[]);
            }
            last_head = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut without_http2 = 0;
    for connection in &connections {
        let received = connection.received();
        closures.opened += 1;
        if received.answered.is_empty() && !received.settings {
            without_http2 += 1;
        }
        match received.closed_after {
            Some(after) => closures.closed_after.push(after),
            None => closures.open_at_end += 1,
        }
    }
    closures.closed_after.sort();
    (closures, without_http2)
}
