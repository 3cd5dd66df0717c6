//! The HTTP service through `tower::ServiceExt::oneshot`, one test per behaviour, plus one real
//! server on 127.0.0.1 driven by a real client.

mod allocations;
mod assets;
mod bundle;
mod conditional;
mod deploy;
mod encoding;
mod headers;
mod hostile;
mod methods;
mod misses;
mod negotiation;
mod overlay;
mod paths;
mod properties;
mod ranges;
mod real_server;
mod rfc9110;
mod server;
mod support;
mod tower_http;
mod types;
mod zerocopy;

/// Allocations are counted per thread (allocations.rs); counting costs two `Cell` updates.
#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;
