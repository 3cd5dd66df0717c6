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
