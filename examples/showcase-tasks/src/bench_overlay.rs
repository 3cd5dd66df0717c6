//! `cargo xtask bench-overlay`: what a miss costs with an overlay of many files against none,
//! paired. The release geo-server twice, one with `--spa-overlay` over a folder whose `assets/`
//! holds `--files` files (20,000 by default), each asked in turn for a file that is nowhere
//! (`/assets/missing-N.js`, the SPA's fallback, 404 page and folder checks included) as fast
//! as one keep-alive connection allows, for a few seconds; the two alternate, so that drift
//! falls on both. The median ratio of time per miss is the figure BENCHMARKS.md quotes;
//! `--binary` times another build (an older one, for the comparison).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};

use crate::process::build_geo_server;

/// Flags of `cargo xtask bench-overlay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files in the overlay's `assets/`.
    #[arg(long, default_value_t = 20_000)]
    pub files: usize,
    /// Pairs of runs.
    #[arg(long, default_value_t = 5)]
    pub pairs: usize,
    /// Seconds of each run.
    #[arg(long, default_value_t = 5)]
    pub seconds: u64,
    /// The geo-server to time (default: this checkout's release build).
    #[arg(long)]
    pub binary: Option<std::path::PathBuf>,
}

/// A geo-server on a free port, killed when dropped.
struct Running {
    child: Child,
    address: SocketAddr,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(binary: &Path, overlay: Option<&Path>) -> anyhow::Result<Running> {
    let address: SocketAddr = format!("127.0.0.1:{}", bindery_test_support::free_port()).parse()?;
    let mut command = Command::new("taskset");
    command
        .args(["-c", "0"])
        .arg(binary)
        .args(["--addr", &address.to_string()])
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(folder) = overlay {
        command.arg("--spa-overlay").arg(folder);
    }
    let child = command.spawn().context("cannot start geo-server")?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(address).is_err() {
        ensure!(Instant::now() < deadline, "geo-server never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Running { child, address })
}

/// Misses asked one after the other on one connection for `seconds`; the time per miss.
fn misses(address: SocketAddr, seconds: u64) -> anyhow::Result<Duration> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let started = Instant::now();
    let mut count = 0u32;
    let mut buffer = vec![0u8; 64 * 1024];
    while started.elapsed() < Duration::from_secs(seconds) {
        let request = format!(
            "GET /assets/missing-{count}.js HTTP/1.1\r\nhost: bench\r\naccept: */*\r\n\r\n"
        );
        stream.write_all(request.as_bytes())?;
        read_answer(&mut stream, &mut buffer)?;
        count += 1;
    }
    Ok(started.elapsed() / count.max(1))
}

/// Reads one answer (head and `content-length` bytes of body); its status must be 404.
fn read_answer(stream: &mut TcpStream, buffer: &mut [u8]) -> anyhow::Result<()> {
    let mut filled = 0;
    loop {
        let read = stream.read(&mut buffer[filled..])?;
        ensure!(read > 0, "the server closed the connection");
        filled += read;
        let Some(head_end) = buffer[..filled]
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
        else {
            continue;
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
        ensure!(head.starts_with("http/1.1 404"), "not a miss: {head}");
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .and_then(|value| value.trim().parse().ok())
            .context("content-length")?;
        if filled >= head_end + 4 + length {
            return Ok(());
        }
    }
}

/// Builds, fills the folder, runs the pairs and prints the table.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let binary = match &args.binary {
        Some(binary) => binary.clone(),
        None => build_geo_server(false)?,
    };
    let folder = tempfile::tempdir()?;
    let assets = folder.path().join("assets");
    std::fs::create_dir_all(&assets)?;
    for index in 0..args.files {
        std::fs::write(
            assets.join(format!("chunk-{index:05}.js")),
            "export default 1;\n",
        )?;
    }
    let plain = start(&binary, None)?;
    let overlaid = start(&binary, Some(folder.path()))?;
    // Warm both (the overlay lists `assets/` once).
    misses(plain.address, 1)?;
    misses(overlaid.address, 1)?;
    let mut ratios = Vec::new();
    let mut rows = String::new();
    for pair in 0..args.pairs {
        let without = misses(plain.address, args.seconds)?;
        let with = misses(overlaid.address, args.seconds)?;
        let ratio = with.as_secs_f64() / without.as_secs_f64();
        ratios.push(ratio);
        rows.push_str(&format!(
            "| {} | {:.1} µs | {:.1} µs | {ratio:.2}x |\n",
            pair + 1,
            without.as_secs_f64() * 1e6,
            with.as_secs_f64() * 1e6
        ));
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    println!(
        "A miss on one keep-alive connection, geo-server (release, core 0), overlay of {} files \
         in assets/:\n\n| pair | no overlay | overlay | ratio |\n| --- | --- | --- | --- |\n\
         {rows}\nmedian ratio {median:.2}x (pairs {:.2}-{:.2}x)",
        args.files,
        ratios[0],
        ratios[ratios.len() - 1]
    );
    Ok(())
}
