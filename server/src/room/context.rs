//! What every room of a server is given by whoever starts it: the store, the metrics,
//! the timings, the computer's threads and the mail, borrowed from the server's
//! [`Services`]. A room never sees the registry.

use std::time::Duration;

use crate::config::Config;
use crate::services::Services;

/// What a room is given by whoever starts it.
#[derive(Debug)]
pub(crate) struct Context {
    /// The store, the metrics, the computer's threads, the mail and the news of games
    /// ended.
    pub(crate) services: Services,
    /// How long the room waits for things.
    pub(crate) timings: Timings,
}

impl Context {
    /// The context of every room of a server with `config` and `services`.
    pub(crate) fn new(config: &Config, services: &Services) -> Context {
        Context {
            services: services.clone(),
            timings: Timings {
                event_buffer: config.room_event_buffer,
                idle_timeout: config.room_idle_timeout,
                grace_period: config.grace_period,
            },
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
