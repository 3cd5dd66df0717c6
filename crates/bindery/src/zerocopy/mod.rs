//! Zero-copy sending (Linux, feature `zerocopy`): embedded bytes go from the executable's pages
//! to the socket with `sendfile(2)`, without the copy from user memory into socket buffers that
//! `write` makes.
//!
//! The bytes of a `static` catalog live in read-only sections of the executable (`include_bytes!`
//! data and `.incbin` blobs); the kernel maps them from the file. [`ZeroCopyStream`] wraps an
//! accepted `TcpStream` so that a write of such bytes (a `Bytes::from_static` body as
//! `ServeCatalog` sends it: a whole file, a range, a precompressed variant) becomes a
//! `sendfile` from `/proc/self/exe` at the bytes' file offset; heads, heap bodies, small writes
//! and everything else are written as before. hyper does not change: one HTTP engine.
//!
//! - HTTP/1.1: bodies of [`DEFAULT_THRESHOLD`] (1 MiB) or more go by `sendfile`, the head before
//!   them as a plain write; smaller ones are copied.
//! - HTTP/2: DATA frames are written from h2's buffers; where a frame's payload is a slice of
//!   the embedded bytes it is sent by `sendfile` too, else as before; nothing changes meaning.
//! - TLS: not applicable. A TLS stream encrypts into its own buffers, so wrap the TCP stream
//!   under it and every write is simply a plain one; use kTLS offload for zero-copy there.
//! - A binary replaced by rename while it runs: the executable is opened once, at the first
//!   use, through `/proc/self/exe`, which names the running image's inode whatever the path
//!   now holds; an executable cannot be written in place while it runs (`ETXTBSY`).
//! - Bytes outside the executable's read-only, file-backed data (heap, stack, writable or
//!   relocated sections) are never sent from the file: the ranges are the non-writable
//!   `PT_LOAD` segments less `PT_GNU_RELRO`, each checked against `/proc/self/maps` and, every
//!   byte of it, against the file before the first use (a one-time read of the executable's
//!   read-only data: tens of milliseconds for a binary that embeds tens of megabytes).
//! - `sendfile` cannot be told not to raise SIGPIPE (as `send` is, with `MSG_NOSIGNAL`), and a
//!   client that closes its end would then kill a process that has not ignored it. Rust's
//!   runtime ignores SIGPIPE before `main`; where it is not ignored at the first use (a C host,
//!   `#[unix_sigpipe = "sig_dfl"]`), zero-copy stays off.
//!
//! On other platforms, or where the image cannot be read, [`is_available`] is false and the
//! stream writes as a plain one. A failure that may pass (out of file descriptors, say) is tried
//! again a second later; one that cannot (not an ELF file, a byte that differs) is final.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let app = axum::Router::new().fallback_service(bindery::serve::ServeCatalog::new(&SITE));
//! # #[cfg(feature = "axum")]
//! axum::serve(bindery::zerocopy::ZeroCopyListener::new(listener), app).await?;
//! # Ok(()) }
//! ```

#[cfg(target_os = "linux")]
mod image;
#[cfg(feature = "axum")]
mod listener;
mod stream;

#[cfg(target_os = "linux")]
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(feature = "axum")]
pub use listener::ZeroCopyListener;
pub use stream::ZeroCopyStream;

/// Bodies shorter than this (1 MiB) go by `write` unless a stream is told otherwise
/// ([`ZeroCopyStream::with_threshold`]). `sendfile` moves each 4 KiB page through the kernel's
/// splice path at a fixed cost per page, while `write` copies bytes that are still in the
/// CPU's caches: a small body costs less CPU copied, a large one less spliced. Where the two
/// cross, and how it was measured: BENCHMARKS.md, "Zero-copy sending".
pub const DEFAULT_THRESHOLD: usize = 1024 * 1024;

