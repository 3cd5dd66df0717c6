//! An upgraded connection (a WebSocket in the application's hands): its slot kept, its own idle
//! deadline and the cap's and shutdown's signals watched until the application lets it go.

use std::net::SocketAddr;
use std::sync::Arc;

use super::super::activity::{Activity, Stop};
use super::super::deadlines::{self, Deadlines};
use super::super::slots::Slots;

/// Keeps an upgraded connection's deadline (no byte moved for
/// [`Server::upgrade_idle_timeout`](crate::serve::Server::upgrade_idle_timeout)) and the cap's and
/// shutdown's signals, until the application lets the socket go; at either, the socket is shut
/// down under the application, which then reads its end.
pub(super) async fn watch_upgraded(
    activity: &Arc<Activity>,
    deadlines: Deadlines,
    slots: &Slots,
    peer: SocketAddr,
) {
    activity.set_upgraded();
    slots.record_upgraded(1);
    loop {
        tokio::select! {
            () = activity.socket_dropped() => break,
            reason = deadlines::watchdog(Arc::clone(activity), deadlines) => {
                slots.record_expired(reason);
                tracing::debug!(%peer, "upgraded connection closed at its deadline");
                activity.reset_on_close();
                activity.shut_socket();
                break;
            }
            () = activity.stopped() => {
                if activity.stop_reason().is_some_and(|reason| reason >= Stop::Evicted) {
                    tracing::debug!(%peer, "upgraded connection closed");
                    activity.reset_on_close();
                    activity.shut_socket();
                    break;
                }
            }
        }
    }
    slots.record_upgraded(-1);
}
