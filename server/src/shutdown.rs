//! The server's stop, in mini-redis's manner: the server's services hold the one
//! [`Stop`], and every part that must end with the server (connections, chores, the
//! actors' placements) holds a [`Shutdown`] and waits on it between two pieces of work.
//! Only firing stops: a stop dropped unfired (a test's services gone out of scope)
//! leaves whatever still runs running, as it was. [`every`] runs a chore on its period
//! until the stop.
//!
//! Must not import anything of the crate.

use std::time::Duration;

use tokio::sync::watch;

/// Fires the stop.
#[derive(Debug)]
pub(crate) struct Stop(watch::Sender<bool>);

/// Whether the server is stopping, and a wait until it does. Cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Shutdown(watch::Receiver<bool>);

/// A stop and the shutdown it fires.
pub(crate) fn channel() -> (Stop, Shutdown) {
    let (stop, stopping) = watch::channel(false);
    (Stop(stop), Shutdown(stopping))
}

impl Stop {
    /// Tells every [`Shutdown`] that the server is stopping.
    pub(crate) fn fire(&self) {
        self.0.send_replace(true);
    }
}

impl Shutdown {
    /// Whether the stop has been fired.
    pub(crate) fn is_shutdown(&self) -> bool {
        *self.0.borrow()
    }

    /// Completes once the stop is fired; never if its [`Stop`] is dropped unfired.
    pub(crate) async fn wait(&mut self) {
        if self.0.wait_for(|&stopping| stopping).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Runs `job` every `period`, the first time one period from now, until the stop is
/// fired. A job is never cut off half-way: the stop is seen between two runs.
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn every_shutdown_completes_once_the_stop_is_fired_and_only_then() {
        let (stop, mut shutdown) = channel();
        let mut other = shutdown.clone();
        assert!(!shutdown.is_shutdown());
        stop.fire();
        shutdown.wait().await;
        other.wait().await;
        assert!(shutdown.is_shutdown() && other.is_shutdown());

        let (stop, mut shutdown) = channel();
        drop(stop);
        let waited = tokio::time::timeout(Duration::from_millis(10), shutdown.wait());
        assert!(waited.await.is_err(), "a dropped stop stops nothing");
        assert!(!shutdown.is_shutdown());
    }

    #[tokio::test(start_paused = true)]
    async fn a_chore_runs_each_period_and_not_after_the_stop() {
        let runs = Arc::new(AtomicUsize::new(0));
        let (stop_tx, stop) = channel();
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