/// The running executable's image, read at the first use; `None` while it cannot be.
#[cfg(target_os = "linux")]
fn image() -> Option<&'static image::Image> {
    use std::sync::atomic::AtomicBool;
    use std::sync::{Mutex, PoisonError};
    static IMAGE: OnceLock<image::Image> = OnceLock::new();
    /// Set when the image can never be read (not ELF, memory that is not the file's...).
    static FINAL: AtomicBool = AtomicBool::new(false);
    /// When the last attempt failed for a reason that may pass.
    static LAST_FAILURE: Mutex<Option<std::time::Instant>> = Mutex::new(None);
    if let Some(image) = IMAGE.get() {
        return Some(image);
    }
    if FINAL.load(Ordering::Relaxed) {
        return None;
    }
    let mut last_failure = LAST_FAILURE.lock().unwrap_or_else(PoisonError::into_inner);
    if last_failure.is_some_and(|at| at.elapsed() < RETRY_AFTER) {
        return None;
    }
    if let Some(image) = IMAGE.get() {
        return Some(image);
    }
    match image::Image::load().and_then(|image| {
        is_sigpipe_ignored()
            .then_some(image)
            .ok_or_else(sigpipe_not_ignored)
    }) {
        Ok(image) => Some(IMAGE.get_or_init(|| image)),
        Err(error) => {
            if is_final(&error) {
                FINAL.store(true, Ordering::Relaxed);
            } else {
                *last_failure = Some(std::time::Instant::now());
            }
            None
        }
    }
}

/// How long after a failure that may pass (out of descriptors) the image is read again.
#[cfg(target_os = "linux")]
const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a failure to read the image is for good: what the file is, not what the process
/// lacks now.
#[cfg(target_os = "linux")]
fn is_final(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::InvalidData | std::io::ErrorKind::Unsupported
    )
}

/// Whether SIGPIPE is ignored, as Rust's runtime sets it before `main`: `sendfile` to a socket
/// whose peer is gone then fails with `EPIPE` instead of killing the process.
#[cfg(target_os = "linux")]
fn is_sigpipe_ignored() -> bool {
    // SAFETY: `sigaction` with a null new action only reads the current one into `current`,
    // a zeroed `sigaction` struct that lives for the call.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(target_os = "linux")]
fn sigpipe_not_ignored() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "SIGPIPE is not ignored: sendfile would raise it when a client goes away",
    )
}

/// Where `bytes` lie in the executable's file.
#[cfg(target_os = "linux")]
fn offset_in_image(bytes: &[u8]) -> Option<u64> {
    image()?.offset_of(bytes)
}

/// Elsewhere there is no image to send from: every write is a plain one.
#[cfg(not(target_os = "linux"))]
fn offset_in_image(_: &[u8]) -> Option<u64> {
    None
}

/// Whether zero-copy sending works in this process (Linux, a readable ELF image).
///
/// ```
/// # #[cfg(target_os = "linux")]
/// assert!(bindery::zerocopy::is_available());
/// ```
pub fn is_available() -> bool {
    #[cfg(target_os = "linux")]
    return image().is_some();
    #[cfg(not(target_os = "linux"))]
    return false;
}

/// Where `bytes` lie in the executable's file, when they are all in its read-only data: the
/// offset a `sendfile` of them starts at. `None` for heap bytes, writable data, or when
/// [`is_available`] is false.
///
/// ```
/// static SITE: bindery::Catalog = bindery::embed!("../../assets/fixtures");
/// let raw = SITE.file("hello.txt").unwrap().raw().unwrap();
/// # #[cfg(target_os = "linux")]
/// assert!(bindery::zerocopy::file_offset(raw).is_some());
/// assert_eq!(bindery::zerocopy::file_offset(&raw.to_vec()), None, "a heap copy");
/// ```
pub fn file_offset(bytes: &[u8]) -> Option<u64> {
    offset_in_image(bytes)
}

/// What went by `sendfile` and what did not, in this process since it started.
///
/// ```
/// let stats = bindery::zerocopy::stats();
/// assert!(stats.sendfile_bytes >= stats.sendfile_calls);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZeroCopyStats {
    /// `sendfile` calls that sent bytes.
    pub sendfile_calls: u64,
    /// Bytes they sent.
    pub sendfile_bytes: u64,
    /// Writes that went the plain way (heads, small or heap bodies).
    pub plain_writes: u64,
}

struct Counters {
    sendfile_calls: AtomicU64,
    sendfile_bytes: AtomicU64,
    plain_writes: AtomicU64,
}

static STATS: Counters = Counters {
    sendfile_calls: AtomicU64::new(0),
    sendfile_bytes: AtomicU64::new(0),
    plain_writes: AtomicU64::new(0),
};

/// The counters now.
pub fn stats() -> ZeroCopyStats {
    ZeroCopyStats {
        sendfile_calls: STATS.sendfile_calls.load(Ordering::Relaxed),
        sendfile_bytes: STATS.sendfile_bytes.load(Ordering::Relaxed),
        plain_writes: STATS.plain_writes.load(Ordering::Relaxed),
    }
}
