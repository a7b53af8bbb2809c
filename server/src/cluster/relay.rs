//! An actor another node runs, relayed to this node's members under the same
//! [`Handle`] as an actor run here.
//!
//! The relay forwards each request, unchanged, to the owner over NATS
//! (request/reply), and passes the news the owner publishes once on the actor's subject
//! to a local broadcast that this node's members read. It subscribes before it asks
//! anything, and a member's events start before its request is forwarded, so that no
//! event after a member's answer is missed; an event that arrives twice (in what a
//! member got on entering and on the subject) is the member's to skip, and one lost on
//! the way (a gap in its numbers) the member's to notice.
//!
//! The relay closes, and its members enter the actor again wherever it runs then, when
//! the owner's answer does not come, the owner says the actor closed or moved, the owner
//! is dead, or nobody here has been in the actor for a while.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use tokio::sync::{Notify, broadcast, mpsc, watch};
use tracing::Instrument;

use super::handle::{Closed, Handle};
use super::ids::NodeTag;
use super::kind::{Envelope, Kind, Reply};
use super::nats::Cluster;
use super::wire::{self, Asked, Moved, News};

/// How long a relay waits for the owner's answer before it counts the owner as gone.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a relay nobody is in lives on.
const IDLE: Duration = Duration::from_secs(30);

/// Starts relaying actor `id` of kind `K` from the node `owner`, keeping `capacity`
/// events for members that fall behind and queueing `queue` requests: answers its
/// handle and the task to run, once the owner has answered that it runs the actor.
pub(crate) async fn connect<K: Kind>(
    id: &str,
    owner: NodeTag,
    cluster: &Cluster,
    capacity: usize,
    queue: usize,
) -> Result<(Handle<K>, BoxFuture<'static, ()>), Closed> {
    let client = cluster.client().clone();
    let news = client
        .subscribe(wire::actor_subject(K::NAME, id))
        .await
        .map_err(|_| Closed)?;
    let owner_at = Owner {
        client,
        subject: wire::node_subject(owner, K::NAME),
        id: id.to_owned(),
        broken: Arc::new(Notify::new()),
    };
    owner_at.ask::<K::Request, ()>(None).await?;
    let (inbox, requests) = mpsc::channel(queue.max(1));
    let handle = Handle::relayed(id, inbox, owner, cluster.lease());
    let live = cluster.live();
    let life = Life::of(owner, &live.borrow());
    let relay = Relay::<K> {
        owner: owner_at,
        events: broadcast::channel(capacity.max(1)).0,
        life,
        live,
    };
    Ok((handle, Box::pin(relay.run(requests, news))))
}

/// The node that runs the actor, as the relay asks it.
#[derive(Clone)]
struct Owner {
    /// The connection to NATS.
    client: async_nats::Client,
    /// Where the owner takes requests.
    subject: String,
    /// The actor.
    id: String,
    /// Notified when an answer did not come: the relay closes.
    broken: Arc<Notify>,
}

impl Owner {
    /// Asks the owner `request` (with none: whether it runs the actor); `Closed` if it
    /// does not answer in time or says the actor is not there (the relay then closes).
    async fn ask<R, T>(&self, request: Option<R>) -> Result<T, Closed>
    where
        R: serde::Serialize,
        T: DeserializeOwned,
    {
        let answer = self.request(request).await;
        if answer.is_err() {
            self.broken.notify_one();
        }
        answer
    }

    async fn request<R, T>(&self, request: Option<R>) -> Result<T, Closed>
    where
        R: serde::Serialize,
        T: DeserializeOwned,
    {
        let asked = Asked {
            id: self.id.clone(),
            request,
        };
        let payload = serde_json::to_vec(&asked).expect("requests serialise");
        let sent = self.client.request(self.subject.clone(), payload.into());
        let message = tokio::time::timeout(ANSWER_TIMEOUT, sent)
            .await
            .map_err(|_| Closed)?
            .map_err(|_| Closed)?;
        match serde_json::from_slice::<Result<T, Moved>>(&message.payload) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(Moved)) => Err(Closed),
            Err(e) => {
                tracing::error!("a node's answer does not read: {e}");
                Err(Closed)
            }
        }
    }
}

/// What a relay knows of its owner's life. A relay may start before this node has heard
/// of its owner: on a node that joined just now, found alive in the bucket of nodes
/// (`Cluster::locate`). Such an owner is not dead for being missing from the nodes this
/// node knows, only once it has been among them and is no more; one that dies unheard
/// is given up when it does not answer.
#[derive(Clone, Copy, Debug)]
struct Life {
    /// The owner's tag.
    owner: NodeTag,
    /// Whether this node has heard the owner is alive.
    heard: bool,
}

