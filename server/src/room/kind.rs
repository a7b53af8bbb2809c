//! Rooms as a kind of actor: how the placement layer loads and starts one, and what it
//! tells a room when a node of the cluster dies.

use std::sync::Arc;
use std::time::Duration;

use punct_protocol::{ErrorCode, RoomSummary};
use tokio::sync::watch;

use super::context::Context;
use super::protocol::{Answer, Event, Request};
use super::setup::Setup;
use super::state::Room;
use crate::cluster::{Inbox, Kind, NodeTag, Started, Unavailable};

/// Every room of a server, and what each is given.
#[derive(Debug)]
pub(crate) struct Rooms {
    /// What every room is given: the store, the metrics, the computer's threads.
    context: Arc<Context>,
}

impl Rooms {
    /// The rooms run in `context`.
    pub(crate) fn new(context: Context) -> Rooms {
        Rooms {
            context: Arc::new(context),
        }
    }

    /// What every room is given.
    #[cfg(test)]
    pub(crate) fn context(&self) -> &Context {
        &self.context
    }
}

impl Kind for Rooms {
    const NAME: &'static str = "room";
    type Request = Request;
    type Answer = Answer;
    type Event = Event;
    type Status = RoomSummary;
    type Setup = Setup;
    const NOT_FOUND: ErrorCode = ErrorCode::NoSuchRoom;
    // A room falls due only by being played, which loads it.
    const DUE_EVERY: Option<Duration> = None;

    /// The unfinished rooms with a timer: a clock running, or the computer to move.
    async fn due(&self) -> Result<Vec<String>, Unavailable> {
        self.context
            .services
            .store
            .with_timers()
            .await
            .map_err(|e| {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "database: the rooms with a timer");
                Unavailable
            })
    }

    async fn load(&self, id: &str) -> Result<Option<Setup>, Unavailable> {
        let stored = self.context.services.store.load(id).await.map_err(|e| {
            let error: &dyn std::error::Error = &e;
            tracing::error!(room = id, error, "database");
            Unavailable
        })?;
        let Some(stored) = stored else {
            return Ok(None);
        };
        Setup::stored(id.to_owned(), stored)
            .map(Some)
            .map_err(|corrupt| {
                let error: &dyn std::error::Error = &corrupt;
                tracing::error!(room = id, error, "cannot load");
                Unavailable
            })
    }

    fn id(setup: &Setup) -> &str {
        &setup.id
    }

    fn start(&self, setup: Setup, inbox: Inbox<Rooms>) -> Started<Rooms> {
        let room = Room::new(setup, Arc::clone(&self.context));
        let events = room.history.subscribe();
        let (publish, status) = watch::channel(room.summary());
        Started {
            task: Box::pin(room.run(inbox, publish)),
            status,
            events,
        }
    }

    fn node_died(node: NodeTag) -> Option<Request> {
        Some(Request::NodeDied { node })
    }
}
