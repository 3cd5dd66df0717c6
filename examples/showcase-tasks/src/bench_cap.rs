//! `cargo xtask bench-cap`: what a new connection costs at a full cap. The release geo-server
//! with `--max-connections N`; N keep-alive connections, one request each, then idle (spread
//! over many client addresses), fill it; then new connections, one request each, are timed
//! one after the other: each must close the connection idle the longest to get in. Before
//! round 6 every accept at the cap walked every open connection; now it takes the first of an
//! ordered set. `--binary` times another build (an older one, for the comparison).

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};

use crate::process::build_geo_server;

/// Flags of `cargo xtask bench-cap`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Caps to fill, in turn.
    #[arg(long, value_delimiter = ',', default_values_t = [1024, 16_384])]
    pub caps: Vec<usize>,
    /// New connections timed at each full cap.
    #[arg(long, default_value_t = 2000)]
    pub accepts: usize,
    /// The geo-server to time (default: this checkout's release build).
    #[arg(long)]
    pub binary: Option<PathBuf>,
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One request on `stream`, its answer read whole (a small, known answer: `/healthz`).
fn ask(stream: &mut TcpStream, close: bool) -> anyhow::Result<()> {
    let connection = if close { "close" } else { "keep-alive" };
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nhost: b\r\nconnection: {connection}\r\n\r\n"
    )?;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = stream.read(&mut buffer)?;
        ensure!(read > 0, "closed before the answer");
        answer.extend_from_slice(&buffer[..read]);
        if let Some(end) = answer.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            ensure!(head.starts_with("http/1.1 200"), "{head}");
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .and_then(|value| value.trim().parse().ok())
                .context("content-length")?;
            if answer.len() >= end + 4 + length {
                return Ok(());
            }
        }
    }
}

/// A connection from `local`.
fn connect(address: SocketAddr, local: IpAddr) -> anyhow::Result<TcpStream> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.bind(&SocketAddr::new(local, 0).into())?;
    socket.connect(&address.into())?;
    let stream = TcpStream::from(socket);
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Fills a cap of `cap`, then times `accepts` newcomers; the mean time of one.
fn at_cap(binary: &std::path::Path, cap: usize, accepts: usize) -> anyhow::Result<Duration> {
    let address: SocketAddr = format!("127.0.0.1:{}", bindery_test_support::free_port()).parse()?;
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -n {} && exec \"$0\" \"$@\"", cap + 256))
        .arg(binary)
        .args([
            "--addr",
            &address.to_string(),
            "--max-connections",
            &cap.to_string(),
        ])
        .args(["--max-connections-per-client", &cap.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let _running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(address).is_err() {
        ensure!(Instant::now() < deadline, "geo-server never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut held = Vec::with_capacity(cap);
    for index in 0..cap {
        let local = IpAddr::from([127, 1, (index / 200) as u8, (index % 200 + 1) as u8]);
        let mut stream = connect(address, local)?;
        ask(&mut stream, false)?;
        held.push(stream);
    }
    let pid = _running.0.id();
    let open: usize = bindery_test_support::busy::held_by_process(pid, address.port())
        .values()
        .sum();
    ensure!(
        open >= cap * 99 / 100,
        "only {open} of {cap} connections held at the start"
    );
    let cpu_before = cpu_time(pid);
    for index in 0..accepts {
        let local = IpAddr::from([127, 2, (index / 200) as u8, (index % 200 + 1) as u8]);
        let mut stream = connect(address, local)?;
        ask(&mut stream, true)?;
    }
    let spent = cpu_time(pid).saturating_sub(cpu_before);
    let open_after: usize = bindery_test_support::busy::held_by_process(pid, address.port())
        .values()
        .sum();
    eprintln!("bench-cap: {open} open before the newcomers, {open_after} after");
    Ok(spent / u32::try_from(accepts).unwrap_or(u32::MAX))
}

/// The CPU time every thread of process `pid` has run (`/proc/<pid>/task/*/schedstat`, in
/// nanoseconds: finer than `/proc/<pid>/stat`'s ticks).
fn cpu_time(pid: u32) -> Duration {
    let mut nanos = 0u64;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            nanos += std::fs::read_to_string(task.path().join("schedstat"))
                .ok()
                .and_then(|text| text.split_whitespace().next()?.parse().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_nanos(nanos)
}

/// Runs every cap and prints the table.
pub fn run(args: &Args) -> anyhow::Result<()> {
    bindery_test_support::busy::raise_open_file_limit();
    let binary = match &args.binary {
        Some(binary) => binary.clone(),
        None => build_geo_server(false)?,
    };
    println!(
        "| connections open (idle) | server CPU for one newcomer at the full cap |\n| --- | --- |"
    );
    for cap in &args.caps {
        let took = at_cap(&binary, *cap, args.accepts)?;
        println!("| {cap} | {:.0} µs |", took.as_secs_f64() * 1e6);
    }
    Ok(())
}
