//! The seek pool as a kind of actor: one pool for the whole cluster, under one id, run
//! by whichever node claims it first and taken over when that node dies.

use std::time::Duration;

use punct_protocol::{ErrorCode, SeekView};
use tokio::sync::{broadcast, watch};

use super::pool::Pool;
use super::protocol::{Answer, Event, POOL, Request};
use crate::cluster::{Inbox, Kind, NodeTag, Started, Unavailable};
use crate::registry::Registry;

/// Events the pool keeps for seekers that fall behind (a seeker that misses some asks
/// again, and hears its pairing in the answer).
const EVENTS: usize = 1024;

/// The seek pool of a server, and what it is given.
#[derive(Debug)]
pub(crate) struct Pools {
    /// Where the pool makes the rooms of the seeks that meet.
    pub(crate) registry: Registry,
}

/// What a pool starts from: nothing but its id, which is always [`POOL`].
pub(crate) struct Setup;

impl Kind for Pools {
    const NAME: &'static str = "seek";
    type Request = Request;
    type Answer = Answer;
    type Event = Event;
    type Status = Vec<SeekView>;
    type Setup = Setup;
    const NOT_FOUND: ErrorCode = ErrorCode::BadRequest;
    // Due from the start, and taken over when its node dies.
    const DUE_EVERY: Option<Duration> = None;

    /// The pool runs always, so that it is in place before the first seek.
    async fn due(&self) -> Result<Vec<String>, Unavailable> {
        Ok(vec![POOL.to_owned()])
    }

    /// The pool keeps nothing in the store: it starts empty, and its seekers seek again.
    async fn load(&self, id: &str) -> Result<Option<Setup>, Unavailable> {
        Ok((id == POOL).then_some(Setup))
    }

    fn id(_: &Setup) -> &str {
        POOL
    }

    fn start(&self, _: Setup, inbox: Inbox<Pools>) -> Started<Pools> {
        let (events, receiver) = broadcast::channel(EVENTS);
        let (publish, status) = watch::channel(Vec::new());
        let pool = Pool::new(self.registry.clone(), events, publish);
        Started {
            task: Box::pin(pool.run(inbox)),
            status,
            events: receiver,
        }
    }

    fn node_died(node: NodeTag) -> Option<Request> {
        Some(Request::NodeDied { node })
    }
}
