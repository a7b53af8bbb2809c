//! The owner's side of relaying: answering other nodes' requests for the rooms this
//! node runs, publishing each room's news once on its subject, and letting go of the
//! members of nodes that died.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use punct_protocol::RoomSummary;
use serde::Serialize;
use tokio::sync::broadcast;

use super::wire::{self, Moved, News, Op, Request};
use super::{Cluster, NodeTag};
use crate::registry::Registry;
use crate::room::{ConnId, Event, RoomHandle};

/// How long the lobby waits for the other nodes' rooms.
const LOBBY_WAIT: Duration = Duration::from_millis(300);

/// The members of rooms run here whose connections are on other nodes, so that they
/// can be let go of if their node dies.
#[derive(Clone, Debug, Default)]
pub(crate) struct RemoteMembers {
    /// The room of each.
    rooms: Arc<Mutex<HashMap<ConnId, RoomHandle>>>,
}

impl RemoteMembers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, RoomHandle>> {
        self.rooms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets the members on node `tag` leave their rooms.
    fn node_died(&self, tag: NodeTag) {
        let mut rooms = self.lock();
        rooms.retain(|&conn, room| {
            let theirs = node_of(conn) == tag;
            if theirs {
                room.leave(conn);
            }
            !theirs
        });
    }
}

/// The node a connection is on: the high bits of its id.
fn node_of(conn: ConnId) -> NodeTag {
    u32::try_from(conn >> 40).unwrap_or(0)
}

/// The first id of this node's connections.
pub(crate) fn first_connection(tag: NodeTag) -> ConnId {
    (u64::from(tag) << 40) + 1
}

/// Answers the requests for rooms run here and the lobby's question, and follows the
/// nodes that die, until NATS closes the subscriptions.
pub(crate) async fn serve(registry: Registry, cluster: Cluster) -> Result<(), super::ClusterError> {
    let client = cluster.client().clone();
    let mut requests = client
        .subscribe(wire::node_subject(cluster.tag()))
        .await
        .map_err(super::nats)?;
    let mut lobby = client
        .subscribe(wire::LOBBY_SUBJECT)
        .await
        .map_err(super::nats)?;
    let members = RemoteMembers::default();
    tokio::spawn(follow_deaths(
        registry.clone(),
        cluster.clone(),
        members.clone(),
    ));
    loop {
        tokio::select! {
            request = requests.next() => {
                let Some(request) = request else { break };
                let (registry, members, client) = (registry.clone(), members.clone(), client.clone());
                tokio::spawn(async move {
                    let answer = answer(&registry, &members, &request.payload).await;
                    if let Some(to) = request.reply {
                        let _ = client.publish(to, answer.into()).await;
                    }
                });
            }
            asked = lobby.next() => {
                let Some(asked) = asked else { break };
                if let Some(to) = asked.reply {
                    let rooms = registry.running_summaries();
                    let json = serde_json::to_vec(&rooms).expect("summaries serialise");
                    let _ = client.publish(to, json.into()).await;
                }
            }
        }
    }
    Ok(())
}

/// The answer to one request, as JSON.
async fn answer(registry: &Registry, members: &RemoteMembers, payload: &[u8]) -> Vec<u8> {
    let Ok(Request { room, op }) = serde_json::from_slice::<Request>(payload) else {
        tracing::error!("a node's request does not read");
        return json(&Err::<(), _>(Moved));
    };
    let Some(handle) = registry.owned(&room).await else {
        return json(&Err::<(), _>(Moved));
    };
    match op {
        Op::Summary => json(&Ok::<_, Moved>(handle.summary())),
        Op::TakeSeat { player } => reply(handle.take_seat(player).await),
        Op::Cancel { key } => reply(handle.cancel(key).await),
        Op::Join {
            conn,
            key,
            since,
            lists,
        } => {
            let joined = handle.join(conn, key, since, lists).await;
            if let Ok(Ok(_)) = &joined {
                members.lock().insert(conn, handle.clone());
            }
            reply(joined.map(|joined| joined.map(|joined| joined.to_wire())))
        }
        Op::Watch { conn, since } => {
            let joined = handle.watch(conn, since).await;
            if joined.is_ok() {
                members.lock().insert(conn, handle.clone());
            }
            reply(joined.map(|joined| joined.to_wire()))
        }
        Op::Resync { conn } => {
            let fresh = handle.resync(conn).await;
            reply(fresh.map(|fresh| fresh.map(|fresh| fresh.to_wire())))
        }
        Op::Act {
            conn,
            request,
            retry,
        } => match request.action() {
            Some(action) => reply(handle.act(conn, action, retry).await),
            None => json(&Err::<(), _>(Moved)),
        },
        Op::Talk { conn, talk } => reply(handle.talk(conn, talk).await),
        Op::Leave { conn } => {
            members.lock().remove(&conn);
            handle.leave(conn);
            json(&Ok::<_, Moved>(()))
        }
        Op::Record => reply(handle.record().await),
    }
}

