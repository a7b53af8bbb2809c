//! This node's place in a cluster of servers sharing one PostgreSQL database and one
//! NATS server (with JetStream): its lease, the claims on actors, and the messages
//! between nodes.
//!
//! - **Nodes.** Each node holds a key in the `punct-nodes` key-value bucket, whose
//!   entries expire after the lease (`--cluster-lease`); the node renews it four times a
//!   lease. A node writes to the database only while its renewal is recent enough
//!   ([`Lease`]): it stops writing before the others count it dead. A node that lost
//!   its lease shuts down (its supervisor starts it again as a new node).
//! - **Claims.** Exactly one node runs an actor: the one whose tag the actor's key holds
//!   in its kind's bucket (`punct-rooms` for rooms). A node claims an actor it is asked
//!   for when nobody holds it or its holder is dead, by compare-and-set, and lets go of
//!   it when the actor ends. The database's incarnation count fences whatever a former
//!   holder still tries to write.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, kv};
use futures_util::StreamExt;
use tokio::sync::watch;

use super::ids::NodeTag;
use crate::lease::Lease;

/// The bucket of live nodes.
const NODES: &str = "punct-nodes";
/// How long joining waits for the NATS server.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Tries to claim an actor whose claim changes under the claimer.
const CLAIM_ATTEMPTS: usize = 3;

/// Where an actor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// On this node (it holds the claim now).
    Here,
    /// On the live node with this tag.
    There(NodeTag),
}

/// A failure to talk to NATS.
#[derive(Debug)]
pub(crate) struct ClusterError(String);

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cluster: {}", self.0)
    }
}

impl std::error::Error for ClusterError {}

/// Any NATS error, as text: the caller only logs it.
pub(crate) fn nats(e: impl fmt::Display) -> ClusterError {
    ClusterError(e.to_string())
}

