//! The one placement strategy every caller sees: a single server, where every actor
//! runs here, or a node of a cluster, where an actor runs on the node holding its claim
//! and is relayed to the others. Each difference between the two is one `match` here,
//! so that nothing above branches on whether there is a cluster.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{broadcast, watch};

use super::handle::{Closed, Handle};
use super::ids::{self, ConnId, NodeTag};
use super::kind::Kind;
use super::nats::{Cluster, ClusterError, Place};
use super::relay;
use super::wire::{self, News};
use crate::lease::Lease;

/// How long gathering waits for the other nodes' answers.
const GATHER_WAIT: Duration = Duration::from_millis(300);

/// Answers one request from another node, given its payload, with the answer's.
pub(crate) type Answerer = Arc<dyn Fn(Vec<u8>) -> BoxFuture<'static, Vec<u8>> + Send + Sync>;

/// Where actors run: here alone, or across a cluster.
#[derive(Clone, Debug)]
pub(crate) enum Nodes {
    /// One server: every actor runs here, and the lease is always held.
    Alone,
    /// A node of a cluster.
    Cluster(Cluster),
}

impl Nodes {
    /// A single server without `urls`; with them, a node of the cluster whose NATS
    /// servers are at `urls` (comma-separated), with leases of `lease` and buckets kept
    /// by `replicas` NATS servers.
    pub(crate) async fn join(
        urls: Option<&str>,
        lease: Duration,
        replicas: usize,
    ) -> Result<Nodes, ClusterError> {
        Ok(match urls {
            None => Nodes::Alone,
            Some(urls) => Nodes::Cluster(Cluster::join(urls, lease, replicas).await?),
        })
    }

    /// This node's tag; zero for a single server.
    pub(crate) fn tag(&self) -> NodeTag {
        match self {
            Nodes::Alone => 0,
            Nodes::Cluster(cluster) => cluster.tag(),
        }
    }

    /// The id of this node's first connection: ids carry the node's tag.
    pub(crate) fn first_connection(&self) -> ConnId {
        ids::first_connection(self.tag())
    }

    /// Whether this node may write, and answer from its actors' state.
    pub(crate) fn lease(&self) -> Lease {
        match self {
            Nodes::Alone => Lease::default(),
            Nodes::Cluster(cluster) => cluster.lease(),
        }
    }

    /// Whether a request waits for an actor it could not reach: in a cluster, its node
    /// may be going away, and another takes it over within a few leases; a single
    /// server has nobody to wait for.
    pub(crate) fn waits_for_failover(&self) -> bool {
        matches!(self, Nodes::Cluster(_))
    }

    /// Completes once this node has lost its lease and must stop; never for a single
    /// server.
    pub(crate) async fn lost(&self) {
        match self {
            Nodes::Alone => std::future::pending().await,
            Nodes::Cluster(cluster) => cluster.lost().await,
        }
    }

    /// Lets go of every claim and of this node's place, at shutdown.
    pub(crate) async fn leave(&self) {
        if let Nodes::Cluster(cluster) = self {
            cluster.leave().await;
        }
    }

    /// The nodes alive, as they change (a single server: itself, never changing).
    pub(crate) fn live(&self) -> watch::Receiver<HashSet<NodeTag>> {
        match self {
            Nodes::Alone => watch::channel(HashSet::from([0])).1,
            Nodes::Cluster(cluster) => cluster.live(),
        }
    }

    /// The deaths of nodes from now on.
    pub(crate) fn deaths(&self) -> Deaths {
        let live = self.live();
        let known = live.borrow().clone();
        Deaths { live, known }
    }

    /// Where actor `id` of `kind` runs, claiming it for this node if nobody live holds
    /// it. An id no claim can have names no actor.
    pub(crate) async fn locate(
        &self,
        kind: &'static str,
        id: &str,
    ) -> Result<Option<Place>, ClusterError> {
        match self {
            Nodes::Alone => Ok(Some(Place::Here)),
            Nodes::Cluster(_) if !ids::valid_id(id) => Ok(None),
            Nodes::Cluster(cluster) => cluster.locate(kind, id).await.map(Some),
        }
    }

    /// Claims actor `id` of `kind`, just created here.
    pub(crate) async fn claim_new(&self, kind: &'static str, id: &str) -> Result<(), ClusterError> {
        match self {
            Nodes::Alone => Ok(()),
            Nodes::Cluster(cluster) => cluster.claim_new(kind, id).await,
        }
    }

    /// Lets go of the claim on actor `id` of `kind`, if this node holds it.
    pub(crate) async fn release(&self, kind: &'static str, id: &str) {
        if let Nodes::Cluster(cluster) = self {
            cluster.release(kind, id).await;
        }
    }

    /// The node that holds the claim on actor `id` of `kind`, and whether it is alive;
    /// `None` when nobody holds it (a single server holds nothing it does not run).
    pub(crate) async fn holder(
        &self,
        kind: &'static str,
        id: &str,
    ) -> Result<Option<(NodeTag, bool)>, ClusterError> {
        match self {
            Nodes::Alone => Ok(None),
            Nodes::Cluster(cluster) => Ok(cluster
                .holder(kind, id)
                .await?
                .map(|node| (node, cluster.is_alive(node)))),
        }
    }

