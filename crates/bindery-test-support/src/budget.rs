//! One client filling a server's budget of heap bodies, as an attacker would: HTTP/2
//! connections at window 0 asking many ranges of distinct lengths (`bytes=0-N`) of a
//! gzip-stored file without accepting gzip, so that each answer is a prefix decompressed for it
//! and held unsent; and another client asking the whole file (identity) all the while. Plus a
//! memory cgroup to run the server under a memory limit, as a container would.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

/// What the attack sends, and where.
#[derive(Debug, Clone)]
pub struct BudgetAttack {
    /// The attacker's address.
    pub from: IpAddr,
    /// Its HTTP/2 connections, each at window 0.
    pub connections: usize,
    /// Ranges asked in all, each of another length.
    pub ranges: usize,
    /// The gzip-stored file.
    pub path: String,
    /// Its length.
    pub len: usize,
    /// How long the ranges are held once asked.
    pub hold: Duration,
    /// The other client's address.
    pub other_from: IpAddr,
    /// How often it asks for the whole file.
    pub other_every: Duration,
}

/// What each side got.
#[derive(Debug, Clone, Default)]
pub struct BudgetReport {
    /// The attacker's answers: 206 (a decompressed prefix held), 503 (past its share), other.
    pub partial: usize,
    /// Answered 503.
    pub refused: usize,
    /// Anything else (no answer, another status).
    pub other: usize,
    /// The other client's requests.
    pub identity_requests: usize,
    /// Answered 200 with the whole file.
    pub identity_answered: usize,
}

/// Runs `attack` against the server at `address`.
pub fn run(address: SocketAddr, attack: &BudgetAttack) -> BudgetReport {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime for the clients");
    runtime.block_on(attack_all(address, attack.clone()))
}

async fn attack_all(address: SocketAddr, attack: BudgetAttack) -> BudgetReport {
    let started = Instant::now();
    let mut report = BudgetReport::default();
    let mut held = Vec::new();
    let mut drivers = Vec::new();
    let mut clients = Vec::new();
    for _ in 0..attack.connections {
        let socket = TcpSocket::new_v4().expect("socket");
        socket.bind(SocketAddr::new(attack.from, 0)).expect("bind");
        let tcp = socket.connect(address).await.expect("connect");
        let (client, connection) = h2::client::Builder::new()
            .initial_window_size(0)
            .max_concurrent_streams(100)
            .handshake::<_, bytes::Bytes>(tcp)
            .await
            .expect("h2");
        drivers.push(tokio::spawn(connection));
        clients.push(client);
    }
    let other = tokio::spawn(identity_client(address, attack.clone(), started));
    let step = (attack.len / 2 / attack.ranges.max(1)).max(1);
    for index in 0..attack.ranges {
        let end = attack.len / 2 + index * step;
        let request = http::Request::get(format!("http://test{}", attack.path))
            .header("range", format!("bytes=0-{end}"))
            .body(())
            .expect("request");
        let client = clients[index % clients.len()].clone();
        let Ok(mut client) = client.ready().await else {
            report.other += 1;
            continue;
        };
        match client.send_request(request, true) {
            Ok((response, _)) => held.push(response),
            Err(_) => report.other += 1,
        }
    }
    let mut bodies = Vec::new();
    for response in held {
        match tokio::time::timeout(Duration::from_secs(30), response).await {
            Ok(Ok(response)) => {
                match response.status().as_u16() {
                    206 => report.partial += 1,
                    503 => report.refused += 1,
                    _ => report.other += 1,
                }
                bodies.push(response);
            }
            _ => report.other += 1,
        }
    }
    tokio::time::sleep(attack.hold.saturating_sub(started.elapsed())).await;
    let (requests, answered) = other.await.expect("the other client");
    report.identity_requests = requests;
    report.identity_answered = answered;
    drop(bodies);
    drop(clients);
    for driver in drivers {
        driver.abort();
    }
    report
}

