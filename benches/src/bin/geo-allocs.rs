//! Allocations per request, by stage: how many heap allocations (and bytes) a `/geo/<ip>`
//! answer costs in the lookup alone, in decoding and rendering the JSON, and through geo-server's
//! app (its front door) and through its router alone, and what a small static file costs through
//! each. Counted by an allocator of this binary's own (geo-server's counting allocator keeps
//! bytes in use, not allocations). Prints a markdown table; the HTTP server's own layers (hyper, timeouts) are not
//! in it, wrk measures those.

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use clap::Parser;
use geo_server::db::GeoDb;
use geo_server::language::Language;
use http_body_util::BodyExt;
use tower::ServiceExt;

/// Counts every allocation and reallocation, and the bytes asked for.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the same arguments and only adds two relaxed
// counter updates; allocation behaviour is exactly the system allocator's.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Count allocations per `/geo` request, by stage.
#[derive(Debug, Parser)]
struct Args {
    /// Requests (and lookups) per stage.
    #[arg(long, default_value_t = 20_000)]
    requests: u32,
}

fn counters() -> (u64, u64) {
    (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    )
}

/// Allocations and bytes per call of `work`, over `count` calls.
fn per_call(count: u32, mut work: impl FnMut(u32)) -> (f64, f64) {
    let (allocations, bytes) = counters();
    for index in 0..count {
        work(index);
    }
    let (after_allocations, after_bytes) = counters();
    (
        (after_allocations - allocations) as f64 / f64::from(count),
        (after_bytes - bytes) as f64 / f64::from(count),
    )
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let db = GeoDb::embedded_with_hash(geodb::DATABASE, geodb::ORIGIN, geodb::DATABASE_BLAKE3)?;
    let addresses: Vec<IpAddr> = bindery_test_support::Xorshift::new(3)
        .take(args.requests as usize)
        .map(|state| IpAddr::V4(Ipv4Addr::from((state >> 32) as u32)))
        .collect();
    let reader = maxminddb::Reader::from_source(geodb::DATABASE)?;
    let lookup = per_call(args.requests, |index| {
        let _ = std::hint::black_box(
            reader
                .lookup(addresses[index as usize])
                .map(|result| result.has_data()),
        );
    });
    let render = per_call(args.requests, |index| {
        let _ = std::hint::black_box(db.lookup(addresses[index as usize], Language::English));
    });

    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    let state = geo_server::AppState::new(db);
    let front = Door::measure(
        &runtime,
        geo_server::app(state.clone()),
        &addresses,
        args.requests,
    );
    let router = Door::measure(
        &runtime,
        geo_server::router(state, geo_server::assets()),
        &addresses,
        args.requests,
    );
    let building_the_uri = per_call(args.requests, |index| {
        let _ = std::hint::black_box(format!("/geo/{}", addresses[index as usize]));
    });

    println!(
        "{} requests per stage, database `{}`, random IPv4 addresses; allocations (and bytes) per call.\n\n\
         | stage | allocations | bytes |\n| --- | --- | --- |\n\
         | `Reader::lookup` (search tree only) | {:.2} | {:.0} |\n\
         | `GeoDb::lookup` (lookup, decode, render JSON) | {:.2} | {:.0} |",
        args.requests,
        geodb::ORIGIN,
        lookup.0,
        lookup.1,
        render.0,
        render.1,
    );
    for (name, door) in [
        ("geo-server's app (front door)", front),
        ("the router alone", router),
    ] {
        println!(
            "| `/geo/<ip>` through {name} (`oneshot`, less building the URI) | {:.2} | {:.0} |\n\
             | a small static file (`/favicon.svg`) through {name} | {:.2} | {:.0} |",
            door.geo.0 - building_the_uri.0,
            door.geo.1 - building_the_uri.1,
            door.static_file.0,
            door.static_file.1,
        );
    }
    Ok(())
}

/// Allocations (and bytes) per request through one service.
struct Door {
    geo: (f64, f64),
    static_file: (f64, f64),
}

impl Door {
    fn measure<S, B>(
        runtime: &tokio::runtime::Runtime,
        service: S,
        addresses: &[IpAddr],
        requests: u32,
    ) -> Door
    where
        S: tower::Service<
                http::Request<Body>,
                Response = http::Response<B>,
                Error = std::convert::Infallible,
            > + Clone,
        B: axum::body::HttpBody,
    {
        let request = |uri: String| {
            let service = service.clone();
            runtime.block_on(async move {
                let response = service
                    .oneshot(
                        http::Request::get(uri)
                            .body(Body::empty())
                            .expect("request"),
                    )
                    .await
                    .expect("infallible");
                let _ = response.into_body().collect().await;
            });
        };
        // Warm up lazily built state (the router, the SPA's prepared headers).
        for index in 0..100 {
            request(format!("/geo/{}", addresses[index % addresses.len()]));
            request("/app.js".to_owned());
        }
        let geo = per_call(requests, |index| {
            request(format!("/geo/{}", addresses[index as usize]));
        });
        let static_file = per_call(requests, |_| request("/favicon.svg".to_owned()));
        Door { geo, static_file }
    }
}