impl Life {
    /// The life of `owner`, as the nodes alive now say.
    fn of(owner: NodeTag, alive: &HashSet<NodeTag>) -> Life {
        Life {
            owner,
            heard: alive.contains(&owner),
        }
    }

    /// Whether the owner died, now that `alive` are the nodes alive.
    fn died(&mut self, alive: &HashSet<NodeTag>) -> bool {
        let is_alive = alive.contains(&self.owner);
        let died = self.heard && !is_alive;
        self.heard |= is_alive;
        died
    }
}

/// The relay's state.
struct Relay<K: Kind> {
    /// Where requests go.
    owner: Owner,
    /// Whether the owner is alive, as this node hears.
    life: Life,
    /// The events for this node's members.
    events: broadcast::Sender<Arc<K::Event>>,
    /// The nodes alive.
    live: watch::Receiver<HashSet<NodeTag>>,
}

impl<K: Kind> Relay<K> {
    async fn run(
        mut self,
        mut requests: mpsc::Receiver<Envelope<K>>,
        mut news: async_nats::Subscriber,
    ) {
        let span = tracing::info_span!(parent: None, "relay", kind = K::NAME, id = %self.owner.id, owner = self.life.owner);
        async move {
            tracing::debug!("relaying");
            let mut idle = tokio::time::interval(IDLE);
            idle.tick().await;
            let mut was_empty = false;
            let broken = Arc::clone(&self.owner.broken);
            loop {
                tokio::select! {
                    biased;
                    envelope = requests.recv() => match envelope {
                        Some(envelope) => self.forward(envelope),
                        None => break,
                    },
                    news = news.next() => match news {
                        Some(message) => if !self.pass_on(&message.payload) {
                            break;
                        },
                        None => break,
                    },
                    () = broken.notified() => {
                        tracing::info!("the owner did not answer: closing the relay");
                        break;
                    }
                    changed = self.live.changed() => {
                        if changed.is_err() || self.life.died(&self.live.borrow()) {
                            tracing::info!("the owner is dead: closing the relay");
                            break;
                        }
                    }
                    _ = idle.tick() => {
                        let empty = self.events.receiver_count() == 0;
                        if empty && was_empty {
                            break;
                        }
                        was_empty = empty;
                    }
                }
            }
            requests.close();
            tracing::debug!("relay closed");
        }
        .instrument(span)
        .await;
    }

    /// Sends the request to the owner as it is; its answer comes back from a task of
    /// its own, so that the relay goes on passing events meanwhile. The asker's events
    /// start now, before the owner answers.
    fn forward(&self, envelope: Envelope<K>) {
        let owner = self.owner.clone();
        let events = self.events.subscribe();
        let Envelope { request, reply } = envelope;
        let request = *request;
        tokio::spawn(async move {
            match reply {
                Some(reply) => {
                    if let Ok(answer) = owner.ask::<K::Request, K::Answer>(Some(request)).await {
                        let _ = reply.send(Reply { answer, events });
                    }
                }
                // Told, not asked: nobody waits, and a failure closes nothing.
                None => {
                    let _ = owner.request::<K::Request, K::Answer>(Some(request)).await;
                }
            }
        });
    }

    /// Passes on what the owner published; false once the relay must close.
    fn pass_on(&self, payload: &[u8]) -> bool {
        match serde_json::from_slice::<News<K::Event>>(payload) {
            Ok(News::Event(event)) => {
                // Nobody here to tell is fine.
                let _ = self.events.send(Arc::new(event));
                true
            }
            Ok(News::Gap) => {
                tracing::info!("the owner lost events: closing the relay");
                false
            }
            Ok(News::Closed) => {
                tracing::info!("the actor closed on its node: closing the relay");
                false
            }
            Err(e) => {
                tracing::error!("news from the owner does not read: {e}");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_not_heard_of_yet_is_dead_only_once_heard_alive_and_gone() {
        let (owner, other) = (7, 8);
        // A node that restarted: its new tag not heard of yet, its old one dead.
        let mut life = Life::of(owner, &HashSet::from([other]));
        assert!(
            !life.died(&HashSet::new()),
            "the old tag's death is not the owner's"
        );
        assert!(!life.died(&HashSet::from([owner])));
        assert!(!life.died(&HashSet::from([owner, other])));
        assert!(life.died(&HashSet::from([other])), "heard alive, then gone");
        let mut heard = Life::of(owner, &HashSet::from([owner]));
        assert!(heard.died(&HashSet::new()));
    }
}
