//! This node's place in a cluster of servers sharing one PostgreSQL database and one
//! NATS server or NATS cluster (with JetStream): its lease, the claims on actors, and
//! the messages between nodes.
//!
//! - **Nodes.** Each node holds a key in the `punct-nodes` key-value bucket, whose
//!   entries expire after the lease (`--cluster-lease`); the node renews it four times a
//!   lease. A node writes to the database only while its renewal is recent enough
//!   ([`Lease`]): it stops writing before the others can count it dead. A node that
//!   lost its lease shuts down (its supervisor starts it again as a new node).
//! - **Who is dead.** A node is dead once its key is gone from the bucket, as the
//!   bucket's JetStream leader says: deleted as it left, expired, or deleted by another
//!   node that found it unrenewed for a lease. That node deletes it by compare-and-set
//!   on the revision it found, unchanged for longer than the dead node's lease, so the
//!   dead node has stopped writing. Dead is for good: a renewal that slips in after the
//!   deletion and puts the key back changes nothing ([`Follower`]), and a node that
//!   hears its own key deleted stops. A watch on the bucket hears renewals and
//!   deletions as they come, but no node is counted dead for renewals the watch did not
//!   bring: a watch can fall behind or break (when the NATS server under it dies), and a
//!   live node counted dead would have its actors taken while it still writes.
//! - **Claims.** Exactly one node runs an actor: the one whose tag the actor's newest
//!   claim holds in its kind's bucket (`punct-rooms` for rooms). Each claim is a key of
//!   its own, `<id>.<epoch>`, made once and never made again ([`Cluster::locate`]): a
//!   node asked for an actor that nobody holds, or whose holder is dead, makes the next
//!   epoch's key, and of nodes making it at the same moment exactly one succeeds. It
//!   lets go of the claim (deletes its key) when the actor ends. The database's
//!   incarnation count fences whatever a former holder still tries to write.

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
/// How long joining waits for JetStream to make or open the buckets: a NATS cluster
/// started with the nodes elects its JetStream leader first.
const JETSTREAM_PATIENCE: Duration = Duration::from_secs(30);
/// How long one try of a step of joining may take: a write JetStream cannot take yet
/// may go unanswered for its whole timeout (several seconds) before it fails.
const STEP_TIMEOUT: Duration = Duration::from_secs(2);

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
    /// The bucket of live nodes, which says who is dead.
    nodes: kv::Store,
    /// The nodes this node has counted dead: dead for good ([`Follower`]).
    dead: Dead,
    /// How many NATS servers keep each bucket made here.
    replicas: usize,
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
    /// Each claim this node holds, by kind and id.
    held: Mutex<HashMap<(&'static str, String), Claim>>,
}

