//! What every room of a server is given by whoever starts it: the store, the metrics,
//! the timings, the computer's threads and the mail, borrowed from the server's
//! [`Services`]. A room never sees the registry.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;

use crate::computer::Computers;
use crate::config::Config;
use crate::mail::Mailer;
use crate::metrics::Metrics;
use crate::services::{GameEnded, Services};
use crate::store::Store;

/// What a room is given by whoever starts it.
#[derive(Debug)]
pub(crate) struct Context {
    /// Where rooms and turns are kept.
    pub(crate) store: Store,
    /// The counters of `/metrics`.
    pub(crate) metrics: Arc<Metrics>,
    /// How long the room waits for things.
    pub(crate) timings: Timings,
    /// Where the computer thinks.
    pub(crate) computers: Computers,
    /// Where notices to correspondence players go.
    pub(crate) mail: Mailer,
    /// Where a tournament's game tells that it ended, once stored.
    pub(crate) game_ends: broadcast::Sender<GameEnded>,
}

impl Context {
    /// The context of every room of a server with `config` and `services`.
    pub(crate) fn new(config: &Config, services: &Services) -> Context {
        Context {
            store: services.store.clone(),
            metrics: Arc::clone(&services.metrics),
            timings: Timings {
                event_buffer: config.room_event_buffer,
                idle_timeout: config.room_idle_timeout,
                grace_period: config.grace_period,
            },
            computers: services.computers.clone(),
            mail: services.mail.clone(),
            game_ends: services.game_ends.clone(),
        }
    }
}

/// How long a room waits for things, and how much it remembers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timings {
    /// Room events kept for members that fall behind or come back.
    pub(crate) event_buffer: usize,
    /// How long a room with nobody in it and nothing to time lives on.
    pub(crate) idle_timeout: Duration,
    /// How long a player may be away before the opponent may claim the win.
    pub(crate) grace_period: Duration,
}
