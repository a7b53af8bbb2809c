//! What nodes say to each other over NATS, as JSON: a request for an actor, forwarded
//! as its kind's request type with the actor's id; the answer, or that the actor does
//! not run there; and the news the node running an actor publishes on its subject.
//! None of it knows what a kind's requests mean.

use serde::{Deserialize, Serialize};

use super::ids::NodeTag;

/// The subject node `tag` takes requests on for the actors of `kind` it runs.
pub(crate) fn node_subject(tag: NodeTag, kind: &str) -> String {
    format!("punct.node.{tag}.{kind}")
}

/// The subject actor `id` of `kind` publishes its news on, once for every node
/// relaying it (`punct.room.{id}` for a room).
pub(crate) fn actor_subject(kind: &str, id: &str) -> String {
    format!("punct.{kind}.{id}")
}

/// The subject every node answers with the statuses of the actors of `kind` it runs
/// (`punct.status.room` for the lobby).
pub(crate) fn status_subject(kind: &str) -> String {
    format!("punct.status.{kind}")
}

/// The subject news of `topic` is told on to every node, for no actor in particular
/// (`punct.news.endings` for the sessions and accounts that ended).
pub(crate) fn news_subject(topic: &str) -> String {
    format!("punct.news.{topic}")
}

/// A request for actor `id`, as another node forwards it. (No `Debug`: a request may
/// hold a secret, such as a seat token.)
#[derive(Serialize, Deserialize)]
pub(crate) struct Asked<R> {
    /// The actor.
    pub(crate) id: String,
    /// What is asked, exactly as the asker's node got it.
    pub(crate) request: R,
}

/// The answer when the actor does not run on the node asked (any more), or that node
/// may not answer (it lost its lease): the asker looks it up again.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Moved;

/// What the node running an actor publishes on the actor's subject.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum News<E> {
    /// An event for every member.
    Event(E),
    /// The publisher fell behind the actor and lost events: relays start afresh.
    Gap,
    /// The actor closed there.
    Closed,
}
