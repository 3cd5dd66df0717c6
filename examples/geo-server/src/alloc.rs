//! A global allocator that counts the heap bytes in use, so the server can say what each
//! database mode really costs in heap (the copy mode's 56 MB, the others' few hundred bytes).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Wraps the system allocator and keeps a running total of live heap bytes. A binary opts in
/// by declaring it (the library does not, so whatever links it keeps its own allocator):
///
/// ```
/// #[global_allocator]
/// static ALLOCATOR: geo_server::alloc::CountingAllocator = geo_server::alloc::CountingAllocator;
///
/// fn main() {
///     let before = geo_server::alloc::heap_in_use();
///     let buffer = vec![0u8; 1 << 20];
///     assert!(geo_server::alloc::heap_in_use() >= before + (1 << 20));
///     drop(buffer);
/// }
/// ```
pub struct CountingAllocator;

static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// Heap bytes currently allocated through the global allocator; 0 in a program that did not
/// declare [`CountingAllocator`] as its global allocator.
pub fn heap_in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

// SAFETY: every method forwards to `System` with the same arguments and only adds bookkeeping
// on an atomic counter; allocation behaviour is exactly the system allocator's.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
            IN_USE.fetch_add(new_size, Ordering::Relaxed);
        }
        moved
    }
}

/// Sets glibc's allocator up for a long-running server whose private memory should stay flat;
/// call it first thing in `main`, before any thread starts. Elsewhere nothing.
///
/// - **Thresholds held at their start (128 KiB):** larger blocks are mapped on their own, and
///   more than that free at the top of a heap goes back to the system. By default each freed
///   mapped block raises both, up to 32 and 64 MiB, so a server that once freed a
///   megabyte-sized block (a buffer, a cache's table) keeps up to that much resident at the top
///   of each thread's heap, where `malloc_trim` does not reach (it trims only the main heap's
///   top): memory not in use that grows with the largest block ever freed.
/// - **One heap per worker thread, plus the main one:** glibc gives a thread that finds every
///   heap busy a new one, up to eight per core, and keeps each for good; a burst of blocking
///   threads (reloads, decompression) adds a heap of its own that never goes away. With the
///   heaps capped at what the runtime's workers need, later threads share them.
///
/// Whatever the environment sets (`MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`,
/// `MALLOC_ARENA_MAX`, or the same in `GLIBC_TUNABLES`) is left alone: an operator keeps the last
/// word.
///
/// ```
/// geo_server::alloc::configure_allocator(2);
/// let block = vec![0u8; 4 << 20];
/// drop(block);
/// ```
pub fn configure_allocator(workers: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // glibc's <malloc.h>.
        const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        const M_ARENA_MAX: std::ffi::c_int = -8;
        const START: std::ffi::c_int = 128 * 1024;
        let heaps =
            std::ffi::c_int::try_from(workers.saturating_add(1)).unwrap_or(std::ffi::c_int::MAX);
        let settings = [
            (
                M_MMAP_THRESHOLD,
                START,
                "MALLOC_MMAP_THRESHOLD_",
                "mmap_threshold",
            ),
            (
                M_TRIM_THRESHOLD,
                START,
                "MALLOC_TRIM_THRESHOLD_",
                "trim_threshold",
            ),
            (M_ARENA_MAX, heaps, "MALLOC_ARENA_MAX", "arena_max"),
        ];
        let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
        for (parameter, value, variable, tunable) in settings {
            if std::env::var_os(variable).is_some() || tunables.contains(tunable) {
                continue;
            }
            unsafe extern "C" {
                fn mallopt(parameter: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
            }
            // SAFETY: `mallopt` only sets one of the allocator's parameters, and these values
            // are valid for them (setting either threshold turns their adjustment off).
            unsafe {
                mallopt(parameter, value);
            }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = workers;
}

/// Returns freed heap pages to the system (glibc's `malloc_trim`): after a reload empties the
/// answer cache, its megabytes would otherwise stay in the process as free slack of the
/// allocator, counted in its private RSS and in a container's memory limit. Elsewhere nothing.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: glibc's `malloc_trim` takes a padding and may be called at any time from any
        // thread; it only releases memory that is free.
        unsafe {
            malloc_trim(0);
        }
    }
}
