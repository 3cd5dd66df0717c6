//! What one request costs in heap allocations through `ServeCatalog`, case by case: the
//! response, its body drained. Counted on this thread only by the test binary's allocator
//! ([`Counting`]), after a warm-up, and split into what any `http::Response` with the same
//! headers costs (its `HeaderMap`: the floor) and what bindery adds. BENCHMARKS.md's table is
//! [`table`]'s output (`cargo test -p bindery --test serve allocations -- --nocapture`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bindery::serve::ServeCatalog;
use http::{HeaderMap, Request, Response};
use http_body::Body as _;

use crate::support::{SPA, VUE};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting each allocation (and reallocation) of the calling thread.
pub struct Counting;

fn count(bytes: usize) {
    // `try_with`: a thread being torn down has no counters left; its allocations are not ours.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    let _ = BYTES.try_with(|total| total.set(total.get() + bytes as u64));
}

// SAFETY: every method forwards to `System` with the same arguments and only adds two
// thread-local counter updates (const-initialised `Cell`s: no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

fn counted<T>(work: impl FnOnce() -> T) -> (T, u64, u64) {
    let before = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    let out = work();
    let after = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    (out, after.0 - before.0, after.1 - before.1)
}

/// One request's allocations: the response and its body drained, and the floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub status: u16,
    pub allocations: u64,
    pub bytes: u64,
    /// What a `Response` with the same headers costs when built by hand.
    pub floor: u64,
}

impl Cost {
    /// The allocations bindery adds over the floor.
    pub fn own(&self) -> u64 {
        self.allocations.saturating_sub(self.floor)
    }
}

/// The allocations of a response with `headers`, built as tightly as `http` allows.
fn floor(headers: &HeaderMap) -> u64 {
    let (_, allocations, _) = counted(|| {
        let mut map = HeaderMap::with_capacity(headers.len());
        for (name, value) in headers {
            map.append(name.clone(), value.clone());
        }
        let mut response = Response::new(());
        *response.headers_mut() = map;
        response
    });
    allocations
}

fn drain(response: Response<bindery::serve::Body>) {
    let mut body = response.into_body();
    let runtime_free = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(runtime_free);
    while let std::task::Poll::Ready(Some(frame)) =
        std::pin::Pin::new(&mut body).poll_frame(&mut context)
    {
        drop(frame);
    }
}

/// The cost of `request` through `service`: the third of three runs (the first two warm
/// whatever is made once), the response then its body drained.
pub fn cost(service: &ServeCatalog, request: &Request<()>) -> Cost {
    for _ in 0..2 {
        drain(service.respond(request));
    }
    let (response, made, made_bytes) = counted(|| service.respond(request));
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let ((), drained, drained_bytes) = counted(|| drain(response));
    Cost {
        status,
        allocations: made + drained,
        bytes: made_bytes + drained_bytes,
        floor: floor(&headers),
    }
}

fn get(path: &str, headers: &[(&str, &str)]) -> Request<()> {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(()).expect("a request")
}

/// Every case, with the cost now: (case, cost).
pub fn table() -> Vec<(&'static str, Cost)> {
    let vue = ServeCatalog::new(&VUE);
    let spa = ServeCatalog::builder(&SPA)
        .spa_fallback("index.html")
        .build()
        .expect("the SPA has index.html");
    let etag = VUE.file("vue.min.js").expect("vue").etag();
    let mut head = get("/vue.min.js", &[]);
    *head.method_mut() = http::Method::HEAD;
    vec![
        (
            "200 identity (static)",
            cost(&vue, &get("/vue.min.js", &[])),
        ),
        (
            "200 br (static, precompressed)",
            cost(
                &vue,
                &get("/vue.min.js", &[("accept-encoding", "gzip, br")]),
            ),
        ),
        (
            "304",
            cost(&vue, &get("/vue.min.js", &[("if-none-match", etag)])),
        ),
        ("HEAD", cost(&vue, &head)),
        (
            "206, one range",
            cost(&vue, &get("/vue.min.js", &[("range", "bytes=100-199")])),
        ),
        ("404", cost(&vue, &get("/missing.js", &[]))),
        (
            "SPA fallback (gzip)",
            cost(
                &spa,
                &get(
                    "/deep/link",
                    &[("accept", "text/html"), ("accept-encoding", "gzip")],
                ),
            ),
        ),
    ]
}

/// What bindery itself allocates per case, held where it is: any rise fails here. The note of
/// issue 50 and BENCHMARKS.md ("What a request allocates") have the table.
const OWN: [(&str, u64); 7] = [
    ("200 identity (static)", 0),
    ("200 br (static, precompressed)", 0),
    ("304", 0),
    ("HEAD", 0),
    ("206, one range", 3),
    ("404", 0),
    ("SPA fallback (gzip)", 0),
];

#[test]
fn bindery_allocates_nothing_of_its_own_per_request() {
    let table = table();
    for (case, cost) in &table {
        eprintln!(
            "{case}: status {}, {} allocations ({} bytes), floor {}, bindery's own {}",
            cost.status,
            cost.allocations,
            cost.bytes,
            cost.floor,
            cost.own()
        );
    }
    for ((case, cost), (expected_case, own)) in table.iter().zip(OWN) {
        assert_eq!(*case, expected_case);
        assert!(
            cost.own() <= own,
            "{case}: bindery allocates {} times of its own (held at {own}): {cost:?}",
            cost.own()
        );
    }
}
