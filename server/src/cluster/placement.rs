//! Where the actors of one kind run, and the handles to reach them: a map of the actors
//! running here or relayed from their node, plus their loading, starting and forgetting.
//!
//! An actor is loaded when someone asks for it and it runs nowhere, claimed by the
//! node that loads it, and forgotten once its task ends. Once the server stops, nothing
//! is loaded any more: a stopping node that loaded an actor again would run it beside
//! the node that takes it over. The same code serves a single
//! server and every node of a cluster: [`Nodes`] says where an actor runs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::handle::{Closed, Handle};
use super::ids::NodeTag;
use super::kind::{Kind, Reply, Unavailable};
use super::nats::{ClusterError, Place};
use super::nodes::{Deaths, Nodes, to_json};
use super::wire::{self, Asked, Moved};
use crate::shutdown::{Shutdown, every};

/// Times a request tries an actor that closed just as it was asked (it is loaded again)
/// on a single server.
const ATTEMPTS: usize = 3;

/// In a cluster, the wait between two tries to reach an actor whose node is going away.
const RETRY_WAIT: Duration = Duration::from_millis(200);

/// Why an actor could not be reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlaceError {
    /// There is no such actor.
    NotFound,
    /// This node holds as many actors as it may.
    Full,
    /// The store or the cluster could not answer, or the actor's node did not: try
    /// again.
    Unavailable,
    /// This node lost its lease: it answers nothing more, and is stopping.
    Stopping,
}

impl PlaceError {
    /// The code a client sees when an actor of kind `K` could not be reached.
    pub(crate) fn code<K: Kind>(self) -> punct_protocol::ErrorCode {
        use punct_protocol::ErrorCode;
        match self {
            PlaceError::NotFound => K::NOT_FOUND,
            PlaceError::Full => ErrorCode::TooManyRooms,
            PlaceError::Unavailable => ErrorCode::StorageFailed,
            PlaceError::Stopping => ErrorCode::ShuttingDown,
        }
    }
}

/// How many actors, and how much each may queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Most actors held here at once, run or relayed.
    pub(crate) max: usize,
    /// Requests an actor's inbox holds before senders wait.
    pub(crate) queue: usize,
    /// Events a relay keeps for members that fall behind.
    pub(crate) events: usize,
    /// In a cluster, how long a request keeps trying to reach its actor (while a dead
    /// node's lease runs out, and another node takes the actor over).
    pub(crate) patience: Duration,
}

/// A cheap, cloneable handle on the actors of kind `K`.
///
/// The maps are behind std `Mutex`es, not tokio's: each is held only to look up,
/// insert or remove, never across an `.await`, and never on the path of a request
/// (a caller looks its actor up once, then talks to it directly).
pub(crate) struct Placement<K: Kind> {
    /// Shared by every clone.
    shared: Arc<Shared<K>>,
}

impl<K: Kind> Clone for Placement<K> {
    fn clone(&self) -> Placement<K> {
        Placement {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<K: Kind> std::fmt::Debug for Placement<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Placement")
            .field("kind", &K::NAME)
            .field("nodes", &self.shared.nodes)
            .finish_non_exhaustive()
    }
}

struct Shared<K: Kind> {
    /// How the kind loads and starts its actors.
    kind: K,
    /// Where actors run.
    nodes: Nodes,
    /// The actors running here or relayed, by id.
    table: Mutex<HashMap<String, Handle<K>>>,
    /// The actors being loaded, by id: one load at a time for an actor, since each load
    /// counts an incarnation and fences the writes of the ones before it.
    loading: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// How many, and how much they queue.
    limits: Limits,
    /// Fired when the server stops.
    shutdown: Shutdown,
}

impl<K: Kind> Placement<K> {
    /// The actors of `kind`, none running yet, placed by `nodes` until `shutdown`. In a
    /// cluster, this node starts answering the other nodes' requests for the actors it
    /// runs, and lets the actors it runs know when a node with members in them dies.
    pub(crate) fn new(kind: K, nodes: Nodes, limits: Limits, shutdown: Shutdown) -> Placement<K> {
        let placement = Placement {
            shared: Arc::new(Shared {
                kind,
                nodes,
                table: Mutex::new(HashMap::new()),
                loading: Mutex::new(HashMap::new()),
                limits,
                shutdown: shutdown.clone(),
            }),
        };
        placement.serve_other_nodes();
        if let Some(period) = K::DUE_EVERY {
            tokio::spawn(restore_every(period, shutdown.clone(), &placement));
        }
        tokio::spawn(forget_all_at(shutdown, Arc::downgrade(&placement.shared)));
        placement
    }

