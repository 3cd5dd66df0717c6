//! `cargo xtask scale`: two geo-server replicas behind a real caching proxy (Debian's nginx,
//! round robin, `proxy_cache`), all on loopback, driven by a bounded mix of clients from
//! distinct 127.0.0.x addresses. It checks that every body is right for its client through the
//! cache (gzip and identity), that `/geo/me` never answers another client's address, that the
//! origins see at most one request per cache key plus revalidations, and that a revalidation
//! after expiry is a 304 from the origin; then prints requests, hit ratio, origin requests per
//! replica and req/s through the proxy against one replica direct. `--quick` (run by `xtask
//! ci`): the debug server and 2 s of load.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail, ensure};

use crate::process::{
    apt_install, build_geo_server, ensure_wrk, spawn_server, wait_until_listening, wrk,
};
use bindery_test_support::{RawResponse, free_port, samples, try_raw_request};

/// Flags of `cargo xtask scale`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The debug server and 2 s of load (for CI).
    #[arg(long)]
    pub quick: bool,
}

/// Seconds caches may keep `/geo` answers in this run: short, so expiry can be observed.
const MAX_AGE: u64 = 2;
/// The address nginx connects to the replicas from (`proxy_bind`): the one proxy they trust.
/// Clients are other 127.0.0.x addresses, so trusting all of loopback would make every hop
/// trusted and the client unknown.
const PROXY_SOURCE: &str = "127.0.0.2";

/// Addresses asked through the proxy, each several times from several clients.
const ADDRESSES: [&str; 8] = [
    "8.8.8.8",
    "81.2.69.160",
    "1.1.1.1",
    "62.14.64.1",
    "2001:4860:4860::8888",
    "10.0.0.1",
    "89.160.20.112",
    "175.16.199.1",
];

const ASSETS: [(&str, &str); 5] = [
    ("/", "index.html"),
    ("/app.js", "app.js"),
    ("/style.css", "style.css"),
    ("/world.svg", "world.svg"),
    ("/favicon.svg", "favicon.svg"),
];

/// One GET from `source` (a 127.0.0.x address: another client to nginx), read to the end.
fn get(
    proxy: SocketAddr,
    source: Ipv4Addr,
    path: &str,
    headers: &[(&str, &str)],
) -> anyhow::Result<RawResponse> {
    try_raw_request(proxy, Some(IpAddr::V4(source)), "GET", path, headers)
        .with_context(|| format!("GET {path} from {source}"))
}

/// A replica on a free port; its address from the "listening" log line.
fn start_replica(binary: &Path) -> anyhow::Result<(Child, SocketAddr)> {
    let (child, address) = spawn_server(
        Command::new(binary)
            .args(["--addr", "127.0.0.1:0"])
            .args(["--trust-proxy", &format!("{PROXY_SOURCE}/32")])
            // The origin counts are read from each replica's own `/metrics`.
            .arg("--public-metrics")
            .args(["--log", "warn,geo_server=info"])
            .args(["--geo-max-age", &MAX_AGE.to_string()])
            .env("NO_COLOR", "1"),
    )?;
    Ok((child, address.parse()?))
}

fn nginx_config(dir: &Path, port: u16, replicas: &[SocketAddr]) -> String {
    let servers: String = replicas
        .iter()
        .map(|replica| format!("        server {replica};\n"))
        .collect();
    let dir = dir.display();
    format!(
        "user root;\nworker_processes 1;\ndaemon off;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log warn;\n\
         events {{ worker_connections 256; }}\n\
         http {{\n    access_log off;\n\
             client_body_temp_path {dir}/body;\n    proxy_temp_path {dir}/proxy;\n\
             fastcgi_temp_path {dir}/fastcgi;\n    uwsgi_temp_path {dir}/uwsgi;\n    scgi_temp_path {dir}/scgi;\n\
             proxy_cache_path {dir}/cache keys_zone=geo:10m;\n\
             upstream replicas {{\n{servers}        keepalive 16;\n    }}\n\
             server {{\n        listen 127.0.0.1:{port};\n\
                 location / {{\n\
                     proxy_pass http://replicas;\n\
                     proxy_bind {PROXY_SOURCE};\n\
                     proxy_http_version 1.1;\n\
                     proxy_set_header Connection \"\";\n\
                     # The proxy's own view of the client, never what the client claims.\n\
                     proxy_set_header X-Forwarded-For $remote_addr;\n\
                     proxy_cache geo;\n\
                     proxy_cache_revalidate on;\n\
                     add_header X-Cache-Status $upstream_cache_status always;\n\
                 }}\n\
             }}\n}}\n"
    )
}