    /// Whether another live node holds the claim on actor `id` of `kind` (when unsure:
    /// yes, so that nobody else touches it).
    pub(crate) async fn held_elsewhere(&self, kind: &'static str, id: &str) -> bool {
        match self.holder(kind, id).await {
            Ok(Some((node, alive))) => alive && node != self.tag(),
            Ok(None) => false,
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "cluster");
                true
            }
        }
    }

    /// A relay of actor `id`, which node `owner` runs; with its task to run.
    pub(crate) async fn relay<K: Kind>(
        &self,
        id: &str,
        owner: NodeTag,
        capacity: usize,
        queue: usize,
    ) -> Result<(Handle<K>, BoxFuture<'static, ()>), Closed> {
        match self {
            // A single server has no other node to relay from.
            Nodes::Alone => Err(Closed),
            Nodes::Cluster(cluster) => relay::connect(id, owner, cluster, capacity, queue).await,
        }
    }

    /// Publishes the events of actor `id`, run here, for the members on other nodes,
    /// until it closes; a single server has nobody to publish to.
    pub(crate) fn publish<K: Kind>(
        &self,
        id: &str,
        mut events: broadcast::Receiver<Arc<K::Event>>,
    ) {
        let Nodes::Cluster(cluster) = self else {
            return;
        };
        let client = cluster.client().clone();
        let subject = wire::actor_subject(K::NAME, id);
        tokio::spawn(async move {
            loop {
                let news = match events.recv().await {
                    Ok(event) => to_json(&News::Event(&*event)),
                    Err(broadcast::error::RecvError::Lagged(_)) => to_json(&News::<()>::Gap),
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                let _ = client.publish(subject.clone(), news.into()).await;
            }
            let closed = to_json(&News::<()>::Closed);
            let _ = client.publish(subject, closed.into()).await;
        });
    }

    /// Answers, until NATS closes the subscription, every request of other nodes on
    /// `subject` with `answer`; a single server takes none.
    pub(crate) fn serve(&self, subject: String, answer: Answerer) {
        let Nodes::Cluster(cluster) = self else {
            return;
        };
        let client = cluster.client().clone();
        tokio::spawn(async move {
            let mut requests = match client.subscribe(subject.clone()).await {
                Ok(requests) => requests,
                Err(e) => {
                    tracing::error!(subject, "cannot take other nodes' requests: {e}");
                    return;
                }
            };
            while let Some(request) = requests.next().await {
                let (answer, client) = (Arc::clone(&answer), client.clone());
                tokio::spawn(async move {
                    let json = answer(request.payload.to_vec()).await;
                    if let Some(to) = request.reply {
                        let _ = client.publish(to, json.into()).await;
                    }
                });
            }
        });
    }

    /// Tells every node (this one too, if it listens) `news` of `topic`, without waiting
    /// for anyone; a single server has nobody to tell. NATS delivers it at most once: a
    /// node cut off from NATS at that moment never hears it.
    pub(crate) async fn tell_all(&self, topic: &str, news: Vec<u8>) {
        let Nodes::Cluster(cluster) = self else {
            return;
        };
        let subject = wire::news_subject(topic);
        if let Err(e) = cluster.client().publish(subject, news.into()).await {
            tracing::warn!(topic, "other nodes were not told: {e}");
        }
    }

    /// Hands `hear` the news of `topic` every node tells (this one's too), until NATS
    /// closes the subscription; a single server hears none.
    pub(crate) fn hear_all(&self, topic: &str, hear: impl Fn(Vec<u8>) + Send + Sync + 'static) {
        let hear = Arc::new(hear);
        let answer: Answerer = Arc::new(move |news| {
            hear(news);
            Box::pin(async { Vec::new() })
        });
        self.serve(wire::news_subject(topic), answer);
    }

    /// What every node (this one too) answers on `subject` within a moment; nothing on
    /// a single server.
    pub(crate) async fn gather<T: DeserializeOwned>(&self, subject: String) -> Vec<T> {
        let Nodes::Cluster(cluster) = self else {
            return Vec::new();
        };
        let client = cluster.client();
        let inbox = client.new_inbox();
        let Ok(mut answers) = client.subscribe(inbox.clone()).await else {
            return Vec::new();
        };
        let nodes = cluster.live().borrow().len();
        let mut gathered = Vec::new();
        if client
            .publish_with_reply(subject, inbox, Default::default())
            .await
            .is_err()
        {
            return gathered;
        }
        let _ = tokio::time::timeout(GATHER_WAIT, async {
            for _ in 0..nodes {
                let Some(answer) = answers.next().await else {
                    return;
                };
                if let Ok(theirs) = serde_json::from_slice::<T>(&answer.payload) {
                    gathered.push(theirs);
                }
            }
        })
        .await;
        gathered
    }
}

/// `value` as JSON.
pub(crate) fn to_json(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).expect("what nodes send each other serialises")
}

/// The nodes that die, as the live set changes (a single server's never does).
pub(crate) struct Deaths {
    /// The live set.
    live: watch::Receiver<HashSet<NodeTag>>,
    /// The nodes alive when last looked.
    known: HashSet<NodeTag>,
}

impl Deaths {
    /// Waits for nodes to die; answers them, or `None` once the live set is no longer
    /// followed (at once on a single server).
    pub(crate) async fn next(&mut self) -> Option<Vec<NodeTag>> {
        while self.live.changed().await.is_ok() {
            let now = self.live.borrow_and_update().clone();
            let died: Vec<NodeTag> = self.known.difference(&now).copied().collect();
            self.known = now;
            if !died.is_empty() {
                return Some(died);
            }
        }
        None
    }
}