    /// Where actors run.
    pub(crate) fn nodes(&self) -> &Nodes {
        &self.shared.nodes
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Handle<K>>> {
        // No code that holds the lock can panic half-way through a change.
        self.shared
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Actor `id`, if it is running here or relayed.
    pub(crate) fn running(&self, id: &str) -> Option<Handle<K>> {
        self.lock().get(id).filter(|h| !h.is_closed()).cloned()
    }

    /// The statuses of the actors running here (not those relayed).
    pub(crate) fn statuses(&self) -> Vec<K::Status> {
        self.lock()
            .values()
            .filter(|h| !h.is_closed())
            .filter_map(Handle::status)
            .collect()
    }

    /// The statuses of the actors every node runs, as each answers within a moment
    /// (this node's among them); none on a single server.
    pub(crate) async fn statuses_everywhere(&self) -> Vec<K::Status> {
        let subject = wire::status_subject(K::NAME);
        let nodes: Vec<Vec<K::Status>> = self.shared.nodes.gather(subject).await;
        nodes.into_iter().flatten().collect()
    }

    /// Whether this node may still answer: it is not stopping, and holds its lease.
    fn answering(&self) -> Result<(), PlaceError> {
        if !self.shared.shutdown.is_shutdown() && self.shared.nodes.lease().held() {
            Ok(())
        } else {
            Err(PlaceError::Stopping)
        }
    }

    /// Whether this node holds as many actors as it may.
    fn is_full(&self) -> bool {
        self.lock().len() >= self.shared.limits.max
    }

    /// Whether a new actor may start here now: the node answers, and has room. Asked
    /// before a new actor is stored, so that a refusal stores nothing.
    pub(crate) fn may_create(&self) -> Result<(), PlaceError> {
        self.answering()?;
        if self.is_full() {
            return Err(PlaceError::Full);
        }
        Ok(())
    }

    /// Runs the new actor of `setup`, just stored, here: claims it, then starts it.
    pub(crate) async fn create(&self, setup: K::Setup) -> Result<Handle<K>, PlaceError> {
        self.may_create()?;
        let id = K::id(&setup).to_owned();
        let nodes = &self.shared.nodes;
        nodes
            .claim_new(K::NAME, &id)
            .await
            .map_err(|e| cluster_failed(&e))?;
        let started = self.start(setup);
        if started.is_err() {
            nodes.release(K::NAME, &id).await;
        }
        started
    }

    /// Starts the actor of `setup` and lists it; answers the handle of the actor running
    /// under that id (another task may have loaded it first). Refused once the server
    /// stops: the stop is read under the table's lock, which the stop's clearing takes
    /// too, so no actor is listed after the table is cleared.
    fn start(&self, setup: K::Setup) -> Result<Handle<K>, PlaceError> {
        let table = self.lock();
        self.answering()?;
        let id = K::id(&setup).to_owned();
        if let Some(running) = table.get(&id).filter(|h| !h.is_closed()) {
            return Ok(running.clone());
        }
        let (inbox, requests) = mpsc::channel(self.shared.limits.queue.max(1));
        let started = self.shared.kind.start(setup, requests);
        let handle = Handle::local(&id, inbox, started.status, self.shared.nodes.lease());
        // Other nodes' members hear the actor's events from the first.
        self.shared.nodes.publish::<K>(&id, started.events);
        Ok(self.run(table, handle, started.task))
    }

    /// Lists `handle` in `table` and spawns `task`, its actor or relay; the actor leaves
    /// the table once the task ends.
    fn run(
        &self,
        mut table: MutexGuard<'_, HashMap<String, Handle<K>>>,
        handle: Handle<K>,
        task: BoxFuture<'static, ()>,
    ) -> Handle<K> {
        let id = handle.id().to_owned();
        table.insert(id.clone(), handle.clone());
        drop(table);
        let placement = self.clone();
        let relayed = handle.relayed_from().is_some();
        tokio::spawn(async move {
            task.await;
            // Boxed: letting go of a claim in a cluster is a large future, which
            // inline would weigh on every actor's task for its whole life.
            Box::pin(placement.forget(&id, relayed)).await;
        });
        handle
    }

    /// Actor `id` has closed: it leaves the table (unless it runs again already), and
    /// this node lets go of its claim if it ran it. The claim is let go at the loading
    /// gate: a load between the look and the release would run the actor here while
    /// another node, finding no claim, could take it.
    async fn forget(&self, id: &str, relayed: bool) {
        {
            let mut table = self.lock();
            if table.get(id).is_some_and(Handle::is_closed) {
                table.remove(id);
            }
        }
        if relayed {
            return;
        }
        self.at_gate(id, async {
            if self.running(id).is_none() {
                self.shared.nodes.release(K::NAME, id).await;
            }
        })
        .await;
    }

    /// Runs `work` on actor `id` while no other task loads or forgets it: each load
    /// counts an incarnation, and a claim let go must not pass a load under way.
    async fn at_gate<T>(&self, id: &str, work: impl Future<Output = T>) -> T {
        let gate = {
            let mut loading = self
                .shared
                .loading
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            Arc::clone(loading.entry(id.to_owned()).or_default())
        };
        let done = {
            let _turn = gate.lock().await;
            work.await
        };
        let mut loading = self
            .shared
            .loading
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // The map and this task hold the gate: nobody else waits at it.
        if Arc::strong_count(&gate) == 2 {
            loading.remove(id);
        }
        done
    }

    /// Actor `id` to ask: the one running or relayed, or the stored one, loaded now (or
    /// relayed from the node that runs it). Loading counts against the limit.
    pub(crate) async fn enter(&self, id: &str) -> Result<Handle<K>, PlaceError> {
        self.answering()?;
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        // Whoever loads the actor first, the others wait for it and then find it
        // running.
        self.at_gate(id, self.load(id)).await
    }

    /// Actor `id`, running if another task loaded it meanwhile, relayed if another node
    /// runs it, else claimed and loaded from the store now.
    async fn load(&self, id: &str) -> Result<Handle<K>, PlaceError> {
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        // The server may have begun to stop while this task waited at the gate.
        self.answering()?;
        if self.is_full() {
            return Err(PlaceError::Full);
        }
        let nodes = &self.shared.nodes;
        let place = nodes.locate(K::NAME, id).await;
        match place.map_err(|e| cluster_failed(&e))? {
            None => Err(PlaceError::NotFound),
            Some(Place::There(node)) => self.relay(id, node).await,
            Some(Place::Here) => {
                let loaded = self.shared.kind.load(id).await;
                let loaded = match loaded {
                    Ok(Some(setup)) => self.start(setup),
                    Ok(None) => Err(PlaceError::NotFound),
                    Err(Unavailable) => Err(PlaceError::Unavailable),
                };
                if loaded.is_err() {
                    nodes.release(K::NAME, id).await;
                }
                loaded
            }
        }
    }

    /// A relay of actor `id` from node `node`, listed.
    async fn relay(&self, id: &str, node: NodeTag) -> Result<Handle<K>, PlaceError> {
        let Limits { events, queue, .. } = self.shared.limits;
        let relayed = self.shared.nodes.relay::<K>(id, node, events, queue).await;
        let (handle, task) = relayed.map_err(|Closed| {
            tracing::debug!(
                kind = K::NAME,
                id,
                owner = node,
                "the actor's node did not answer"
            );
            PlaceError::Unavailable
        })?;
        Ok(self.run(self.lock(), handle, task))
    }

    /// Asks actor `id` `request`, entering it if need be; answers its handle (to ask
    /// again) and its reply. An actor that closed between the lookup and the question
    /// (its idle timeout ran out just then) is loaded again. In a cluster, an actor whose
    /// node is going away is tried again until another node has taken it over, for up
    /// to the limits' patience; and a node that lost its lease stops trying at once.
    pub(crate) async fn ask(
        &self,
        id: &str,
        request: &K::Request,
    ) -> Result<(Handle<K>, Reply<K>), PlaceError> {
        let clustered = self.shared.nodes.waits_for_failover();
        let deadline = Instant::now() + self.shared.limits.patience;
        for attempt in 1.. {
            match self.enter(id).await {
                Ok(handle) => {
                    if let Ok(reply) = handle.ask(request.clone()).await {
                        return Ok((handle, reply));
                    }
                    let relayed = handle.relayed_from();
                    tracing::debug!(
                        kind = K::NAME,
                        id,
                        attempt,
                        ?relayed,
                        "the actor closed under the question"
                    );
                }
                Err(PlaceError::Unavailable) if clustered => {
                    tracing::debug!(
                        kind = K::NAME,
                        id,
                        attempt,
                        "the actor could not be entered"
                    );
                }
                Err(e) => return Err(e),
            }
            self.answering()?;
            if !clustered && attempt >= ATTEMPTS {
                return Err(PlaceError::NotFound);
            }
            if clustered {
                if Instant::now() >= deadline {
                    tracing::warn!(kind = K::NAME, id, attempt, "gave up entering the actor");
                    return Err(PlaceError::Unavailable);
                }
                tokio::time::sleep(RETRY_WAIT).await;
            }
        }
        unreachable!("the loop returns")
    }

    /// Actor `id` if this node runs it (loading it if this node holds or takes its
    /// claim), for another node's request; `None` if another node runs it.
    async fn owned(&self, id: &str) -> Option<Handle<K>> {
        let handle = match self.running(id) {
            Some(handle) => handle,
            None => self.enter(id).await.ok()?,
        };
        handle.relayed_from().is_none().then_some(handle)
    }

    /// Where actor `id` runs, as an operator asks: the node holding its claim, and
    /// whether this node holds it. Loads nothing.
    pub(crate) async fn whereabouts(&self, id: &str) -> Result<Whereabouts, PlaceError> {
        let holder = self.shared.nodes.holder(K::NAME, id).await;
        let holder = holder.map_err(|e| cluster_failed(&e))?;
        Ok(Whereabouts {
            node: holder.map(|(node, _)| node),
            alive: holder.is_some_and(|(_, alive)| alive),
            here: self.running(id).is_some(),
        })
    }

    /// Whether another live node holds the claim on actor `id` (when unsure: yes).
    pub(crate) async fn held_elsewhere(&self, id: &str) -> bool {
        self.shared.nodes.held_elsewhere(K::NAME, id).await
    }

    /// Loads the actors the kind says are due that no live node holds, as many as the
    /// limit allows (the others wait until someone asks for them); answers how many. On
    /// a node's start, and when a node dies: this is how a dead node's actors that
    /// nobody asks for (a room's clock, a tournament's next round) are taken over.
    pub(crate) async fn restore(&self) -> Result<usize, Unavailable> {
        let mut orphans = Vec::new();
        for id in self.shared.kind.due().await? {
            if !self.held_elsewhere(&id).await {
                orphans.push(id);
            }
        }
        let mut loaded = 0;
        for id in &orphans {
            match self.enter(id).await {
                Ok(_) => loaded += 1,
                Err(PlaceError::Full) => {
                    tracing::warn!(
                        kind = K::NAME,
                        waiting = orphans.len() - loaded,
                        "the limit is reached: the others load when asked for"
                    );
                    break;
                }
                Err(_) => {}
            }
        }
        Ok(loaded)
    }

    /// In a cluster: answers the other nodes' requests for the actors run here and
    /// their question for this node's statuses, and tells the actors run here when a
    /// node dies, so that they let its members go.
    fn serve_other_nodes(&self) {
        let nodes = &self.shared.nodes;
        let placement = self.clone();
        nodes.serve(
            wire::node_subject(nodes.tag(), K::NAME),
            Arc::new(move |payload| {
                let placement = placement.clone();
                async move { placement.answer(&payload).await }.boxed()
            }),
        );
        let placement = self.clone();
        nodes.serve(
            wire::status_subject(K::NAME),
            Arc::new(move |_| std::future::ready(to_json(&placement.statuses())).boxed()),
        );
        tokio::spawn(self.clone().follow_deaths(nodes.deaths()));
    }

    /// The answer to another node's request, as JSON: the actor's, or `Moved` when it
    /// does not run here or this node may not answer.
    async fn answer(&self, payload: &[u8]) -> Vec<u8> {
        let Ok(Asked { id, request }) =
            serde_json::from_slice::<Asked<Option<K::Request>>>(payload)
        else {
            tracing::error!(kind = K::NAME, "a node's request does not read");
            return to_json(&Err::<(), _>(Moved));
        };
        let Some(handle) = self.owned(&id).await else {
            return to_json(&Err::<(), _>(Moved));
        };
        match request {
            // Whether it runs here.
            None => to_json(&Ok::<(), Moved>(())),
            Some(request) => match handle.ask(request).await {
                Ok(reply) => to_json(&Ok::<_, Moved>(reply.answer)),
                Err(Closed) => to_json(&Err::<(), _>(Moved)),
            },
        }
    }

    /// When nodes die: tells every actor run here, so that it lets go of their members,
    /// then takes over the dead nodes' due actors (the living race for each claim; one
    /// wins). A single server's nodes never change.
    async fn follow_deaths(self, mut deaths: Deaths) {
        while let Some(dead) = deaths.next().await {
            for node in dead {
                let Some(request) = K::node_died(node) else {
                    continue;
                };
                let handles: Vec<Handle<K>> = self.lock().values().cloned().collect();
                for handle in handles.iter().filter(|h| h.relayed_from().is_none()) {
                    handle.tell(request.clone());
                }
            }
            match self.restore().await {
                Ok(0) => {}
                Ok(actors) => {
                    tracing::info!(kind = K::NAME, actors, "a dead node's actors taken over")
                }
                Err(Unavailable) => {
                    tracing::error!(kind = K::NAME, "taking over a dead node's actors failed");
                }
            }
        }
    }
}

/// Loads the actors due every `period` until `shutdown` (see [`Placement::restore`]), as
/// long as `placement` is in use.
fn restore_every<K: Kind>(
    period: Duration,
    shutdown: Shutdown,
    placement: &Placement<K>,
) -> impl Future<Output = ()> + Send + 'static {
    let shared = Arc::downgrade(&placement.shared);
    every(period, shutdown, move || {
        let placement = shared.upgrade().map(|shared| Placement { shared });
        async move {
            if let Some(placement) = placement {
                // A failure is logged by the kind; the next period tries again.
                let _ = placement.restore().await;
            }
        }
    })
}

/// Once `shutdown` fires, forgets every actor of `shared` (if it is still in use): each
/// stops once its last member has gone, and none is loaded again.
async fn forget_all_at<K: Kind>(mut shutdown: Shutdown, shared: Weak<Shared<K>>) {
    shutdown.wait().await;
    if let Some(shared) = shared.upgrade() {
        Placement { shared }.lock().clear();
    }
}

/// Where an actor runs, as an operator asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Whereabouts {
    /// The node that holds the actor's claim, if one does (none on a single server,
    /// where this node runs every actor it holds).
    pub(crate) node: Option<NodeTag>,
    /// Whether that node is alive.
    pub(crate) alive: bool,
    /// Whether this node holds the actor in memory, running it or relaying it.
    pub(crate) here: bool,
}

/// Logs a failure to reach the cluster; answers what the caller sees (try again).
fn cluster_failed(e: &ClusterError) -> PlaceError {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "cluster");
    PlaceError::Unavailable
}