/// An answer from the room, or `Moved` if it closed meanwhile.
fn reply<T: Serialize>(answer: Result<T, crate::room::RoomClosed>) -> Vec<u8> {
    json(&answer.map_err(|_| Moved))
}

fn json(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).expect("answers serialise")
}

/// Publishes room `room`'s events on its subject until it closes. (Summaries are not
/// published: a relay asks for one when it is wanted, which is rarely.)
pub(crate) async fn publish(
    client: async_nats::Client,
    room: RoomHandle,
    mut events: broadcast::Receiver<Arc<Event>>,
) {
    let subject = wire::room_subject(room.id());
    loop {
        let news = match events.recv().await {
            Ok(event) => News::Event(event.to_wire()),
            Err(broadcast::error::RecvError::Lagged(_)) => News::Gap,
            Err(broadcast::error::RecvError::Closed) => break,
        };
        let _ = client.publish(subject.clone(), json(&news).into()).await;
    }
    let _ = client.publish(subject, json(&News::Closed).into()).await;
}

/// The rooms the other nodes run, as their lobbies show them; what answers within a
/// moment.
pub(crate) async fn other_rooms(cluster: &Cluster) -> Vec<RoomSummary> {
    let client = cluster.client();
    let inbox = client.new_inbox();
    let Ok(mut answers) = client.subscribe(inbox.clone()).await else {
        return Vec::new();
    };
    let others = cluster.live().borrow().len().saturating_sub(1);
    let asked = client
        .publish_with_reply(wire::LOBBY_SUBJECT, inbox, Default::default())
        .await;
    let mut rooms = Vec::new();
    if asked.is_err() {
        return rooms;
    }
    let _ = tokio::time::timeout(LOBBY_WAIT, async {
        // This node answers too, with rooms the caller has already.
        for _ in 0..=others {
            let Some(answer) = answers.next().await else {
                return;
            };
            if let Ok(theirs) = serde_json::from_slice::<Vec<RoomSummary>>(&answer.payload) {
                rooms.extend(theirs);
            }
        }
    })
    .await;
    rooms
}

/// When nodes die: lets their members go from the rooms run here, and takes over the
/// rooms with a timer (a clock or the computer) they ran, which nobody would otherwise
/// enter.
async fn follow_deaths(registry: Registry, cluster: Cluster, members: RemoteMembers) {
    let mut live = cluster.live();
    let mut known: HashSet<NodeTag> = live.borrow().clone();
    while live.changed().await.is_ok() {
        let now = live.borrow_and_update().clone();
        let dead: Vec<NodeTag> = known.difference(&now).copied().collect();
        known = now;
        if dead.is_empty() {
            continue;
        }
        for &tag in &dead {
            tracing::warn!(node = tag, "a node of the cluster died");
            members.node_died(tag);
        }
        match registry.restore().await {
            Ok(0) => {}
            Ok(rooms) => tracing::info!(rooms, "rooms with a timer taken over"),
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "taking over the rooms of a dead node failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_ids_carry_their_node() {
        let first = first_connection(0xab_cdef);
        assert_eq!(node_of(first), 0xab_cdef);
        assert_eq!(node_of(first + 1_000_000), 0xab_cdef);
        assert_eq!(node_of(1), 0, "a single server's connections have no tag");
    }

    #[test]
    fn only_ids_a_claim_can_have_are_rooms() {
        assert!(super::super::valid_room_id(
            "0190a8f2-7c1e-7b3a-9f00-1234567890ab"
        ));
        assert!(super::super::valid_room_id("0123456789abcdef0123"));
        assert!(!super::super::valid_room_id(""));
        assert!(!super::super::valid_room_id("a.b"));
        assert!(!super::super::valid_room_id("a*"));
        assert!(!super::super::valid_room_id(&"a".repeat(65)));
    }
}
