//! The server's chores, each run now and then on its own period until the server stops:
//! rooms nobody came back to expired or finished and reminders queued (`registry`), old
//! mail forgotten, games left unrated rated, and the connections of accounts banned from
//! the console ended. One more runs when nodes of the cluster
//! die: their unsent mail is given back. (Actors are `cluster`'s: it takes over a dead
//! node's, and loads those that fall due with time, such as a tournament about to start,
//! as their kind says.)
//!
//! Must not import: `connection`, `api`.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use crate::clock::now;
use crate::endings::{Ended, Endings};
use crate::registry::Registry;
use crate::services::Services;
use crate::shutdown::every;
use crate::store::{Store, StoreError};

/// How often rooms nobody came back to are looked for.
const ROOMS_PERIOD: Duration = Duration::from_secs(600);

/// How often the store's own chores run.
const STORE_PERIOD: Duration = Duration::from_secs(600);

/// How often bans made from the console (`punct-server admin ban`) are looked for. The
/// console writes to the database alone and tells no server, so each finds them itself.
const BANS_PERIOD: Duration = Duration::from_secs(2);

/// How far before the last look each look reaches: the console's clock and this
/// server's may differ a little, and ending a connection twice ends nothing more.
const BANS_OVERLAP_MS: i64 = 10_000;

/// How long mail sent (or given up) is kept before it is forgotten: long enough to look
/// into what a player was sent.
const MAIL_KEPT: Duration = Duration::from_secs(30 * 24 * 3600);

/// Starts every chore: the store's and the dead nodes' mail at once, the others one
/// period from now (`run` sweeps the rooms as it starts).
pub(crate) fn start(services: &Services, rooms: &Registry, endings: &Endings) {
    let stop = &services.shutdown;
    tokio::spawn(end_console_bans(services.clone(), endings.clone()));
    tokio::spawn(take_back_mail(services.clone()));
    let store = services.store.clone();
    let rooms = rooms.clone();
    tokio::spawn(every(ROOMS_PERIOD, stop.clone(), move || {
        let rooms = rooms.clone();
        async move {
            if let Err(e) = rooms.sweep().await {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "sweeping stale rooms failed");
            }
        }
    }));
    let chores = move || {
        let store = store.clone();
        async move {
            if let Err(e) = store_chores(&store).await {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "the store's chores failed");
            }
        }
    };
    let stop = stop.clone();
    tokio::spawn(async move {
        // A game whose rating failed as the last server stopped is rated at once.
        chores().await;
        every(STORE_PERIOD, stop, chores).await;
    });
}

/// Every [`BANS_PERIOD`], ends on this node the connections of the accounts banned since
/// the last look, as a moderator's ban from the page does at once (a page's ban is found
/// too, and ends nothing more).
async fn end_console_bans(services: Services, endings: Endings) {
    // When the last look that was answered was made.
    let since = Arc::new(AtomicI64::new(now()));
    every(BANS_PERIOD, services.shutdown.clone(), move || {
        let (store, endings, since) = (services.store.clone(), endings.clone(), since.clone());
        async move {
            let looked = now();
            let from = since
                .load(Ordering::Relaxed)
                .saturating_sub(BANS_OVERLAP_MS);
            match store.banned_since(from).await {
                Ok(accounts) => {
                    since.store(looked, Ordering::Relaxed);
                    for account in accounts {
                        endings.here(&Ended::Account {
                            account,
                            deleted_as: None,
                        });
                    }
                }
                Err(e) => {
                    let error: &dyn std::error::Error = &e;
                    tracing::warn!(error, "looking for bans made from the console");
                }
            }
        }
    })
    .await;
}

/// When nodes die, gives back the mail they claimed and did not send. A single server's
/// nodes never change.
async fn take_back_mail(services: Services) {
    let mut deaths = services.nodes.deaths();
    while let Some(died) = deaths.next().await {
        for node in died {
            match services.store.release_mail_of(node).await {
                Ok(0) => {}
                Ok(mails) => tracing::info!(node, mails, "mail of a dead node given back"),
                Err(e) => {
                    let error: &dyn std::error::Error = &e;
                    tracing::warn!(error, node, "giving back a dead node's mail: it lapses");
                }
            }
        }
    }
}

/// Forgets mail sent more than [`MAIL_KEPT`] ago, and rates the rated games left
/// unrated (abandoned ones, or those whose rating failed at their end).
async fn store_chores(store: &Store) -> Result<(), StoreError> {
    let kept = i64::try_from(MAIL_KEPT.as_millis()).unwrap_or(i64::MAX);
    let pruned = store
        .prune_mail(crate::clock::now().saturating_sub(kept))
        .await?;
    if pruned > 0 {
        tracing::info!(mails = pruned, "old mail forgotten");
    }
    for room in store.unrated_games().await? {
        if store.rate_game(&room).await?.is_some() {
            tracing::info!(%room, "game rated late");
        }
    }
    Ok(())
}