/// The whole file, identity, from another address, until the hold is over.
async fn identity_client(
    address: SocketAddr,
    attack: BudgetAttack,
    started: Instant,
) -> (usize, usize) {
    let (mut requests, mut answered) = (0, 0);
    let request = format!(
        "GET {} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n",
        attack.path
    );
    while started.elapsed() < attack.hold {
        requests += 1;
        let whole = tokio::time::timeout(Duration::from_secs(5), async {
            let socket = TcpSocket::new_v4().ok()?;
            socket.bind(SocketAddr::new(attack.other_from, 0)).ok()?;
            let mut stream = socket.connect(address).await.ok()?;
            stream.write_all(request.as_bytes()).await.ok()?;
            let mut answer = Vec::new();
            stream.read_to_end(&mut answer).await.ok()?;
            let head_end = answer.windows(4).position(|window| window == b"\r\n\r\n")? + 4;
            Some(answer.starts_with(b"HTTP/1.1 200") && answer.len() - head_end == attack.len)
        })
        .await;
        if matches!(whole, Ok(Some(true))) {
            answered += 1;
        }
        tokio::time::sleep(attack.other_every).await;
    }
    (requests, answered)
}

/// A memory cgroup made for a test (v1 under the process's own memory group, else v2 under
/// its own group), removed when dropped once its processes are gone.
#[derive(Debug)]
pub struct MemoryGroup {
    path: PathBuf,
    is_v1: bool,
}

impl MemoryGroup {
    /// A new group limited to `bytes`; an error where no memory cgroup can be made (no root,
    /// no controller): the caller decides whether that fails it.
    pub fn new(name: &str, bytes: u64) -> std::io::Result<MemoryGroup> {
        let own = std::fs::read_to_string("/proc/self/cgroup")?;
        let v1 = own.lines().find_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            controllers
                .split(',')
                .any(|controller| controller == "memory")
                .then(|| path.to_owned())
        });
        let (path, is_v1) = match v1 {
            Some(parent) => (
                PathBuf::from(format!(
                    "/sys/fs/cgroup/memory{}",
                    parent.trim_end_matches('/')
                ))
                .join(name),
                true,
            ),
            None => {
                let parent = own
                    .lines()
                    .find_map(|line| line.strip_prefix("0::"))
                    .ok_or_else(|| std::io::Error::other("no memory cgroup"))?;
                (
                    PathBuf::from(format!("/sys/fs/cgroup{}", parent.trim_end_matches('/')))
                        .join(name),
                    false,
                )
            }
        };
        std::fs::create_dir_all(&path)?;
        let group = MemoryGroup { path, is_v1 };
        let limit = if is_v1 {
            "memory.limit_in_bytes"
        } else {
            "memory.max"
        };
        std::fs::write(group.path.join(limit), bytes.to_string())?;
        Ok(group)
    }

    /// The file a process's id is written to, to move it into the group.
    pub fn procs(&self) -> PathBuf {
        self.path.join("cgroup.procs")
    }

    /// The most memory the group used (v1's `memory.max_usage_in_bytes`, v2's `memory.peak`).
    pub fn peak(&self) -> Option<u64> {
        let file = if self.is_v1 {
            "memory.max_usage_in_bytes"
        } else {
            "memory.peak"
        };
        std::fs::read_to_string(self.path.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// How many times the group's limit killed a process (v1: `oom_control`'s `oom_kill`; v2:
    /// `memory.events`' `oom_kill`).
    pub fn oom_kills(&self) -> u64 {
        let file = if self.is_v1 {
            "memory.oom_control"
        } else {
            "memory.events"
        };
        std::fs::read_to_string(self.path.join(file))
            .unwrap_or_default()
            .lines()
            .find_map(|line| line.strip_prefix("oom_kill ")?.trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for MemoryGroup {
    fn drop(&mut self) {
        // Only once its processes are gone (the caller kills them first); a few tries.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.path).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
