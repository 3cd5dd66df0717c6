//! Clients that keep every slot of a server busy, as an attacker would with a few addresses,
//! and a probe from another that says whether it still gets in: each attacking address holds
//! HTTP/2 connections whose one stream sits at window 0 and is replaced (the old one reset)
//! every [`BusyAttack::replace_every`], so that no stream ever goes a minute without a new
//! one, and HTTP/1 connections reading a large file a kilobyte a second, so that bytes always
//! move; a connection the server closes or refuses is opened again a second later.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// What the attack sends, and where.
#[derive(Debug, Clone)]
pub struct BusyAttack {
    /// The attacking addresses (loopback addresses are distinct clients).
    pub addresses: Vec<IpAddr>,
    /// Connections each address tries to hold; every other one is HTTP/2, the rest HTTP/1.
    pub per_address: usize,
    /// How often an HTTP/2 connection opens a new stream and resets the old one.
    pub replace_every: Duration,
    /// What the HTTP/2 streams ask for (held at window 0).
    pub page: String,
    /// What the HTTP/1 connections read slowly (larger than the socket buffers).
    pub large: String,
    /// The probe's address.
    pub probe_from: IpAddr,
    /// How often it asks for [`page`](Self::page), and how long it waits for an answer.
    pub probe_every: Duration,
    /// Its patience for one answer.
    pub probe_timeout: Duration,
    /// How long the attack lasts.
    pub duration: Duration,
}

/// What the probe got and what the attackers held.
#[derive(Debug, Clone, Default)]
pub struct BusyReport {
    /// Probes made.
    pub probes: usize,
    /// Probes answered 200 within the timeout.
    pub answered: usize,
    /// The slowest answer of those.
    pub slowest: Duration,
    /// The longest time the probe went without an answer (from a failed probe's start to the
    /// next answer, or the end).
    pub longest_without_answer: Duration,
    /// Connections of each attacking address the server held at the end (in the order given):
    /// its own sockets, read from `/proc` ([`held_by_process`]), not what a client believes.
    pub held_at_end: Vec<usize>,
    /// The most the server held of all attackers' at once, counted the same way.
    pub held_most: usize,
    /// The most the server held of one attacking address's at once after the first minute.
    pub held_most_by_one: usize,
    /// Connections the attackers had closed under them (by the server).
    pub closed_by_server: usize,
}

/// Runs `attack` against the server at `address`, process `pid`, and reports.
pub fn run(address: SocketAddr, pid: u32, attack: &BusyAttack) -> BusyReport {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime for the clients");
    runtime.block_on(attack_all(address, pid, attack.clone()))
}

struct Tally {
    held: Vec<AtomicUsize>,
    closed_by_server: AtomicUsize,
    stop: AtomicBool,
}

async fn attack_all(address: SocketAddr, pid: u32, attack: BusyAttack) -> BusyReport {
    let tally = Arc::new(Tally {
        held: attack
            .addresses
            .iter()
            .map(|_| AtomicUsize::new(0))
            .collect(),
        closed_by_server: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    });
    let mut tasks = Vec::new();
    for (which, source) in attack.addresses.iter().enumerate() {
        for index in 0..attack.per_address {
            let (tally, attack, source) = (Arc::clone(&tally), attack.clone(), *source);
            tasks.push(tokio::spawn(async move {
                if index % 2 == 0 {
                    window_zero(address, source, which, &attack, &tally).await;
                } else {
                    slow_reader(address, source, which, &attack, &tally).await;
                }
            }));
        }
    }
    // The attackers first take the slots; the probe starts once they hold them.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let probe = tokio::spawn(probe(address, attack.clone(), Arc::clone(&tally)));
    let started = Instant::now();
    let (mut held_most, mut held_most_by_one) = (0, 0);
    let held_by = |held: &HashMap<IpAddr, usize>| -> Vec<usize> {
        attack
            .addresses
            .iter()
            .map(|address| held.get(address).copied().unwrap_or(0))
            .collect()
    };
    while started.elapsed() < attack.duration {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let held = held_by(&held_by_process(pid, address.port()));
        held_most = held_most.max(held.iter().sum());
        if started.elapsed() > Duration::from_secs(60) {
            held_most_by_one = held_most_by_one.max(held.iter().copied().max().unwrap_or(0));
        }
    }
    let mut report = probe.await.expect("the probe");
    report.held_at_end = held_by(&held_by_process(pid, address.port()));
    report.held_most = held_most;
    report.held_most_by_one = held_most_by_one;
    tally.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.abort();
    }
    report.closed_by_server = tally.closed_by_server.load(Ordering::Relaxed);
    report
}

