//! What the server builds once, when it starts, and lends to every part of it: the
//! store, the cluster's nodes, the metrics, the mailer, the computer's threads, the
//! channel on which a tournament's game tells that it ended, and the one stop. [`crate::run`] builds them;
//! `state` hands them to the handlers, and the actors (rooms, directors, the seek pool)
//! borrow clones. Nothing here knows of rooms or connections.
//!
//! Must not import: `connection`, `api`, `room`, `registry`, `tournament`, `seek`.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::cluster::Nodes;
use crate::computer::Computers;
use crate::config::Config;
use crate::mail::Mailer;
use crate::metrics::Metrics;
use crate::shutdown::{self, Shutdown, Stop};
use crate::store::Store;

/// Game ends kept for a listener that falls behind (it then reads the store).
const GAME_ENDS: usize = 256;

/// The server's shared parts. Cheap to clone: each is a handle.
#[derive(Clone, Debug)]
pub(crate) struct Services {
    /// Where everything is kept.
    pub(crate) store: Store,
    /// This node of the cluster, or the server alone.
    pub(crate) nodes: Nodes,
    /// The counters of `/metrics`.
    pub(crate) metrics: Arc<Metrics>,
    /// Where notices to correspondence players go.
    pub(crate) mail: Mailer,
    /// Where the computer thinks.
    pub(crate) computers: Computers,
    /// Where a tournament's game tells that it ended, once stored.
    pub(crate) game_ends: broadcast::Sender<GameEnded>,
    /// Fired when the server stops: every part waits on it.
    pub(crate) shutdown: Shutdown,
    /// What fires it.
    stop: Arc<Stop>,
}

/// A tournament's game ended, and its result is stored.
#[derive(Clone, Debug)]
pub(crate) struct GameEnded {
    /// The game's room.
    pub(crate) room: String,
    /// Its tournament.
    pub(crate) tournament: String,
}

impl Services {
    /// The parts of a server with `config` on `store`, placed by `nodes`; with
    /// `--smtp-url`, the mailer's task starts sending now.
    pub(crate) fn start(config: &Config, store: Store, nodes: Nodes) -> Services {
        let metrics = Metrics::new(store.commit_times(), nodes.tag());
        let (stop, shutdown) = shutdown::channel();
        Services {
            mail: Mailer::start(config, store.clone(), metrics.mail(), nodes.tag()),
            metrics: Arc::new(metrics),
            computers: Computers::new(config.computer_threads, config.computer_think_time),
            game_ends: broadcast::channel(GAME_ENDS).0,
            shutdown,
            stop: Arc::new(stop),
            store,
            nodes,
        }
    }

    /// Stops the server: every [`Shutdown`] completes, and the actors' placements load
    /// nothing more.
    pub(crate) fn stop(&self) {
        self.stop.fire();
    }
}
