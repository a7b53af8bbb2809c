//! What a kind of actor tells the placement layer about itself: its request, answer,
//! event and status types, how to load and start one, and how its inbox looks.
//!
//! An actor of a kind is one task that owns one thing (a room; later a tournament's
//! director). Everything it is asked arrives as one [`Kind::Request`] value in an
//! [`Envelope`], whether from this node or, unchanged, from another; everything it
//! tells its members goes out as [`Kind::Event`]s on a broadcast channel.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use punct_protocol::ErrorCode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::ids::NodeTag;

/// A kind of single-owner actor that the cluster places, relays and fails over.
pub(crate) trait Kind: Send + Sync + Sized + 'static {
    /// Names the kind in claims (the bucket `punct-{NAME}s`), subjects and logs.
    const NAME: &'static str;
    /// What the actor can be asked: the one way in, forwarded between nodes as it is.
    type Request: Serialize + DeserializeOwned + Clone + Send + 'static;
    /// What it answers.
    type Answer: Serialize + DeserializeOwned + Send + 'static;
    /// What it tells its members, on its broadcast channel.
    type Event: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// How it looks from outside (in a lobby, in `/metrics`), kept current by the actor.
    type Status: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    /// What an actor starts from.
    type Setup: Send + 'static;
    /// The code a client sees when asked for an id no actor of this kind has.
    const NOT_FOUND: ErrorCode;
    /// How often the actors [`due`](Kind::due) are looked for again while the node runs,
    /// besides at its start and when a node dies: for a kind whose actors fall due with
    /// time (a tournament about to start), none for the others.
    const DUE_EVERY: Option<Duration>;

    /// Reads actor `id` from the store to run it here (a load counts an incarnation,
    /// which fences the writes of any earlier one); `None` if there is no such actor.
    fn load(
        &self,
        id: &str,
    ) -> impl Future<Output = Result<Option<Self::Setup>, Unavailable>> + Send;

    /// The actors that must run whether or not anyone asks for them (a clock to keep, a
    /// start that is due): each is loaded when this node starts and when another dies,
    /// unless a live node holds it.
    fn due(&self) -> impl Future<Output = Result<Vec<String>, Unavailable>> + Send;

    /// The id of the actor `setup` starts.
    fn id(setup: &Self::Setup) -> &str;

    /// Builds the actor of `setup`, serving `inbox` until it closes or the actor ends.
    fn start(&self, setup: Self::Setup, inbox: Inbox<Self>) -> Started<Self>;

    /// The request that tells an actor that every member on node `node` has gone (that
    /// node died), if its actors keep members.
    fn node_died(node: NodeTag) -> Option<Self::Request>;
}

/// An actor could not be read from the store, or not run; the caller may try again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unavailable;

/// An actor, built and ready to run.
pub(crate) struct Started<K: Kind> {
    /// Its task: it runs until the inbox closes or the actor ends by itself.
    pub(crate) task: BoxFuture<'static, ()>,
    /// Its status, kept current.
    pub(crate) status: watch::Receiver<K::Status>,
    /// Every event it publishes, from the first (for other nodes' members).
    pub(crate) events: broadcast::Receiver<Arc<K::Event>>,
}

/// What an actor reads its requests from.
pub(crate) type Inbox<K> = mpsc::Receiver<Envelope<K>>;

/// What an actor answers, and its events from the moment it answered: a member that
/// entered with this request hears everything after what the answer showed it.
pub(crate) struct Reply<K: Kind> {
    /// The answer.
    pub(crate) answer: K::Answer,
    /// The actor's events after the answer.
    pub(crate) events: broadcast::Receiver<Arc<K::Event>>,
}

/// A request, and where its answer goes (nowhere when the sender does not wait).
pub(crate) struct Envelope<K: Kind> {
    /// What is asked. Boxed: an inbox holds room for 32 envelopes from its first moment
    /// (tokio's block), and every actor and relay has one, mostly empty; a request
    /// inline would make each block kilobytes.
    pub(crate) request: Box<K::Request>,
    /// Where the answer goes.
    pub(crate) reply: Option<oneshot::Sender<Reply<K>>>,
}

impl<K: Kind> Envelope<K> {
    /// The request, and where its answer goes.
    pub(crate) fn open(self) -> (K::Request, Asker<K>) {
        (*self.request, Asker(self.reply))
    }
}

/// Where the answer to one request goes, if its sender waits for one.
pub(crate) struct Asker<K: Kind>(Option<oneshot::Sender<Reply<K>>>);

impl<K: Kind> Asker<K> {
    /// Sends `answer`, and the events of `events` from now on, to whoever asked.
    pub(crate) fn answer(self, answer: K::Answer, events: &broadcast::Sender<Arc<K::Event>>) {
        if let Some(reply) = self.0 {
            let _ = reply.send(Reply {
                answer,
                events: events.subscribe(),
            });
        }
    }
}
