//! What a director starts from and the state its actor owns; `director` adds its
//! behaviour.

use std::sync::Arc;

use punct_protocol::TournamentSummary;
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::protocol::Event;
use crate::registry::Registry;
use crate::store::{Store, StoredEntry, StoredPairing};

/// Events kept for followers that fall behind.
const EVENTS: usize = 64;

/// What every director of a server is given.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Where tournaments are kept.
    pub(crate) store: Store,
    /// Every room: where a withdrawn player's games are forfeited.
    pub(crate) registry: Registry,
}

/// What a director starts from: the tournament as stored.
#[derive(Debug)]
pub(crate) struct Setup {
    /// The tournament.
    pub(crate) summary: TournamentSummary,
    /// Its entries, in the order they joined.
    pub(crate) entries: Vec<StoredEntry>,
    /// Its pairings, round by round.
    pub(crate) pairings: Vec<StoredPairing>,
}

/// The state the director's actor owns.
pub(crate) struct Director {
    /// The tournament.
    pub(super) summary: TournamentSummary,
    /// Its entries in the order they joined: after the start, the players it started
    /// with (entries before the start that left are gone).
    pub(super) entries: Vec<StoredEntry>,
    /// Its pairings, round by round, with the results as last read.
    pub(super) pairings: Vec<StoredPairing>,
    /// The store and the rooms.
    pub(super) shared: Arc<Shared>,
    /// Its followers hear its events here.
    pub(super) events: broadcast::Sender<Arc<Event>>,
    /// Its status, as lists show it.
    pub(super) status: watch::Sender<TournamentSummary>,
    /// When it last read the results.
    pub(super) polled: Instant,
    /// When its tournament was found over: it closes a while after.
    pub(super) over_since: Option<Instant>,
    /// When its followers were last told the whole tournament, if ever.
    pub(super) told: Option<Instant>,
    /// Whether it changed since they were told.
    pub(super) untold: bool,
}

impl Director {
    /// The director of `setup`; its status is published on `status`.
    pub(crate) fn new(
        setup: Setup,
        shared: Arc<Shared>,
        status: watch::Sender<TournamentSummary>,
    ) -> Director {
        Director {
            summary: setup.summary,
            entries: setup.entries,
            pairings: setup.pairings,
            shared,
            events: broadcast::channel(EVENTS).0,
            status,
            polled: Instant::now(),
            over_since: None,
            told: None,
            untold: false,
        }
    }

    /// Its events, from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }
}
