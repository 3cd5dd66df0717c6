//! A connection's socket as its activity knows it: the descriptor while it is open, so that
//! the server can shut it down under an application that holds it after an upgrade, and make
//! its close a reset when this side ends it.

#[cfg(unix)]
use std::sync::PoisonError;

use super::Activity;

impl Activity {
    /// Records the socket's descriptor while it is open.
    #[cfg(unix)]
    pub(in crate::serve::server) fn attach_socket(&self, fd: std::os::fd::RawFd) {
        *self.socket_lock() = Some(fd);
    }

    #[cfg(unix)]
    pub(super) fn socket_lock(&self) -> std::sync::MutexGuard<'_, Option<std::os::fd::RawFd>> {
        self.socket.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that the socket is dropped (called before its descriptor closes).
    pub(in crate::serve::server) fn detach_socket(&self) {
        #[cfg(unix)]
        self.socket_lock().take();
        self.socket_gone.notify_waiters();
    }

    /// Whether the socket is still open (held by hyper or, after an upgrade, the application).
    pub(in crate::serve::server) fn has_socket(&self) -> bool {
        #[cfg(unix)]
        return self.socket_lock().is_some();
        #[cfg(not(unix))]
        true
    }

    /// Completes when the socket is dropped (at once if it is; elsewhere than Unix, when it
    /// is dropped after this is first polled). Any number may wait.
    pub(in crate::serve::server) async fn socket_dropped(&self) {
        loop {
            let notified = self.socket_gone.notified();
            let mut notified = std::pin::pin!(notified);
            // Registered before the check: a drop between the two still wakes it.
            notified.as_mut().enable();
            if !self.has_socket() {
                return;
            }
            notified.await;
        }
    }

    /// Shuts the socket down (both ways) while it is open, so that whoever holds it (an
    /// application after an upgrade) reads its end and lets it go. Elsewhere than Unix
    /// nothing: the holder keeps it.
    pub(in crate::serve::server) fn shut_socket(&self) {
        #[cfg(unix)]
        {
            let socket = self.socket_lock();
            if let Some(fd) = *socket {
                // SAFETY: the descriptor is open: it is taken out of `socket` (under this lock)
                // before the stream that owns it is closed (`detach_socket`).
                let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
                let _ = rustix::net::shutdown(fd, rustix::net::Shutdown::Both);
            }
        }
    }

    /// Makes the socket's close a reset (`SO_LINGER` 0): what is still queued for the client is
    /// dropped instead of being sent on by the kernel after the close (an orphan socket), for
    /// connections this side closes: at a deadline, for room, at the end of the grace.
    pub(in crate::serve::server) fn reset_on_close(&self) {
        #[cfg(unix)]
        {
            let socket = self.socket_lock();
            if let Some(fd) = *socket {
                // SAFETY: as in `shut_socket`: open while it is in `socket`, under this lock.
                let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
                let _ =
                    rustix::net::sockopt::set_socket_linger(fd, Some(std::time::Duration::ZERO));
            }
        }
    }
}
