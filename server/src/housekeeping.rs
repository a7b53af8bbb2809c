//! The server's chores, each run now and then on its own period until the server stops:
//! rooms nobody came back to expired or finished and reminders queued (`registry`),
//! tournaments about to start loaded (`tournament`), old mail forgotten, and games left
//! unrated rated. One more runs when nodes of the cluster die: their unsent mail is given
//! back (their actors are taken over by `cluster`).
//!
//! Must not import: `connection`, `api`.

use std::time::Duration;

use crate::registry::Registry;
use crate::services::Services;
use crate::shutdown::Shutdown;
use crate::store::{Store, StoreError};
use crate::tournament::{self, Tournaments};

/// How often rooms nobody came back to are looked for.
const ROOMS_PERIOD: Duration = Duration::from_secs(600);

/// How often the store's own chores run.
const STORE_PERIOD: Duration = Duration::from_secs(600);

/// How long mail sent (or given up) is kept before it is forgotten: long enough to look
/// into what a player was sent.
const MAIL_KEPT: Duration = Duration::from_secs(30 * 24 * 3600);

/// Starts every chore: the store's and the dead nodes' mail at once, the others one
/// period from now (`run` sweeps the rooms and loads the tournaments due as it starts).
pub(crate) fn start(services: &Services, rooms: &Registry, tournaments: &Tournaments) {
    let stop = &services.shutdown;
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
    let tournaments = tournaments.clone();
    tokio::spawn(every(tournament::SWEEP_PERIOD, stop.clone(), move || {
        let tournaments = tournaments.clone();
        async move {
            // A failure is logged by the directors' kind; the next sweep tries again.
            let _ = tournaments.restore().await;
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

/// Runs `job` every `period`, the first time one period from now, until `stop` turns
/// true. A job is never cut off half-way: the stop is seen between two runs.
pub(crate) async fn every<F, Job>(period: Duration, mut stop: Shutdown, mut job: F)
where
    F: FnMut() -> Job,
    Job: Future<Output = ()>,
{
    loop {
        let stopped = tokio::select! {
            () = tokio::time::sleep(period) => false,
            () = stop.wait() => true,
        };
        if stopped {
            return;
        }
        job().await;
    }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_chore_runs_each_period_and_not_after_the_stop() {
        let runs = Arc::new(AtomicUsize::new(0));
        let (stop_tx, stop) = crate::shutdown::channel();
        let counted = Arc::clone(&runs);
        let chore = tokio::spawn(every(Duration::from_secs(10), stop, move || {
            let counted = Arc::clone(&counted);
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
            }
        }));
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 0, "not before one period");
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 3, "at 10, 20 and 30 s");
        stop_tx.fire();
        chore.await.unwrap();
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(runs.load(Ordering::SeqCst), 3, "none after the stop");
    }
}
