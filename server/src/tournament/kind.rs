//! Directors as a kind of actor: how the placement layer loads and starts one.

use std::sync::Arc;
use std::time::Duration;

use punct_protocol::{ErrorCode, TournamentSummary};
use tokio::sync::watch;

use super::protocol::{Answer, Event, Request};
use super::state::{Director, Setup, Shared};
use crate::clock::now;
use crate::cluster::{Inbox, Kind, NodeTag, Started, Unavailable};
use crate::store::StoreError;

/// How often directors whose start is near are looked for (and loaded, so that each
/// starts on time by its own timer): the tournaments due are those starting within it.
const SWEEP_PERIOD: Duration = Duration::from_secs(30);

/// Every tournament director of a server, and what each is given.
#[derive(Debug)]
pub(crate) struct Directors {
    /// The store and the rooms.
    pub(crate) shared: Arc<Shared>,
}

impl Directors {
    /// Reads tournament `id` as a director starts from it.
    async fn read(&self, id: &str) -> Result<Option<Setup>, StoreError> {
        let store = &self.shared.store;
        let Some(summary) = store.tournament(id).await? else {
            return Ok(None);
        };
        Ok(Some(Setup {
            summary,
            entries: store.entries(id).await?,
            pairings: store.pairings(id).await?,
        }))
    }
}

impl Kind for Directors {
    const NAME: &'static str = "tournament";
    type Request = Request;
    type Answer = Answer;
    type Event = Event;
    type Status = TournamentSummary;
    type Setup = Setup;
    const NOT_FOUND: ErrorCode = ErrorCode::NoSuchTournament;
    const DUE_EVERY: Option<Duration> = Some(SWEEP_PERIOD);

    /// The tournaments running, or starting within a sweep: each director then starts
    /// its tournament on time by its own timer, and carries on from what is stored.
    async fn due(&self) -> Result<Vec<String>, Unavailable> {
        let soon = i64::try_from(SWEEP_PERIOD.as_millis()).unwrap_or(i64::MAX);
        let due = self
            .shared
            .store
            .tournaments_due(now().saturating_add(soon));
        due.await.map_err(|e| {
            let error: &dyn std::error::Error = &e;
            tracing::error!(error, "database: the tournaments due");
            Unavailable
        })
    }

    async fn load(&self, id: &str) -> Result<Option<Setup>, Unavailable> {
        self.read(id).await.map_err(|e| {
            let error: &dyn std::error::Error = &e;
            tracing::error!(tournament = id, error, "database");
            Unavailable
        })
    }

    fn id(setup: &Setup) -> &str {
        &setup.summary.id
    }

    fn start(&self, setup: Setup, inbox: Inbox<Directors>) -> Started<Directors> {
        let (publish, status) = watch::channel(setup.summary.clone());
        let director = Director::new(setup, Arc::clone(&self.shared), publish);
        let events = director.subscribe();
        Started {
            task: Box::pin(director.run(inbox)),
            status,
            events,
        }
    }

    fn node_died(_: NodeTag) -> Option<Request> {
        // A director keeps no members: its followers are the connections', and they
        // follow it again.
        None
    }
}