async fn connect(
    address: SocketAddr,
    source: IpAddr,
    receive_buffer: Option<u32>,
) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(source, 0)).ok()?;
    if let Some(size) = receive_buffer {
        socket.set_recv_buffer_size(size).ok()?;
    }
    tokio::time::timeout(Duration::from_secs(5), socket.connect(address))
        .await
        .ok()?
        .ok()
}

/// An HTTP/2 connection at window 0 whose one stream is replaced every `replace_every`,
/// opened again a second after the server closes or refuses it; against a server that speaks
/// no cleartext HTTP/2 (its answer to the preface is HTTP/1's), an HTTP/1 slow reader instead,
/// so that every connection of the attack holds.
async fn window_zero(
    address: SocketAddr,
    source: IpAddr,
    which: usize,
    attack: &BusyAttack,
    tally: &Tally,
) {
    while !tally.stop.load(Ordering::Relaxed) {
        match hold_window_zero(address, source, which, attack, tally).await {
            Held::Closed => {
                tally.held[which].fetch_sub(1, Ordering::Relaxed);
                tally.closed_by_server.fetch_add(1, Ordering::Relaxed);
            }
            Held::Stopped => {
                tally.held[which].fetch_sub(1, Ordering::Relaxed);
            }
            Held::Never => {}
            Held::NoHttp2 => return slow_reader(address, source, which, attack, tally).await,
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// How a window-0 connection ended.
enum Held {
    /// The server closed it.
    Closed,
    /// The attack ended.
    Stopped,
    /// It never got a stream answered (refused, or no room).
    Never,
    /// The server answers an HTTP/2 preface with HTTP/1: it speaks no cleartext HTTP/2.
    NoHttp2,
}

/// Whether the server at `address` speaks no cleartext HTTP/2 but HTTP/1: a preface gets no
/// SETTINGS frame back (an HTTP/1 error, or a close), and a GET gets an answer other than a
/// refusal at a cap (503, which says nothing of the protocols).
async fn speaks_http1_only(address: SocketAddr, source: IpAddr) -> bool {
    let Some(mut stream) = connect(address, source, None).await else {
        return false;
    };
    if stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 9];
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut head)).await;
    // A frame header of type 4 (SETTINGS) on stream 0: HTTP/2.
    if matches!(read, Ok(Ok(_))) && head[3] == 0x4 && head[5..] == [0, 0, 0, 0] {
        return false;
    }
    let Some(mut stream) = connect(address, source, None).await else {
        return false;
    };
    let request = b"GET / HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n";
    if stream.write_all(request).await.is_err() {
        return false;
    }
    let mut status_line = [0u8; 12];
    let read =
        tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut status_line)).await;
    matches!(read, Ok(Ok(_)))
        && status_line.starts_with(b"HTTP/1.")
        && !status_line.ends_with(b"503")
}

/// One window-0 connection for as long as the server keeps it.
async fn hold_window_zero(
    address: SocketAddr,
    source: IpAddr,
    which: usize,
    attack: &BusyAttack,
    tally: &Tally,
) -> Held {
    let Some(tcp) = connect(address, source, None).await else {
        return Held::Never;
    };
    let handshake = tokio::time::timeout(
        Duration::from_secs(5),
        h2::client::Builder::new()
            .initial_window_size(0)
            .handshake::<_, bytes::Bytes>(tcp),
    )
    .await;
    let Ok(Ok((client, connection))) = handshake else {
        return Held::Never;
    };
    let mut driver = tokio::spawn(connection);
    let Some(mut held) = open_stream(client.clone(), &attack.page).await else {
        if speaks_http1_only(address, source).await {
            return Held::NoHttp2;
        }
        return Held::Never;
    };
    tally.held[which].fetch_add(1, Ordering::Relaxed);
    loop {
        tokio::select! {
            _ = &mut driver => return Held::Closed,
            () = tokio::time::sleep(attack.replace_every) => {
                // A new stream, then the old one dropped: h2 resets it.
                match open_stream(client.clone(), &attack.page).await {
                    Some(next) => drop(std::mem::replace(&mut held, next)),
                    None => return Held::Closed,
                }
            }
        }
        if tally.stop.load(Ordering::Relaxed) {
            drop(held);
            return Held::Stopped;
        }
    }
}

/// A stream asking for `path`, its answer's head received (the body held at window 0).
async fn open_stream(
    client: h2::client::SendRequest<bytes::Bytes>,
    path: &str,
) -> Option<h2::RecvStream> {
    let mut client = tokio::time::timeout(Duration::from_secs(5), client.ready())
        .await
        .ok()?
        .ok()?;
    let request = http::Request::get(format!("http://test{path}"))
        .body(())
        .ok()?;
    let (response, _) = client.send_request(request, true).ok()?;
    let response = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .ok()?
        .ok()?;
    response.status().is_success().then(|| response.into_body())
}

