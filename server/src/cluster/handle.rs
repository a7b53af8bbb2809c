//! A cheap handle on a running actor, run here or relayed from the node that runs it:
//! callers cannot tell the two apart.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};

use super::ids::NodeTag;
use super::kind::{Envelope, Kind, Reply};
use crate::lease::Lease;

/// The actor's side of the channel is gone: it has closed (or, run here, this node lost
/// its lease and may not answer from its state). The caller enters it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Closed;

/// A cheap handle on a running actor.
pub(crate) struct Handle<K: Kind> {
    /// The actor's id.
    id: Arc<str>,
    /// Where requests go: the actor's inbox, or its relay's.
    inbox: mpsc::Sender<Envelope<K>>,
    /// The actor's status, for an actor run here; a relay has none.
    status: Option<watch::Receiver<K::Status>>,
    /// For an actor another node runs: that node.
    relayed_from: Option<NodeTag>,
    /// This node's lease: an actor run here answers only while it is held.
    lease: Lease,
}

impl<K: Kind> Clone for Handle<K> {
    fn clone(&self) -> Handle<K> {
        Handle {
            id: Arc::clone(&self.id),
            inbox: self.inbox.clone(),
            status: self.status.clone(),
            relayed_from: self.relayed_from,
            lease: self.lease.clone(),
        }
    }
}

impl<K: Kind> std::fmt::Debug for Handle<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("kind", &K::NAME)
            .field("id", &self.id)
            .field("relayed_from", &self.relayed_from)
            .finish_non_exhaustive()
    }
}

impl<K: Kind> Handle<K> {
    /// The handle of actor `id` run here, on `inbox`, whose status is `status`.
    pub(crate) fn local(
        id: &str,
        inbox: mpsc::Sender<Envelope<K>>,
        status: watch::Receiver<K::Status>,
        lease: Lease,
    ) -> Handle<K> {
        Handle {
            id: Arc::from(id),
            inbox,
            status: Some(status),
            relayed_from: None,
            lease,
        }
    }

    /// The handle of actor `id`, which node `owner` runs, relayed on `inbox`.
    pub(crate) fn relayed(
        id: &str,
        inbox: mpsc::Sender<Envelope<K>>,
        owner: NodeTag,
        lease: Lease,
    ) -> Handle<K> {
        Handle {
            id: Arc::from(id),
            inbox,
            status: None,
            relayed_from: Some(owner),
            lease,
        }
    }

    /// The actor's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The node that runs the actor, when this handle relays it from there.
    pub(crate) fn relayed_from(&self) -> Option<NodeTag> {
        self.relayed_from
    }

    /// The actor's status, for an actor run here.
    pub(crate) fn status(&self) -> Option<K::Status> {
        self.status.as_ref().map(|status| status.borrow().clone())
    }

    /// Whether the actor has closed: the handle is stale.
    pub(crate) fn is_closed(&self) -> bool {
        self.inbox.is_closed()
    }

    /// Asks the actor `request`; its answer, and its events after the answer.
    ///
    /// An answer of an actor run here counts only if this node still holds its lease
    /// once it has come: a node paused or cut off past its lease may have been taken
    /// over meanwhile, and must not answer from the state it had before. A relayed
    /// answer comes from a node that checked its own.
    pub(crate) async fn ask(&self, request: K::Request) -> Result<Reply<K>, Closed> {
        if !self.holds_lease() {
            return Err(Closed);
        }
        let (reply, answer) = oneshot::channel();
        let envelope = Envelope {
            request: Box::new(request),
            reply: Some(reply),
        };
        self.inbox.send(envelope).await.map_err(|_| Closed)?;
        let reply = answer.await.map_err(|_| Closed)?;
        if self.holds_lease() {
            Ok(reply)
        } else {
            Err(Closed)
        }
    }

    /// Tells the actor `request`, wanting no answer. Never waits: a full inbox means the
    /// actor is busy, and the request is then sent from a task of its own.
    pub(crate) fn tell(&self, request: K::Request) {
        let envelope = Envelope {
            request: Box::new(request),
            reply: None,
        };
        if let Err(mpsc::error::TrySendError::Full(envelope)) = self.inbox.try_send(envelope) {
            let inbox = self.inbox.clone();
            tokio::spawn(async move { inbox.send(envelope).await });
        }
    }

    /// Whether this handle may answer now: a relay always may (the owner checks), an
    /// actor run here while the lease is held.
    fn holds_lease(&self) -> bool {
        self.relayed_from.is_some() || self.lease.held()
    }
}
