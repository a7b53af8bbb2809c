//! What every room of a server is given by whoever starts it: the store, the metrics,
//! the timings, the computer's threads and the mail. A room never sees the registry.

use std::time::Duration;

use tokio::sync::broadcast;

use crate::computer::Computers;
use crate::config::Config;
use crate::mail::Mailer;
use crate::metrics::Metrics;
use crate::store::Store;

/// Game ends kept for a listener that falls behind (it then reads the store).
const GAME_ENDS: usize = 256;

/// What a room is given by whoever starts it.
#[derive(Debug)]
pub(crate) struct Context {
    /// Where rooms and turns are kept.
    pub(crate) store: Store,
    /// The counters of `/metrics`.
    pub(crate) metrics: Metrics,
    /// How long the room waits for things.
    pub(crate) timings: Timings,
    /// Where the computer thinks.
    pub(crate) computers: Computers,
    /// Where notices to correspondence players go.
    pub(crate) mail: Mailer,
    /// Where a tournament's game tells that it ended, once stored.
    pub(crate) game_ends: broadcast::Sender<GameEnded>,
}

/// A tournament's game ended, and its result is stored.
#[derive(Clone, Debug)]
pub(crate) struct GameEnded {
    /// The game's room.
    pub(crate) room: String,
    /// Its tournament.
    pub(crate) tournament: String,
}

impl Context {
    /// The context of every room of node `node` (its tag) with `config`, on `store`.
    pub(crate) fn new(config: &Config, store: Store, node: u32) -> Context {
        let metrics = Metrics::new(store.commit_times(), node);
        Context {
            mail: Mailer::start(config, store.clone(), metrics.mail()),
            metrics,
            store,
            timings: Timings {
                event_buffer: config.room_event_buffer,
                idle_timeout: config.room_idle_timeout,
                grace_period: config.grace_period,
            },
            computers: Computers::new(config.computer_threads, config.computer_think_time),
            game_ends: broadcast::channel(GAME_ENDS).0,
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