/// An HTTP/1 connection reading a large file a kilobyte a second, opened again a second after
/// the server closes or refuses it.
async fn slow_reader(
    address: SocketAddr,
    source: IpAddr,
    which: usize,
    attack: &BusyAttack,
    tally: &Tally,
) {
    let head = format!("GET {} HTTP/1.1\r\nhost: test\r\n\r\n", attack.large);
    while !tally.stop.load(Ordering::Relaxed) {
        if let Some(mut stream) = connect(address, source, Some(4096)).await
            && stream.write_all(head.as_bytes()).await.is_ok()
        {
            let mut buffer = [0u8; 1024];
            let is_served = matches!(
                tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await,
                Ok(Ok(read)) if buffer[..read].starts_with(b"HTTP/1.1 200")
            );
            if is_served {
                tally.held[which].fetch_add(1, Ordering::Relaxed);
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    if tally.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                tally.held[which].fetch_sub(1, Ordering::Relaxed);
                tally.closed_by_server.fetch_add(1, Ordering::Relaxed);
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Asks for the page every `probe_every` from its own address, a connection each.
async fn probe(address: SocketAddr, attack: BusyAttack, tally: Arc<Tally>) -> BusyReport {
    let mut report = BusyReport::default();
    let started = Instant::now();
    let mut unanswered_since: Option<Instant> = None;
    let request = format!(
        "GET {} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n",
        attack.page
    );
    while started.elapsed() < attack.duration && !tally.stop.load(Ordering::Relaxed) {
        let asked = Instant::now();
        report.probes += 1;
        let answered = tokio::time::timeout(attack.probe_timeout, async {
            let mut stream = connect(address, attack.probe_from, None).await?;
            stream.write_all(request.as_bytes()).await.ok()?;
            let mut status = [0u8; 12];
            stream.read_exact(&mut status).await.ok()?;
            Some(&status == b"HTTP/1.1 200")
        })
        .await;
        if matches!(answered, Ok(Some(true))) {
            report.answered += 1;
            report.slowest = report.slowest.max(asked.elapsed());
            if let Some(since) = unanswered_since.take() {
                report.longest_without_answer = report.longest_without_answer.max(since.elapsed());
            }
        } else if unanswered_since.is_none() {
            unanswered_since = Some(asked);
        }
        tokio::time::sleep(attack.probe_every.saturating_sub(asked.elapsed())).await;
    }
    if let Some(since) = unanswered_since {
        report.longest_without_answer = report.longest_without_answer.max(since.elapsed());
    }
    report
}

/// The connections process `pid` holds on its listening `port` (IPv4), by the client's
/// address: its socket descriptors (`/proc/<pid>/fd`) found by inode in the kernel's table
/// (`/proc/net/tcp`). Connections still in the listen backlog, or closed by the process, are
/// not its.
pub fn held_by_process(pid: u32, port: u16) -> HashMap<IpAddr, usize> {
    let mut inodes = std::collections::HashSet::new();
    if let Ok(descriptors) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for descriptor in descriptors.flatten() {
            let Ok(target) = std::fs::read_link(descriptor.path()) else {
                continue;
            };
            if let Some(inode) = target
                .to_str()
                .and_then(|text| text.strip_prefix("socket:["))
                .and_then(|text| text.strip_suffix(']'))
                .and_then(|text| text.parse::<u64>().ok())
            {
                inodes.insert(inode);
            }
        }
    }
    let mut held = HashMap::new();
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(local), Some(remote), Some(inode)) =
            (fields.get(1), fields.get(2), fields.get(9))
        else {
            continue;
        };
        if !inode
            .parse::<u64>()
            .is_ok_and(|inode| inodes.contains(&inode))
        {
            continue;
        }
        // Addresses are hex, the IPv4 address in the host's (little-endian) order.
        let endpoint = |text: &str| -> Option<(IpAddr, u16)> {
            let (address, port) = text.split_once(':')?;
            let address = u32::from_str_radix(address, 16).ok()?;
            let port = u16::from_str_radix(port, 16).ok()?;
            Some((IpAddr::from(address.to_le_bytes()), port))
        };
        if let (Some((_, local_port)), Some((peer, _))) = (endpoint(local), endpoint(remote))
            && local_port == port
        {
            *held.entry(peer).or_default() += 1;
        }
    }
    held
}

/// Raises this process's soft limit on open files to its hard limit (for thousands of client
/// sockets); the limit now in force.
pub fn raise_open_file_limit() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = limit.maximum;
    let _ = setrlimit(Resource::Nofile, limit);
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}