/// `geo_http_requests_total` of a replica, by (route, status).
type OriginCounts = BTreeMap<(String, String), u64>;

/// A replica's [`OriginCounts`], from its `/metrics`.
fn origin_counts(replica: SocketAddr) -> anyhow::Result<OriginCounts> {
    let reply = get(replica, Ipv4Addr::LOCALHOST, "/metrics", &[])?;
    Ok(samples(&reply.text(), "geo_http_requests_total")
        .into_iter()
        .filter_map(|(labels, count)| {
            let key = (labels.get("route")?.clone(), labels.get("status")?.clone());
            Some((key, count as u64))
        })
        .collect())
}

fn count_of(counts: &[OriginCounts], route: &str, statuses: &[&str]) -> u64 {
    counts
        .iter()
        .flat_map(|counts| counts.iter())
        .filter(|((counted_route, status), _)| {
            counted_route == route && statuses.contains(&status.as_str())
        })
        .map(|(_, count)| count)
        .sum()
}

fn gunzip(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// Runs the scenario; fails on the first broken promise.
pub fn run(args: &Args) -> anyhow::Result<()> {
    apt_install(&[("nginx", "/usr/sbin/nginx")])?;
    ensure_wrk()?;
    let binary = build_geo_server(args.quick)?;
    let dir = tempfile::tempdir()?;
    let mut children = Vec::new();
    let result = (|| {
        let (first, first_address) = start_replica(&binary)?;
        children.push(first);
        let (second, second_address) = start_replica(&binary)?;
        children.push(second);
        let replicas = [first_address, second_address];
        let port = free_port();
        let config = dir.path().join("nginx.conf");
        std::fs::write(&config, nginx_config(dir.path(), port, &replicas))?;
        let nginx = Command::new("/usr/sbin/nginx")
            .arg("-c")
            .arg(&config)
            .arg("-p")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start nginx")?;
        children.push(nginx);
        let proxy: SocketAddr = SocketAddr::from(([127, 0, 0, 1], port));
        wait_until_listening(proxy).with_context(|| {
            std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default()
        })?;
        scenario(proxy, &replicas, args.quick)
    })();
    for mut child in children {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let _ = child.wait();
    }
    result
}

/// Requests sent through the proxy, and how many it answered from its cache.
#[derive(Debug, Default)]
struct Tally {
    requests: u64,
    hits: u64,
}

impl Tally {
    fn record(&mut self, reply: &RawResponse) {
        self.requests += 1;
        if reply.header("x-cache-status").unwrap_or_default() == "HIT" {
            self.hits += 1;
        }
    }
}

fn client(index: u8) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, 10 + index)
}