impl Cluster {
    /// Joins the cluster whose NATS servers are at `urls` (comma-separated), with leases
    /// of `lease` and buckets kept by `replicas` NATS servers: makes the bucket of nodes
    /// if it is missing, takes a fresh tag and starts renewing it.
    pub(crate) async fn join(
        urls: &str,
        lease: Duration,
        replicas: usize,
    ) -> Result<Cluster, ClusterError> {
        let servers = servers(urls)?;
        // A server that accepts the connection but does not speak NATS would hold the
        // start forever.
        let connecting = async_nats::ConnectOptions::new()
            .name("punct-server")
            .connect(servers);
        let client = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
            .await
            .map_err(|_| ClusterError(format!("{urls} did not answer as a NATS server")))?
            .map_err(nats)?;
        let js = jetstream::new(client.clone());
        let nodes = bucket(&js, NODES, lease, replicas).await?;
        let held = Lease::renewable();
        // The bucket may be there before its JetStream leader is: the first steps wait.
        let deadline = Instant::now() + JETSTREAM_PATIENCE;
        let (tag, revision, sent) = patiently(deadline, "take a place in the cluster", || async {
            loop {
                let tag = crate::secret::node_tag();
                let sent = Instant::now();
                match nodes.create(tag.to_string(), Default::default()).await {
                    Ok(revision) => return Ok((tag, revision, sent)),
                    Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            }
        })
        .await?;
        held.extend(sent + term(lease));
        let others = patiently(deadline, "list the cluster's nodes", || async {
            let mut others = Vec::new();
            let mut keys = nodes.keys().await.map_err(nats)?;
            while let Some(key) = keys.next().await {
                if let Ok(other) = key.map_err(nats)?.parse::<NodeTag>() {
                    others.push(other);
                }
            }
            Ok::<_, ClusterError>(others)
        })
        .await?;
        // The watch below tells each key's revision at once.
        let mut seen: HashMap<NodeTag, Heard> = others
            .into_iter()
            .map(|other| (other, Heard::now(0)))
            .collect();
        seen.insert(tag, Heard::now(revision));
        let (live_tx, live) = watch::channel(seen.keys().copied().collect());
        let watch = patiently(deadline, "watch the cluster's nodes", || nodes.watch_all()).await?;
        let dead = Dead::default();
        let counted_dead = Arc::new(tokio::sync::Notify::new());
        let follower = Follower {
            nodes: nodes.clone(),
            tag,
            seen,
            dead: dead.clone(),
            counted_dead: Arc::clone(&counted_dead),
            lease,
            live: live_tx,
        };
        tokio::spawn(follower.run(watch));
        let (lost_tx, lost) = watch::channel(false);
        let (quit, quitting) = watch::channel(false);
        let nodes_bucket = nodes.clone();
        let renewal = Renewal {
            nodes,
            key: tag.to_string(),
            revision,
            lease: held.clone(),
            term: lease,
            counted_dead,
        };
        tokio::spawn(renewal.run(lost_tx, quitting));
        tracing::info!(node = tag, "joined the cluster");
        Ok(Cluster {
            inner: Arc::new(Inner {
                client,
                jetstream: js,
                nodes: nodes_bucket,
                dead,
                replicas,
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

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<(&'static str, String), Claim>> {
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
            self.inner.replicas,
        )
        .await?;
        open.insert(kind, store.clone());
        Ok(store)
    }

    /// Claims actor `id` of `kind`, just created here: its first epoch.
    pub(crate) async fn claim_new(&self, kind: &'static str, id: &str) -> Result<(), ClusterError> {
        let claims = self.claims(kind).await?;
        let revision = make(&claims, &epoch_key(id, 1), &self.value())
            .await
            .map_err(nats)?;
        let claim = Claim { epoch: 1, revision };
        self.held().insert((kind, id.to_owned()), claim);
        Ok(())
    }

    /// The node holding the claim on actor `id` of `kind`, if it is held (its holder may
    /// be dead).
    pub(crate) async fn holder(
        &self,
        kind: &'static str,
        id: &str,
    ) -> Result<Option<NodeTag>, ClusterError> {
        let (_, newest) = newest_claim(&self.claims(kind).await?, id).await?;
        Ok(newest.as_ref().and_then(Write::holder))
    }

    /// Where actor `id` of `kind` runs: on a live node that holds its newest claim, or
    /// here, claimed now because nobody held it or its holder is dead. A holder counts
    /// as dead only once its key is gone, so a node never takes an actor from a node that
    /// may still write.
    ///
    /// A claim is the making of the next epoch's key, sent as a write expecting no
    /// earlier one. A NATS server checks that expectation as it applies the write, in
    /// the order of its log and the same on every server, so of the nodes making one key
    /// exactly one succeeds. A compare-and-set on one key's revision would not do: on a
    /// NATS cluster the bucket's leader checks a nonzero expected revision before it
    /// proposes the write, not as it applies it (nats-server 2.9, Debian's), and a check
    /// that passed may be proposed after a rival's claim was applied and acknowledged,
    /// so both nodes would run the actor.
    pub(crate) async fn locate(&self, kind: &'static str, id: &str) -> Result<Place, ClusterError> {
        let claims = self.claims(kind).await?;
        let (mut epoch, mut newest) = newest_claim(&claims, id).await?;
        loop {
            match newest.as_ref().and_then(Write::holder) {
                Some(owner) if owner == self.tag() && self.holds(kind, id, epoch) => {
                    return Ok(Place::Here);
                }
                Some(owner) if owner != self.tag() && self.is_alive(owner) => {
                    return Ok(Place::There(owner));
                }
                // Alive, though this node has not heard of it yet (it joined just now).
                Some(owner) if owner != self.tag() && self.has_key(owner).await? => {
                    return Ok(Place::There(owner));
                }
                // Let go of, never held, or held by a dead node.
                _ => {}
            }
            epoch += 1;
            let key = epoch_key(id, epoch);
            match make(&claims, &key, &self.value()).await {
                Ok(revision) => {
                    self.held()
                        .insert((kind, id.to_owned()), Claim { epoch, revision });
                    // Only a shortcut for readers, who look for newer epochs anyway.
                    let pointer = claims.put(newest_key(id), epoch.to_string().into());
                    if let Err(e) = pointer.await {
                        tracing::debug!(kind, id, epoch, "cannot note the newest claim: {e}");
                    }
                    return Ok(Place::Here);
                }
                // Made by another node first, or NATS failed: the key tells which.
                Err(e) => match last_write(&claims, &key).await? {
                    Some(theirs) => newest = Some(theirs),
                    None => return Err(nats(e)),
                },
            }
        }
    }

    /// Whether this node holds the claim of epoch `epoch` on actor `id` of `kind`.
    fn holds(&self, kind: &'static str, id: &str, epoch: u64) -> bool {
        self.held()
            .get(&(kind, id.to_owned()))
            .is_some_and(|claim| claim.epoch == epoch)
    }

    /// Whether node `tag`'s key is in the bucket of nodes now, as the bucket's leader
    /// says: a node is alive exactly while it is, unless this node counted it dead
    /// before (its key came back: [`Follower`]).
    async fn has_key(&self, tag: NodeTag) -> Result<bool, ClusterError> {
        Ok(!self.inner.dead.contains(tag) && key_revision(&self.inner.nodes, tag).await?.is_some())
    }

    /// Lets go of the claim on actor `id` of `kind`, if this node holds it. Nobody else
    /// writes to a claim's key once it is made.
    pub(crate) async fn release(&self, kind: &'static str, id: &str) {
        let Some(claim) = self.held().remove(&(kind, id.to_owned())) else {
            return;
        };
        let released = match self.claims(kind).await {
            Ok(claims) => claims
                .delete_expect_revision(epoch_key(id, claim.epoch), Some(claim.revision))
                .await
                .map_err(nats),
            Err(e) => Err(e),
        };
        if let Err(e) = released {
            // NATS is away: the claim's holder is then dead to the others once this
            // node's key expires.
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

/// A claim this node holds.
#[derive(Clone, Copy, Debug)]
struct Claim {
    /// Its epoch: the actor's how-manieth claim.
    epoch: u64,
    /// The revision of its key, written by this node alone.
    revision: u64,
}

/// The key of the claim of epoch `epoch` on actor `id`. No actor's id has a dot
/// (`ids::valid_id`).
fn epoch_key(id: &str, epoch: u64) -> String {
    format!("{id}.{epoch}")
}

/// The key naming the newest epoch of actor `id`'s claims, as its last claimer wrote
/// it: it may lag behind, never ahead.
fn newest_key(id: &str) -> String {
    format!("{id}.newest")
}

/// Makes `key` holding `value`, if no write of it was ever applied: answers its
/// revision. The expected revision 0 is checked as NATS applies the write ([`Cluster::locate`]).
async fn make(claims: &kv::Store, key: &str, value: &str) -> Result<u64, kv::UpdateError> {
    claims.update(key, value.to_owned().into(), 0).await
}

/// The epoch of actor `id`'s newest claim (0 if it was never claimed) and the last write
/// of its key: from the epoch the bucket notes, on to the last key made after it.
async fn newest_claim(claims: &kv::Store, id: &str) -> Result<(u64, Option<Write>), ClusterError> {
    let noted = last_write(claims, &newest_key(id)).await?;
    let mut epoch = noted
        .filter(|write| write.put)
        .and_then(|write| std::str::from_utf8(&write.value).ok()?.parse().ok())
        .unwrap_or(0);
    let mut newest = match epoch {
        0 => None,
        _ => last_write(claims, &epoch_key(id, epoch)).await?,
    };
    while let Some(next) = last_write(claims, &epoch_key(id, epoch + 1)).await? {
        epoch += 1;
        newest = Some(next);
    }
    Ok((epoch, newest))
}

/// How long after sending a renewal the node counts on its lease: a fifth less than the
/// lease, so that it stops writing before the others count it dead (they count from
/// when they saw the renewal, later than it was sent).
fn term(lease: Duration) -> Duration {
    lease - lease / 5
}

/// The NATS servers of `urls`, comma-separated.
fn servers(urls: &str) -> Result<Vec<async_nats::ServerAddr>, ClusterError> {
    let servers = urls
        .split(',')
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(|url| {
            url.parse()
                .map_err(|e| ClusterError(format!("{url} is not a NATS server's URL: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if servers.is_empty() {
        return Err(ClusterError("no NATS server given".to_owned()));
    }
    Ok(servers)
}

/// The bucket `name`, made if missing, kept by `replicas` NATS servers; entries expire
/// after `max_age` (never if zero). Waits while JetStream is not ready yet.
async fn bucket(
    js: &jetstream::Context,
    name: &str,
    max_age: Duration,
    replicas: usize,
) -> Result<kv::Store, ClusterError> {
    let config = kv::Config {
        bucket: name.to_owned(),
        history: 1,
        max_age,
        num_replicas: replicas,
        ..Default::default()
    };
    let deadline = Instant::now() + JETSTREAM_PATIENCE;
    patiently(deadline, &format!("make the bucket {name}"), || async {
        if let Ok(store) = js.get_key_value(name).await {
            return Ok(store);
        }
        js.create_key_value(config.clone()).await
    })
    .await
}

/// Tries `step` until it succeeds, half a second apart and each try for at most
/// [`STEP_TIMEOUT`], until `deadline` (then answers its last failure): the steps of
/// joining, which JetStream refuses (or leaves unanswered) while it elects a leader.
async fn patiently<T, E, F>(
    deadline: Instant,
    what: &str,
    mut step: impl FnMut() -> F,
) -> Result<T, ClusterError>
where
    F: Future<Output = Result<T, E>>,
    E: fmt::Display,
{
    loop {
        let failure = match tokio::time::timeout(STEP_TIMEOUT, step()).await {
            Ok(Ok(done)) => return Ok(done),
            Ok(Err(e)) => e.to_string(),
            Err(_) => "no answer".to_owned(),
        };
        if Instant::now() >= deadline {
            return Err(ClusterError(format!("cannot {what}: {failure}")));
        }
        tracing::warn!("cannot {what} yet: {failure}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The revision of node `tag`'s key in `nodes` now; `None` once it is gone. Read from
/// the bucket's JetStream leader, not from any replica (one that fell behind may not have
/// the last renewal yet).
async fn key_revision(nodes: &kv::Store, tag: NodeTag) -> Result<Option<u64>, ClusterError> {
    Ok(last_write(nodes, &tag.to_string())
        .await?
        .filter(|write| write.put)
        .map(|write| write.revision))
}

/// The last write of a key.
#[derive(Debug)]
struct Write {
    /// Its revision.
    revision: u64,
    /// Whether it put a value (not deleted the key).
    put: bool,
    /// The value put.
    value: bytes::Bytes,
}

impl Write {
    /// The node a claim's key names, while it is not let go of.
    fn holder(&self) -> Option<NodeTag> {
        self.put.then(|| parse_tag(&self.value)).flatten()
    }
}

/// The last write of `key` in `bucket`; `None` if it was never written. Read from the
/// bucket's JetStream leader, which has applied every write it acknowledged.
async fn last_write(bucket: &kv::Store, key: &str) -> Result<Option<Write>, ClusterError> {
    let subject = format!("{}{key}", bucket.prefix);
    match bucket
        .stream
        .get_last_raw_message_by_subject(&subject)
        .await
    {
        Ok(message) => {
            let put = message
                .headers
                .get("KV-Operation")
                .is_none_or(|operation| operation.as_str() == "PUT");
            Ok(Some(Write {
                revision: message.sequence,
                put,
                value: message.payload,
            }))
        }
        Err(e) if e.kind() == jetstream::stream::LastRawMessageErrorKind::NoMessageFound => {
            Ok(None)
        }
        Err(e) => Err(nats(e)),
    }
}

/// Renews the node's key.
struct Renewal {
    nodes: kv::Store,
    key: String,
    revision: u64,
    lease: Lease,
    term: Duration,
    /// Notified when this node's key was deleted by another: it is dead to the others.
    counted_dead: Arc<tokio::sync::Notify>,
}

impl Renewal {
    /// Renews four times a lease until the lease is lost or another node counts this
    /// one dead (then says so on `lost`), or `quit` turns true (then deletes the key).
    async fn run(mut self, lost: watch::Sender<bool>, mut quit: watch::Receiver<bool>) {
        let every = self.term / 4;
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                // Even if a renewal of its key succeeds after that.
                () = self.counted_dead.notified() => {
                    tracing::error!("lost the cluster lease: another node counted this one dead");
                    break;
                }
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

/// When this node heard of a revision of another node's key.
#[derive(Clone, Copy, Debug)]
struct Heard {
    /// When it heard of it: no earlier than the key was put.
    at: Instant,
    /// The revision; 0 when not known yet.
    revision: u64,
}

impl Heard {
    fn now(revision: u64) -> Heard {
        Heard {
            at: Instant::now(),
            revision,
        }
    }
}

/// The nodes counted dead, shared by a node's [`Follower`], which fills it, and its
/// claims, which never count such a node alive again.
#[derive(Clone, Debug, Default)]
struct Dead(Arc<Mutex<HashSet<NodeTag>>>);

impl Dead {
    fn insert(&self, tag: NodeTag) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(tag);
    }

    fn contains(&self, tag: NodeTag) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&tag)
    }
}

/// Keeps the set of live nodes current.
struct Follower {
    /// The bucket of nodes.
    nodes: kv::Store,
    /// This node's tag: never counted dead by this node's checks (its renewal sees to
    /// that), only when another node deletes its key.
    tag: NodeTag,
    /// The last revision of each live node's key this node heard of.
    seen: HashMap<NodeTag, Heard>,
    /// The nodes counted dead: their keys deleted (or gone). A node is never alive again
    /// once dead, even if its key comes back: a renewal and the deletion of the same key
    /// can both pass the leader's check of their expected revision, which it makes before
    /// proposing a write, and the renewal can be applied last.
    dead: Dead,
    /// Told when this node's own key is deleted: the others count it dead, so it stops.
    counted_dead: Arc<tokio::sync::Notify>,
    /// The lease: a node whose key is unchanged for this long has stopped writing.
    lease: Duration,
    /// Where the live nodes are told.
    live: watch::Sender<HashSet<NodeTag>>,
}

impl Follower {
    /// Follows `watch` on the bucket: a node is alive from its key's first put until its
    /// key is gone ([`Follower::check`]).
    async fn run(mut self, mut watch: kv::Watch) {
        let mut check = tokio::time::interval(self.lease / 10);
        loop {
            tokio::select! {
                entry = watch.next() => match entry {
                    Some(Ok(entry)) => {
                        if let Some(tag) = parse_tag(entry.key.as_bytes()) {
                            if entry.operation != kv::Operation::Put {
                                self.bury(tag);
                            } else if !self.dead.contains(tag) {
                                self.seen.insert(tag, Heard::now(entry.revision));
                            }
                        }
                    }
                    // The NATS server under the watch went away, or the watch fell
                    // behind: a new one starts from every key's last value.
                    Some(Err(e)) => {
                        tracing::warn!("watching the cluster's nodes: {e}: watching again");
                        watch = self.watch_again().await;
                    }
                    None => {
                        tracing::warn!("watching the cluster's nodes stopped: watching again");
                        watch = self.watch_again().await;
                    }
                },
                _ = check.tick() => self.check().await,
            }
            let now: HashSet<NodeTag> = self.seen.keys().copied().collect();
            self.live.send_if_modified(|old| {
                let changed = *old != now;
                if changed {
                    *old = now;
                }
                changed
            });
            if self.live.is_closed() {
                return;
            }
        }
    }

    /// Counts node `tag` dead, for good; this node's own key deleted, it stops.
    fn bury(&mut self, tag: NodeTag) {
        self.seen.remove(&tag);
        self.dead.insert(tag);
        if tag == self.tag {
            self.counted_dead.notify_one();
        }
    }

    /// A new watch on the bucket, once NATS gives one.
    async fn watch_again(&self) -> kv::Watch {
        loop {
            tokio::time::sleep(self.lease / 10).await;
            match self.nodes.watch_all().await {
                Ok(watch) => return watch,
                Err(e) => tracing::warn!("cannot watch the cluster's nodes: {e}"),
            }
        }
    }

    /// Looks up, on the bucket's leader, each node whose key this node has not heard
    /// change for a lease. Renewed since, it is alive (the watch missed the renewal).
    /// Gone, it is dead. Unchanged, its lease has lapsed (it counts its lease from
    /// before it renewed, and less than a lease): this node deletes its key at that
    /// revision, so that it can never renew, and counts it dead. When NATS cannot say,
    /// the node stays alive.
    async fn check(&mut self) {
        let quiet: Vec<(NodeTag, Heard)> = self
            .seen
            .iter()
            .filter(|&(&tag, heard)| tag != self.tag && heard.at.elapsed() >= self.lease)
            .map(|(&tag, &heard)| (tag, heard))
            .collect();
        for (tag, heard) in quiet {
            let dead = match key_revision(&self.nodes, tag).await {
                Ok(Some(revision)) if revision != heard.revision => {
                    self.seen.insert(tag, Heard::now(revision));
                    false
                }
                Ok(Some(revision)) => {
                    let deleted = self
                        .nodes
                        .delete_expect_revision(tag.to_string(), Some(revision))
                        .await;
                    // Refused: renewed or deleted meanwhile; the next check tells.
                    deleted.is_ok()
                }
                Ok(None) => true,
                Err(e) => {
                    tracing::warn!(node = tag, "cannot tell whether a node is alive: {e}");
                    false
                }
            };
            if dead {
                tracing::info!(node = tag, "a node is dead: its lease ran out");
                self.bury(tag);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nats_servers_are_one_url_or_several_comma_separated() {
        assert_eq!(servers("nats://a:4222").unwrap().len(), 1);
        let three = servers("nats://a:4222, nats://b:4222,nats://c:4222,").unwrap();
        let hosts: Vec<&str> = three.iter().map(|s| s.host()).collect();
        assert_eq!(hosts, ["a", "b", "c"]);
        assert!(servers(" , ").is_err(), "no server at all");
        let wrong = servers("nats://a:4222,http://[::1").unwrap_err();
        assert!(wrong.to_string().contains("http://[::1"), "{wrong}");
    }

    /// Nodes joined to `bus`, two on each of its servers: a claim sent to the bucket's
    /// leader is checked in the goroutine of its own connection there, beside the
    /// others', and one sent to another server is checked in the leader's stream loop.
    async fn nodes_on(bus: &punct_testing::NatsCluster, count: usize) -> Vec<Cluster> {
        let urls: Vec<String> = bus.urls().split(',').map(str::to_owned).collect();
        let mut nodes = Vec::new();
        for n in 0..count {
            let url = &urls[n % urls.len()];
            let node = Cluster::join(url, Duration::from_secs(10), urls.len()).await;
            nodes.push(node.expect("a node joins"));
        }
        nodes
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    #[ignore = "needs NATS: .ci/services-tests runs it"]
    async fn nodes_claiming_a_released_actor_at_once_agree_on_one_holder() {
        const ROUNDS: usize = 400;
        let bus = punct_testing::NatsCluster::start(3);
        let nodes = nodes_on(&bus, 6).await;
        let (first, rivals) = nodes.split_first().unwrap();
        for round in 0..ROUNDS {
            // Held and let go, as a node stopping lets go of its rooms: every rival asks
            // for it at the same moment, as their members enter it again.
            let id = format!("actor-{round}");
            first.claim_new("test", &id).await.unwrap();
            first.release("test", &id).await;
            let asked = rivals.iter().map(|node| node.locate("test", &id));
            let places = futures_util::future::join_all(asked).await;
            let places: Vec<Place> = places.into_iter().map(Result::unwrap).collect();
            let holders: Vec<NodeTag> = rivals
                .iter()
                .zip(&places)
                .filter(|&(_, &place)| place == Place::Here)
                .map(|(node, _)| node.tag())
                .collect();
            let [holder] = holders[..] else {
                panic!("round {round}: {} holders: {places:?}", holders.len());
            };
            for place in places.iter().filter(|&&place| place != Place::Here) {
                assert_eq!(*place, Place::There(holder), "round {round}");
            }
            for node in rivals {
                node.release("test", &id).await;
            }
        }
    }

    #[tokio::test]
    #[ignore = "needs NATS: .ci/services-tests runs it"]
    async fn a_node_starting_while_jetstream_has_no_leader_waits_for_one() {
        let mut bus = punct_testing::NatsCluster::start(3);
        // The buckets are made, kept by the three servers.
        let first = nodes_on(&bus, 1).await;
        first[0].claim_new("test", "before").await.unwrap();
        // One server of three left: JetStream has no quorum, so no leader.
        bus.kill(1);
        bus.kill(2);
        let url = bus.urls();
        let joining =
            tokio::spawn(async move { Cluster::join(&url, Duration::from_secs(10), 3).await });
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert!(
            !joining.is_finished(),
            "the node waits, rather than failing"
        );
        bus.restart(1);
        let joined = tokio::time::timeout(Duration::from_secs(40), joining).await;
        let node = joined.expect("joined in time").unwrap();
        let node = node.unwrap_or_else(|e| panic!("{e}: {}", bus.logs()));
        // The bucket of claims may still be electing its own leader: a claim is then
        // refused (the client is told to try again), and taken a moment later.
        let deadline = Instant::now() + Duration::from_secs(20);
        while let Err(e) = node.claim_new("test", "after").await {
            assert!(Instant::now() < deadline, "{e}: {}", bus.logs());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(
            node.holder("test", "after").await.unwrap(),
            Some(node.tag())
        );
    }

    #[tokio::test]
    #[ignore = "needs NATS: .ci/services-tests runs it"]
    async fn a_node_counted_dead_stays_dead_though_its_key_comes_back() {
        let nats = punct_testing::Nats::start();
        // A lease long enough that nothing here runs out on its own.
        let lease = Duration::from_secs(60);
        let (dying, other) = (
            Cluster::join(&nats.url(), lease, 1).await.unwrap(),
            Cluster::join(&nats.url(), lease, 1).await.unwrap(),
        );
        dying.claim_new("test", "its").await.unwrap();
        assert_eq!(
            other.locate("test", "its").await.unwrap(),
            Place::There(dying.tag())
        );
        // Another node deletes the dying node's key as dead, and a renewal that passed
        // the leader's check with the deletion is applied after it: the key is back.
        let key = dying.tag().to_string();
        other.inner.nodes.delete(&key).await.unwrap();
        other
            .inner
            .nodes
            .put(&key, Default::default())
            .await
            .unwrap();
        // The node stops at once, not once its lease runs out.
        let stopped = tokio::time::timeout(Duration::from_secs(10), dying.lost()).await;
        assert!(stopped.is_ok(), "a node whose key was deleted stops");
        assert!(!dying.lease().held());
        // And the others never count it alive again: its actor is taken over.
        let deadline = Instant::now() + Duration::from_secs(10);
        while other.is_alive(dying.tag()) {
            assert!(Instant::now() < deadline, "the other node counts it dead");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(other.locate("test", "its").await.unwrap(), Place::Here);
    }

    #[tokio::test]
    #[ignore = "needs NATS: .ci/services-tests runs it"]
    async fn an_actor_claimed_again_and_again_is_found_past_a_stale_note_of_its_epoch() {
        let nats = punct_testing::Nats::start();
        let lease = Duration::from_secs(60);
        let mut nodes = Vec::new();
        for _ in 0..3 {
            nodes.push(Cluster::join(&nats.url(), lease, 1).await.unwrap());
        }
        nodes[0].claim_new("test", "it").await.unwrap();
        // Held and let go of by each node in turn: one epoch each.
        for round in 1..=6 {
            let (holder, other) = (&nodes[round % 3], &nodes[(round + 1) % 3]);
            nodes[(round + 2) % 3].release("test", "it").await;
            assert_eq!(holder.locate("test", "it").await.unwrap(), Place::Here);
            assert_eq!(
                other.locate("test", "it").await.unwrap(),
                Place::There(holder.tag())
            );
            assert_eq!(
                holder.holder("test", "it").await.unwrap(),
                Some(holder.tag())
            );
        }
        let claims = nodes[0].claims("test").await.unwrap();
        let (epoch, _) = newest_claim(&claims, "it").await.unwrap();
        assert_eq!(epoch, 7, "the first claim and six more");
        // The note of the newest epoch lags (its writer was slow, or its write lost):
        // readers walk on to the newest claim all the same.
        claims.put(newest_key("it"), "2".into()).await.unwrap();
        let holder = nodes[0].tag();
        assert_eq!(
            nodes[1].locate("test", "it").await.unwrap(),
            Place::There(holder)
        );
        assert_eq!(nodes[0].locate("test", "it").await.unwrap(), Place::Here);
        assert_eq!(newest_claim(&claims, "it").await.unwrap().0, 7);
    }
}
