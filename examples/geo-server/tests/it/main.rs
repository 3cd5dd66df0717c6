//! geo-server through its router (`oneshot`) and as a real process.

/// The tests read heap figures (the copy mode retains the database), as the binary does.
#[global_allocator]
static ALLOCATOR: geo_server::alloc::CountingAllocator = geo_server::alloc::CountingAllocator;

mod answers;
mod api;
mod caching;
mod databases;
mod doors;
mod hostile;
mod libmaxminddb;
mod overlay;
mod process;
mod reference;
mod reload;
mod site;
mod support;
mod tree_jump;
