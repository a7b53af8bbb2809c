//! The server's stop, in mini-redis's manner: [`crate::run`] holds the one [`Stop`], and
//! every part that must end with the server (connections, chores, the HTTP listener's
//! connections) holds a [`Shutdown`] and waits on it between two pieces of work.
//!
//! Must not import anything of the crate.

use tokio::sync::watch;

/// Fires the stop. Dropped unfired, it ends every wait as well: a server whose `run` is
/// gone stops.
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

    /// Completes once the stop is fired, or its [`Stop`] is dropped.
    pub(crate) async fn wait(&mut self) {
        let _ = self.0.wait_for(|&stopping| stopping).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_shutdown_completes_once_the_stop_is_fired_or_dropped() {
        let (stop, mut shutdown) = channel();
        let mut other = shutdown.clone();
        assert!(!shutdown.is_shutdown());
        stop.fire();
        shutdown.wait().await;
        other.wait().await;
        assert!(shutdown.is_shutdown() && other.is_shutdown());

        let (stop, mut shutdown) = channel();
        drop(stop);
        shutdown.wait().await;
    }
}