/// The scenario through the proxy at `proxy` before `replicas`: the SPA, `/geo/<ip>`, `/geo/me`,
/// what reached the origins, a revalidation, then throughput; writes the table.
fn scenario(proxy: SocketAddr, replicas: &[SocketAddr], quick: bool) -> anyhow::Result<()> {
    let mut tally = Tally::default();
    spa_through_the_cache(proxy, &mut tally)?;
    let geo_requests = (ADDRESSES.len() * 5) as u64;
    let hits_before_geo = tally.hits;
    every_address(proxy, &mut tally)?;
    each_sees_its_own(proxy, &mut tally)?;
    let geo_hits = tally.hits - hits_before_geo;
    let counts = all_counts(replicas)?;
    let geo_origin = count_of(&counts, "/geo/:ip", &["200", "404"]);
    ensure!(
        geo_origin <= ADDRESSES.len() as u64,
        "the origins answered /geo/<ip> {geo_origin} times for {} cache keys",
        ADDRESSES.len()
    );
    let me_origin = count_of(&counts, "/geo/me", &["200", "404"]);
    ensure!(
        me_origin == 15,
        "every /geo/me reached an origin ({me_origin} of 15)"
    );
    let after = revalidation(proxy, replicas, &counts, &mut tally)?;
    // Throughput: a cached answer through the proxy against one replica directly.
    let seconds = if quick { 2 } else { 10 };
    let through_proxy = requests_per_second(proxy, seconds)?;
    let direct = requests_per_second(replicas[0], seconds)?;
    let per_replica: Vec<u64> = after
        .iter()
        .map(|counts| {
            counts
                .iter()
                .filter(|((route, _), _)| route != "/metrics")
                .map(|(_, count)| count)
                .sum()
        })
        .collect();
    let table = format!(
        "Two geo-server replicas behind nginx `proxy_cache` (round robin), clients on 127.0.0.10-14, `--geo-max-age {MAX_AGE}`.\n\n\
         | requests through the proxy | cache hits (all) | `/geo/<ip>` hit ratio | origin requests, replica 1 | replica 2 | `/geo/<ip>` at the origins | req/s through the proxy | req/s one replica direct |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n\
         | {} | {} | {:.0}% ({geo_hits} of {geo_requests}) | {} | {} | {geo_origin} for {} keys + 1 revalidation (304) | {through_proxy:.0} | {direct:.0} |\n\n\
         The SPA's files are `no-cache` (not fingerprinted), which nginx does not store: they reach an origin every time; \
         `/geo/me` is `private, no-store` and reaches an origin every time, as it must.\n",
        tally.requests,
        tally.hits,
        100.0 * geo_hits as f64 / geo_requests as f64,
        per_replica.first().copied().unwrap_or(0),
        per_replica.get(1).copied().unwrap_or(0),
        ADDRESSES.len(),
    );
    println!("{table}");
    std::fs::create_dir_all("target/bench")?;
    std::fs::write("target/bench/scale.md", &table)?;
    Ok(())
}

/// The origins' request counts, replica by replica.
fn all_counts(replicas: &[SocketAddr]) -> anyhow::Result<Vec<OriginCounts>> {
    replicas
        .iter()
        .map(|replica| origin_counts(*replica))
        .collect()
}

/// The SPA, by gzip and identity clients alternately, through the cache, and a deep link.
fn spa_through_the_cache(proxy: SocketAddr, tally: &mut Tally) -> anyhow::Result<()> {
    let spa = Path::new("assets/spa");
    for round in 0..4u8 {
        for (path, file) in ASSETS {
            let on_disk = std::fs::read(spa.join(file))?;
            let takes_gzip = round % 2 == 0;
            let headers: &[(&str, &str)] = if takes_gzip {
                &[("Accept-Encoding", "gzip")]
            } else {
                &[]
            };
            let reply = get(proxy, client(round), path, headers)?;
            tally.record(&reply);
            ensure!(reply.status == 200, "{path}: status {}", reply.status);
            let encoding = reply.header("content-encoding").unwrap_or_default();
            if takes_gzip && encoding == "gzip" {
                ensure!(gunzip(&reply.body)? == on_disk, "{path}: gzip body differs");
            } else {
                ensure!(
                    encoding.is_empty(),
                    "{path}: a client without gzip got {encoding}"
                );
                ensure!(reply.body == on_disk, "{path}: identity body differs");
            }
        }
        // A deep link of the app, as a browser navigates to it.
        let reply = get(
            proxy,
            client(round),
            "/lookup/8.8.8.8",
            &[("Accept", "text/html")],
        )?;
        tally.record(&reply);
        ensure!(
            reply.body == std::fs::read(spa.join("index.html"))?,
            "deep link body"
        );
    }

    Ok(())
}