/// A cheap handle on this node's place in the cluster.
#[derive(Clone, Debug)]
pub(crate) struct Cluster {
    /// Shared by every clone.
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The connection to NATS.
    client: async_nats::Client,
    /// Where the claim buckets are.
    jetstream: jetstream::Context,
    /// Each kind's bucket of claims, once opened.
    claims: tokio::sync::Mutex<HashMap<&'static str, kv::Store>>,
    /// This node's tag.
    tag: NodeTag,
    /// Held while the node's key is renewed in time.
    lease: Lease,
    /// The nodes alive, this one among them.
    live: watch::Receiver<HashSet<NodeTag>>,
    /// Turns true once the lease is lost.
    lost: watch::Receiver<bool>,
    /// Tells the renewing task to let go of the node's key.
    quit: watch::Sender<bool>,
    /// The revision of each claim this node holds, by kind and id.
    held: Mutex<HashMap<(&'static str, String), u64>>,
}

impl Cluster {
    /// Joins the cluster whose NATS server is at `url`, with leases of `lease`: makes
    /// the bucket of nodes if it is missing, takes a fresh tag and starts renewing it.
    pub(crate) async fn join(url: &str, lease: Duration) -> Result<Cluster, ClusterError> {
        // A server that accepts the connection but does not speak NATS would hold the
        // start forever.
        let connecting = async_nats::ConnectOptions::new()
            .name("punct-server")
            .connect(url);
        let client = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
            .await
            .map_err(|_| ClusterError(format!("{url} did not answer as a NATS server")))?
            .map_err(nats)?;
        let js = jetstream::new(client.clone());
        let nodes = bucket(&js, NODES, lease).await?;
        let held = Lease::renewable();
        let (tag, revision) = loop {
            let tag = crate::secret::node_tag();
            let sent = Instant::now();
            match nodes.create(tag.to_string(), Default::default()).await {
                Ok(revision) => {
                    held.extend(sent + term(lease));
                    break (tag, revision);
                }
                Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {}
                Err(e) => return Err(nats(e)),
            }
        };
        let mut seen = HashMap::new();
        let mut keys = nodes.keys().await.map_err(nats)?;
        while let Some(key) = keys.next().await {
            if let Ok(other) = key.map_err(nats)?.parse::<NodeTag>() {
                seen.insert(other, Instant::now());
            }
        }
        seen.insert(tag, Instant::now());
        let (live_tx, live) = watch::channel(seen.keys().copied().collect());
        let watch = nodes.watch_all().await.map_err(nats)?;
        tokio::spawn(follow(nodes.clone(), watch, seen, lease, live_tx));
        let (lost_tx, lost) = watch::channel(false);
        let (quit, quitting) = watch::channel(false);
        let renewal = Renewal {
            nodes,
            key: tag.to_string(),
            revision,
            lease: held.clone(),
            term: lease,
        };
        tokio::spawn(renewal.run(lost_tx, quitting));
        tracing::info!(node = tag, "joined the cluster");
        Ok(Cluster {
            inner: Arc::new(Inner {
                client,
                jetstream: js,
                claims: tokio::sync::Mutex::new(HashMap::new()),
                tag,
                lease: held,
                live,
                lost,
                quit,
                held: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// This node's tag.
    pub(crate) fn tag(&self) -> NodeTag {
        self.inner.tag
    }

    /// This node's lease, which its writes check.
    pub(crate) fn lease(&self) -> Lease {
        self.inner.lease.clone()
    }

    /// The connection to NATS.
    pub(crate) fn client(&self) -> &async_nats::Client {
        &self.inner.client
    }

    /// The nodes alive, as they change.
    pub(crate) fn live(&self) -> watch::Receiver<HashSet<NodeTag>> {
        self.inner.live.clone()
    }

    /// Whether the node `tag` is alive, as far as this node knows.
    pub(crate) fn is_alive(&self, tag: NodeTag) -> bool {
        self.inner.live.borrow().contains(&tag)
    }

    /// Completes once this node has lost its lease: it must stop.
    pub(crate) async fn lost(&self) {
        let mut lost = self.inner.lost.clone();
        let _ = lost.wait_for(|&lost| lost).await;
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<(&'static str, String), u64>> {
        self.inner
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// This node's tag, as claims hold it.
    fn value(&self) -> String {
        self.inner.tag.to_string()
    }

    /// The bucket of `kind`'s claims, made if missing.
    async fn claims(&self, kind: &'static str) -> Result<kv::Store, ClusterError> {
        let mut open = self.inner.claims.lock().await;
        if let Some(store) = open.get(kind) {
            return Ok(store.clone());
        }
        let store = bucket(
            &self.inner.jetstream,
            &format!("punct-{kind}s"),
            Duration::ZERO,
        )
        .await?;
        open.insert(kind, store.clone());
        Ok(store)
    }

    /// Claims actor `id` of `kind`, just created here.
    pub(crate) async fn claim_new(&self, kind: &'static str, id: &str) -> Result<(), ClusterError> {
        let revision = self
            .claims(kind)
            .await?
            .create(id, self.value().into())
            .await
            .map_err(nats)?;
        self.held().insert((kind, id.to_owned()), revision);
        Ok(())
    }

    /// The node holding the claim on actor `id` of `kind`, if it is held (its holder may
    /// be dead).
    pub(crate) async fn holder(
        &self,
        kind: &'static str,
        id: &str,
    ) -> Result<Option<NodeTag>, ClusterError> {
        let entry = self.claims(kind).await?.entry(id).await.map_err(nats)?;
        Ok(entry
            .filter(|e| e.operation == kv::Operation::Put)
            .and_then(|e| parse_tag(&e.value)))
    }

    /// Where actor `id` of `kind` runs: on a live node that holds its claim, or here,
    /// claimed now because nobody held it or its holder is dead.
    pub(crate) async fn locate(&self, kind: &'static str, id: &str) -> Result<Place, ClusterError> {
        let claims = self.claims(kind).await?;
        for _ in 0..CLAIM_ATTEMPTS {
            let entry = claims.entry(id).await.map_err(nats)?;
            let claimed = match entry.filter(|e| e.operation == kv::Operation::Put) {
                Some(entry) => match parse_tag(&entry.value) {
                    Some(owner) if owner == self.tag() => Some(entry.revision),
                    Some(owner) if self.is_alive(owner) => return Ok(Place::There(owner)),
                    _ => claims
                        .update(id, self.value().into(), entry.revision)
                        .await
                        .ok(),
                },
                None => claims.create(id, self.value().into()).await.ok(),
            };
            if let Some(revision) = claimed {
                self.held().insert((kind, id.to_owned()), revision);
                return Ok(Place::Here);
            }
        }
        Err(ClusterError(format!(
            "the claim on {kind} {id} keeps changing"
        )))
    }

    /// Lets go of the claim on actor `id` of `kind`, if this node holds it.
    pub(crate) async fn release(&self, kind: &'static str, id: &str) {
        let Some(revision) = self.held().remove(&(kind, id.to_owned())) else {
            return;
        };
        let released = match self.claims(kind).await {
            Ok(claims) => claims
                .delete_expect_revision(id, Some(revision))
                .await
                .map_err(nats),
            Err(e) => Err(e),
        };
        if let Err(e) = released {
            // Taken over meanwhile, or NATS is away: the claim's holder is then dead to
            // the others once this node's key expires.
            tracing::debug!(kind, id, "cannot release the claim: {e}");
        }
    }

    /// Leaves the cluster at shutdown: lets go of every claim and of the node's key, so
    /// that the other nodes take its actors over at once.
    pub(crate) async fn leave(&self) {
        let claims: Vec<(&'static str, String)> = self.held().keys().cloned().collect();
        for (kind, id) in claims {
            self.release(kind, &id).await;
        }
        let _ = self.inner.quit.send(true);
        let mut lost = self.inner.lost.clone();
        let _ = tokio::time::timeout(Duration::from_secs(2), lost.wait_for(|&lost| lost)).await;
        tracing::info!("left the cluster");
    }
}

fn parse_tag(value: &[u8]) -> Option<NodeTag> {
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// How long after sending a renewal the node counts on its lease: a fifth less than the
/// lease, so that it stops writing before the others count it dead (they count from
/// when they saw the renewal, later than it was sent).
fn term(lease: Duration) -> Duration {
    lease - lease / 5
}

/// The bucket `name`, made if missing; entries expire after `max_age` (never if zero).
async fn bucket(
    js: &jetstream::Context,
    name: &str,
    max_age: Duration,
) -> Result<kv::Store, ClusterError> {
    if let Ok(store) = js.get_key_value(name).await {
        return Ok(store);
    }
    js.create_key_value(kv::Config {
        bucket: name.to_owned(),
        history: 1,
        max_age,
        ..Default::default()
    })
    .await
    .map_err(nats)
}

/// Renews the node's key.
struct Renewal {
    nodes: kv::Store,
    key: String,
    revision: u64,
    lease: Lease,
    term: Duration,
}

impl Renewal {
    /// Renews four times a lease until the lease is lost (then says so on `lost`) or
    /// `quit` turns true (then deletes the key).
    async fn run(mut self, lost: watch::Sender<bool>, mut quit: watch::Receiver<bool>) {
        let every = self.term / 4;
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                // Only ever sent `true`, once.
                _ = quit.changed() => {
                    self.lease.give_up();
                    let _ = self.nodes.delete_expect_revision(&self.key, Some(self.revision)).await;
                    let _ = lost.send(true);
                    return;
                }
            }
            let sent = Instant::now();
            let renewed = tokio::time::timeout(
                every,
                self.nodes
                    .update(&self.key, Default::default(), self.revision),
            )
            .await;
            match renewed {
                Ok(Ok(revision)) => {
                    self.revision = revision;
                    self.lease.extend(sent + term(self.term));
                }
                Ok(Err(e)) if !self.lease.held() => {
                    tracing::error!("lost the cluster lease: {e}");
                    break;
                }
                Err(_) if !self.lease.held() => {
                    tracing::error!("lost the cluster lease: NATS did not answer in time");
                    break;
                }
                Ok(Err(e)) => tracing::warn!("cannot renew the cluster lease yet: {e}"),
                Err(_) => tracing::warn!("cannot renew the cluster lease yet: no answer"),
            }
        }
        self.lease.give_up();
        let _ = lost.send(true);
    }
}

/// Keeps `live` current: a node is alive while its key was put less than a lease ago.
async fn follow(
    nodes: kv::Store,
    mut watch: kv::Watch,
    mut seen: HashMap<NodeTag, Instant>,
    lease: Duration,
    live: watch::Sender<HashSet<NodeTag>>,
) {
    let mut prune = tokio::time::interval(lease / 10);
    loop {
        tokio::select! {
            entry = watch.next() => match entry {
                Some(Ok(entry)) => {
                    if let Some(tag) = parse_tag(entry.key.as_bytes()) {
                        if entry.operation == kv::Operation::Put {
                            seen.insert(tag, Instant::now());
                        } else {
                            seen.remove(&tag);
                        }
                    }
                }
                Some(Err(e)) => tracing::warn!("watching the cluster's nodes: {e}"),
                None => {
                    tracing::warn!("watching the cluster's nodes stopped: watching again");
                    tokio::time::sleep(lease / 10).await;
                    match nodes.watch_all().await {
                        Ok(again) => watch = again,
                        Err(e) => tracing::warn!("cannot watch the cluster's nodes: {e}"),
                    }
                }
            },
            _ = prune.tick() => seen.retain(|_, at| at.elapsed() < lease),
        }
        let now: HashSet<NodeTag> = seen.keys().copied().collect();
        live.send_if_modified(|old| {
            let changed = *old != now;
            if changed {
                *old = now;
            }
            changed
        });
        if live.is_closed() {
            return;
        }
    }
}
