//! The PÜNCT game server: rooms, seats and spectators over HTTP and WebSockets.
//!
//! # Layout
//!
//! ARCHITECTURE.md is the map: its table of the server's modules, lowest layer first,
//! says what each owns and is the list `tests/it/architecture.rs` enforces. Each
//! module's own doc says the rest. This file is the composition root: [`run`] makes the
//! `services` every part shares (the store, the cluster's nodes, metrics, mail, the
//! computer's threads, the one stop), the actors' facades from them and `state`, and
//! serves the HTTP API and the WebSocket endpoint until its shutdown future completes;
//! then it fires the stop and waits for every connection and the mail to finish.

mod accounts;
mod api;
mod clock;
mod cluster;
mod computer;
mod config;
mod connection;
mod endings;
mod errors;
mod housekeeping;
mod i18n;
mod lease;
mod limits;
mod mail;
mod metrics;
mod moderation;
mod password;
mod proxy;
mod rating;
mod registry;
mod room;
mod secret;
mod seek;
mod services;
mod shutdown;
mod state;
mod store;
mod tournament;
mod views;

use std::sync::Arc;

use tokio::net::TcpListener;

pub use config::{Config, TournamentCreators};
pub use moderation::Console;
pub use store::Copied;

use cluster::Nodes;
use services::Services;
use state::AppState;
use store::Store;

/// Recomputes every rating, and what each rated game did to them, from the stored games
/// in the database of `config`, in the order they were rated; answers how many games.
/// On PostgreSQL, running servers may stay up (a game rated meanwhile waits for the
/// rebuild, then counts on top of it); a SQLite file should have no server running.
pub async fn rebuild_ratings(config: &Config) -> Result<usize, Box<dyn std::error::Error>> {
    let store = Store::open(config.database.as_deref()).await?;
    let games = store.rebuild_ratings().await?;
    close(&store).await;
    Ok(games)
}

/// The operator's `action` on the account named `username` (a role granted or taken
/// away, a ban or its end), for `reason`, in the database of `config`, written in the
/// audit log; answers what was done. Running servers may stay up.
pub async fn admin(
    config: &Config,
    username: &str,
    action: Console,
    reason: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let store = Store::open(config.database.as_deref()).await?;
    let done = moderation::console(&store, username, action, reason)
        .await
        .map_err(|refused| refused.message)?;
    close(&store).await;
    Ok(done)
}

/// Closes the store of a command done with it, so that a SQLite file is left whole as a
/// server's clean stop leaves it. The work is done by then: a server running beside (as
/// `admin` allows) may keep the WAL busy, which is its own to empty, not a failure.
async fn close(store: &Store) {
    if let Err(e) = store.close().await {
        tracing::warn!("closing the database: {e}");
    }
}

/// Copies everything in the SQLite file `from` into the empty PostgreSQL database `to`
/// (`postgres://…`, its schema made if need be), then checks the copy (see
/// `Store::migrate_to`). A source a server has open, or one that cannot be read whole
/// (see `Store::open_whole`), is refused before the target is reached, which is then
/// left as it was.
pub async fn migrate(from: &str, to: &str) -> Result<Copied, Box<dyn std::error::Error>> {
    let path = std::path::Path::new(from);
    if store::is_postgres(from) {
        return Err(format!("--from {from}: a PostgreSQL URL, not a SQLite database file").into());
    }
    // Said here, not by SQLite: its "unable to open database file" names no cause.
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("--from {from}: no such file").into());
        }
        Err(e) => return Err(format!("--from {from}: {e}").into()),
        Ok(meta) if !meta.is_file() => {
            return Err(format!("--from {from}: not a file (a SQLite database file)").into());
        }
        Ok(_) => {}
    }
    if !store::is_postgres(to) {
        return Err(format!("--to {to}: not a PostgreSQL URL (postgres://…)").into());
    }
    let source = Store::open_whole(path).map_err(|e| format!("--from {from}: {e}"))?;
    let copied = async { source.migrate_to(&Store::open(Some(to)).await?).await }.await;
    // Copied or not, the source is left as the file alone, as a clean stop leaves it.
    source.close().await?;
    Ok(copied?)
}

/// Opens the database of `config`, joins its cluster if it names one, loads the
/// unfinished games that need a timer (a clock running, or the computer to move; in a
/// cluster, those no live node runs), serves on `listener` until `shutdown` completes,
/// then tells every connection to close and returns once they all have. A node of a
/// cluster that loses its lease stops the same way, and returns an error.
///
/// ```no_run
/// # async fn example() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// punct_server::run(listener, punct_server::Config::default(), async {
///     let _ = tokio::signal::ctrl_c().await;
/// })
/// .await
/// # }
/// ```
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let store = Store::open(config.database.as_deref())
        .await
        .map_err(std::io::Error::other)?;
    let nodes = Nodes::join(
        config.cluster.as_deref(),
        config.cluster_lease,
        config.cluster_replicas,
    )
    .await
    .map_err(std::io::Error::other)?;
    let store = store.with_lease(nodes.lease());
    let services = Services::start(&config, store, nodes.clone());
    let (state, mut all_done) = AppState::new(config, &services);
    let rooms = state.rooms.clone();
    housekeeping::start(&services, &rooms, &state.endings);
    let swept = rooms.sweep().await.map_err(std::io::Error::other)?;
    let unavailable = |_| std::io::Error::other("the database did not answer");
    let restored = rooms.restore().await.map_err(unavailable)?;
    tracing::info!(
        restored,
        swept,
        "rooms with a clock or computer to time loaded"
    );
    let directors = state.tournaments.restore().await.map_err(unavailable)?;
    tracing::info!(directors, "tournaments running or about to start loaded");
    state.seeks.restore().await.map_err(unavailable)?;
    tracing::info!(address = %listener.local_addr()?, "listening");
    let listener = proxy::Listener::new(listener, Arc::clone(&state.proxies));
    let lease_lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let signal = {
        let (services, lease_lost) = (services.clone(), Arc::clone(&lease_lost));
        async move {
            tokio::select! {
                () = shutdown => tracing::info!("shutting down"),
                () = services.nodes.lost() => {
                    tracing::error!("lost the cluster lease: shutting down");
                    lease_lost.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
            // Connections say goodbye, chores end, and no actor is loaded here again.
            services.stop();
        }
    };
    let header_timeout = state.config.header_timeout;
    api::serve(listener, api::router(state), header_timeout, signal).await;
    // Every connection holds a clone of the sender: `None` means all have finished.
    let _ = all_done.recv().await;
    // Mail queued from now on waits in the outbox for the next start (or another node).
    services.mail.stop().await;
    nodes.leave().await;
    // After the last commit: SQLite's file alone now holds everything, for whoever copies
    // it. A failure leaves the data in the WAL, not lost; it is said, not fatal.
    if let Err(e) = services.store.close().await {
        tracing::warn!("closing the database: {e}");
    }
    tracing::info!("stopped");
    if lease_lost.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(std::io::Error::other(
            "lost the cluster lease (cut off from NATS for longer than --cluster-lease)",
        ));
    }
    Ok(())
}