/// `/geo/<ip>`: every address from five clients.
fn every_address(proxy: SocketAddr, tally: &mut Tally) -> anyhow::Result<()> {
    for round in 0..5u8 {
        for address in ADDRESSES {
            let reply = get(proxy, client(round), &format!("/geo/{address}"), &[])?;
            tally.record(&reply);
            ensure!(
                matches!(reply.status, 200 | 404),
                "/geo/{address}: {}",
                reply.status
            );
            if reply.status == 200 {
                let json: serde_json::Value = serde_json::from_slice(&reply.body)?;
                ensure!(
                    json["ip"] == address,
                    "/geo/{address} answered {}",
                    json["ip"]
                );
            }
        }
    }

    Ok(())
}

/// `/geo/me` from distinct addresses: each sees its own, never another's, never a cached one.
fn each_sees_its_own(proxy: SocketAddr, tally: &mut Tally) -> anyhow::Result<()> {
    for repeat in 0..3 {
        for index in 0..5u8 {
            let source = client(index);
            let reply = get(proxy, source, "/geo/me", &[])?;
            tally.record(&reply);
            let json: serde_json::Value = serde_json::from_slice(&reply.body)
                .with_context(|| format!("/geo/me from {source}: not JSON"))?;
            ensure!(
                json["ip"] == source.to_string(),
                "/geo/me from {source} (round {repeat}) answered {}",
                json["ip"]
            );
            ensure!(
                reply.header("x-cache-status").unwrap_or_default() != "HIT",
                "/geo/me was cached"
            );
        }
    }

    Ok(())
}

/// After expiry the proxy revalidates, and the origin answers 304; the counts after it.
fn revalidation(
    proxy: SocketAddr,
    replicas: &[SocketAddr],
    counts: &[OriginCounts],
    tally: &mut Tally,
) -> anyhow::Result<Vec<OriginCounts>> {
    // nginx counts freshness in whole seconds of its cached clock: wait well past the max-age.
    std::thread::sleep(Duration::from_secs(MAX_AGE * 3));
    let revalidated = get(proxy, client(0), "/geo/8.8.8.8", &[])?;
    tally.record(&revalidated);
    ensure!(
        revalidated.status == 200,
        "revalidated answer: {}",
        revalidated.status
    );
    ensure!(
        revalidated.header("x-cache-status").unwrap_or_default() == "REVALIDATED",
        "expected a revalidation, the proxy said {}: {:?}",
        revalidated.header("x-cache-status").unwrap_or_default(),
        revalidated.headers
    );
    let after = all_counts(replicas)?;
    ensure!(
        count_of(&after, "/geo/:ip", &["304"]) == count_of(counts, "/geo/:ip", &["304"]) + 1,
        "the revalidation was not a 304 from the origin"
    );
    ensure!(
        count_of(&after, "/geo/:ip", &["200", "404"])
            == count_of(counts, "/geo/:ip", &["200", "404"]),
        "the revalidation fetched the answer again"
    );

    Ok(after)
}

/// req/s of `GET /geo/8.8.8.8` at `target` for `seconds`.
fn requests_per_second(target: SocketAddr, seconds: u32) -> anyhow::Result<f64> {
    // Unpinned: nginx, both replicas and wrk share the two cores.
    let output = wrk(None, 16, u64::from(seconds))
        .arg(format!("http://{target}/geo/8.8.8.8"))
        .output()
        .context("cannot run wrk")?;
    if !output.status.success() {
        bail!("wrk failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(crate::bench_http::parse_wrk(&String::from_utf8_lossy(&output.stdout))?.requests_per_second)
}
