//! Reloading a memory-mapped database: on SIGHUP, and when the file is replaced by a rename.

use std::sync::Arc;
use std::time::Duration;

use crate::db::GeoDb;
use crate::private_copy::FileIdentity;

/// Reloads now and logs the outcome; the old database stays on any error.
pub fn reload_now(db: &GeoDb) {
    match db.reload() {
        Ok(info) => tracing::info!(
            database_type = %info.database_type,
            build_epoch = info.build_epoch,
            size = info.size,
            "database reloaded"
        ),
        Err(error) => tracing::error!(%error, "reload refused; keeping the current database"),
    }
}

/// Reloads on the blocking pool: verifying a 56 MB database takes about a second, and on a
/// runtime with one worker (one core) that would stall every request meanwhile.
async fn reload_in_background(db: &Arc<GeoDb>) {
    let db = Arc::clone(db);
    if let Err(error) = tokio::task::spawn_blocking(move || reload_now(&db)).await {
        tracing::error!(%error, "reload task failed");
    }
}

/// Watches for SIGHUP and for another file at the path (polled every `poll`), reloading on
/// either. Runs until the process ends. Does nothing for databases that cannot reload.
///
/// What counts as "another file" is compared with the identity of the file that was loaded,
/// taken from the descriptor that was read, never with a `stat` made after the load: a rename
/// during a load is seen at the next poll. A file whose load was refused is not tried again
/// until it changes. A SIGHUP that comes during a load is kept by the signal stream and acted on
/// when the load ends.
pub async fn watch(db: Arc<GeoDb>, poll: Duration) {
    let Some(path) = db.path().map(std::path::Path::to_path_buf) else {
        return;
    };
    let mut hangup = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(signal) => Some(signal),
        Err(error) => {
            tracing::warn!(%error, "cannot listen for SIGHUP");
            None
        }
    };
    let mut refused: Option<FileIdentity> = None;
    let mut ticker = tokio::time::interval(poll);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let on_signal = async {
            match hangup.as_mut() {
                Some(signal) => signal.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = on_signal => {
                tracing::info!("SIGHUP received");
                let now = FileIdentity::at(&path);
                reload_in_background(&db).await;
                refused = now.filter(|now| Some(*now) != db.info().file);
            }
            _ = ticker.tick() => {
                let now = FileIdentity::at(&path);
                let loaded = db.info().file;
                if now.is_some() && now != loaded && now != refused {
                    tracing::info!(path = %path.display(), "database file changed");
                    reload_in_background(&db).await;
                    refused = now.filter(|now| Some(*now) != db.info().file);
                }
            }
        }
    }
}
