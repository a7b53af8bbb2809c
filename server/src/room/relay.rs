//! A room another node of the cluster runs, relayed to this node's members: the same
//! [`RoomHandle`] as a room run here, so connections cannot tell the two apart.
//!
//! The relay's task forwards each command to the owner over NATS (request/reply), and
//! passes the news the owner publishes once on the room's subject to a local broadcast
//! that this node's members read. It subscribes before it asks anything, so that no
//! event after a member's snapshot is missed; an event that arrives twice (in a
//! member's snapshot or missed events and on the subject) is skipped by the connection,
//! and one lost on the way (a gap in the numbers) makes it ask for a fresh snapshot.
//!
//! The relay closes, and its members enter the room again wherever it runs then, when
//! the owner's answer does not come, the owner says the room closed or moved, the owner
//! is dead, or nobody here has been in the room for a while.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use punct_protocol::{ErrorCode, RoomSummary, SeatGranted};
use serde::de::DeserializeOwned;
use tokio::sync::{Notify, broadcast, mpsc, oneshot, watch};
use tracing::Instrument;

use super::{
    COMMAND_QUEUE, Command, Event, Joined, Refusal, Resynced, RoomClosed, RoomHandle, Start,
};
use crate::cluster::wire::{self, Moved, News, Op, Request};
use crate::cluster::{Cluster, NodeTag};

/// How long a relay waits for the owner's answer before it counts the owner as gone.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a relay nobody is in lives on.
const IDLE: Duration = Duration::from_secs(30);

/// Starts relaying room `id` from the node `owner`: answers its handle and the task to
/// run, once the owner has answered that it runs the room.
pub(crate) async fn connect(
    id: &str,
    owner: NodeTag,
    cluster: &Cluster,
    capacity: usize,
) -> Result<(RoomHandle, impl Future<Output = ()> + Send + 'static), RoomClosed> {
    let client = cluster.client().clone();
    let news = client
        .subscribe(wire::room_subject(id))
        .await
        .map_err(|_| RoomClosed)?;
    let owner_at = Owner {
        client,
        subject: wire::node_subject(owner),
        room: id.to_owned(),
        broken: Arc::new(Notify::new()),
    };
    let summary: RoomSummary = owner_at.ask(Op::Summary).await?;
    let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
    let (_, summary) = watch::channel(summary);
    let handle = RoomHandle {
        id: Arc::from(id),
        commands,
        summary,
        relayed_from: Some(owner),
    };
    let relay = Relay {
        owner: owner_at,
        events: broadcast::channel(capacity.max(1)).0,
        tag: owner,
        live: cluster.live(),
    };
    Ok((handle, relay.run(inbox, news)))
}

/// The node that runs the room, as the relay asks it.
#[derive(Clone)]
struct Owner {
    /// The connection to NATS.
    client: async_nats::Client,
    /// Where the owner takes requests.
    subject: String,
    /// The room.
    room: String,
    /// Notified when an answer did not come: the relay closes.
    broken: Arc<Notify>,
}

impl Owner {
    /// Asks the owner `op`; `RoomClosed` if it does not answer in time or says the room
    /// is not there (the relay then closes).
    async fn ask<T: DeserializeOwned>(&self, op: Op) -> Result<T, RoomClosed> {
        let answer = self.request(op).await;
        if answer.is_err() {
            self.broken.notify_one();
        }
        answer
    }

    async fn request<T: DeserializeOwned>(&self, op: Op) -> Result<T, RoomClosed> {
        let request = Request {
            room: self.room.clone(),
            op,
        };
        let payload = serde_json::to_vec(&request).expect("requests serialise");
        let sent = self.client.request(self.subject.clone(), payload.into());
        let message = tokio::time::timeout(ANSWER_TIMEOUT, sent)
            .await
            .map_err(|_| RoomClosed)?
            .map_err(|_| RoomClosed)?;
        match serde_json::from_slice::<Result<T, Moved>>(&message.payload) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(Moved)) => Err(RoomClosed),
            Err(e) => {
                tracing::error!("a node's answer does not read: {e}");
                Err(RoomClosed)
            }
        }
    }

    /// Asks `op` from a task of its own, and sends the answer on `reply` (or drops it,
    /// the room closed, if none came).
    fn forward<T, U>(
        &self,
        op: Op,
        reply: oneshot::Sender<U>,
        convert: impl FnOnce(T) -> U + Send + 'static,
    ) where
        T: DeserializeOwned + Send + 'static,
        U: Send + 'static,
    {
        let owner = self.clone();
        tokio::spawn(async move {
            if let Ok(answer) = owner.ask::<T>(op).await {
                let _ = reply.send(convert(answer));
            }
        });
    }
}

/// The relay's state.
struct Relay {
    /// Where requests go.
    owner: Owner,
    /// The owner's tag.
    tag: NodeTag,
    /// The events for this node's members.
    events: broadcast::Sender<Arc<Event>>,
    /// The nodes alive.
    live: watch::Receiver<std::collections::HashSet<NodeTag>>,
}

impl Relay {
    fn run(
        mut self,
        mut inbox: mpsc::Receiver<Command>,
        mut news: async_nats::Subscriber,
    ) -> impl Future<Output = ()> + Send + 'static {
        let span =
            tracing::info_span!(parent: None, "relay", room = %self.owner.room, owner = self.tag);
        async move {
            tracing::debug!("relaying");
            let mut idle = tokio::time::interval(IDLE);
            idle.tick().await;
            let mut was_empty = false;
            let broken = Arc::clone(&self.owner.broken);
            loop {
                tokio::select! {
                    biased;
                    command = inbox.recv() => match command {
                        Some(command) => self.forward(command),
                        None => break,
                    },
                    news = news.next() => match news {
                        Some(message) => if !self.pass_on(&message.payload) {
                            break;
                        },
                        None => break,
                    },
                    () = broken.notified() => {
                        tracing::info!("the room's node did not answer: closing the relay");
                        break;
                    }
                    changed = self.live.changed() => {
                        if changed.is_err() || !self.live.borrow().contains(&self.tag) {
                            tracing::info!("the room's node is dead: closing the relay");
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
            inbox.close();
            tracing::debug!("relay closed");
        }
        .instrument(span)
    }

    /// Sends `command` to the owner; its answer comes back from a task of its own, so
    /// that the relay goes on passing events meanwhile.
    fn forward(&mut self, command: Command) {
        let owner = &self.owner;
        match command {
            Command::TakeSeat { player, reply } => {
                owner.forward(
                    Op::TakeSeat { player },
                    reply,
                    |granted: Result<SeatGranted, ErrorCode>| granted,
                );
            }
            Command::Cancel { key, reply } => {
                owner.forward(Op::Cancel { key }, reply, |done: Result<(), ErrorCode>| {
                    done
                });
            }
            Command::Join {
                conn,
                key,
                since,
                lists,
                reply,
            } => {
                let events = self.events.subscribe();
                let op = Op::Join {
                    conn,
                    key,
                    since,
                    lists,
                };
                owner.forward(op, reply, |entered: Result<wire::Entered, ErrorCode>| {
                    entered.map(|entered| joined(entered, events))
                });
            }
            Command::Watch { conn, since, reply } => {
                let events = self.events.subscribe();
                owner.forward(
                    Op::Watch { conn, since },
                    reply,
                    |entered: wire::Entered| joined(entered, events),
                );
            }
            Command::Resync { conn, reply } => {
                let events = self.events.subscribe();
                owner.forward(
                    Op::Resync { conn },
                    reply,
                    |fresh: Result<wire::Entered, ErrorCode>| {
                        fresh.and_then(|fresh| match fresh.start {
                            wire::Start::Snapshot(snapshot) => Ok(Resynced {
                                role: fresh.role,
                                snapshot,
                                events,
                            }),
                            wire::Start::Resumed { .. } => Err(ErrorCode::StorageFailed),
                        })
                    },
                );
            }
            Command::Act {
                conn,
                action,
                retry,
                reply,
            } => {
                let op = Op::Act {
                    conn,
                    request: action.request(0),
                    retry,
                };
                owner.forward(op, reply, |done: Result<punct_protocol::Seq, Refusal>| done);
            }
            Command::Talk { conn, talk, reply } => {
                let op = Op::Talk { conn, talk };
                owner.forward(op, reply, |done: Result<punct_protocol::Seq, Refusal>| done);
            }
            Command::Leave { conn } => {
                let owner = owner.clone();
                tokio::spawn(async move { owner.request::<()>(Op::Leave { conn }).await });
            }
            Command::Record { reply } => {
                owner.forward(Op::Record, reply, |record: punct_protocol::Record| record);
            }
            Command::Summary { reply } => {
                owner.forward(Op::Summary, reply, |summary: RoomSummary| summary);
            }
        }
    }

    /// Passes on what the owner published; false once the relay must close.
    fn pass_on(&self, payload: &[u8]) -> bool {
        match serde_json::from_slice::<News>(payload) {
            Ok(News::Event(event)) => {
                // Nobody here to tell is fine.
                let _ = self.events.send(Arc::new(Event::from_wire(event)));
                true
            }
            Ok(News::Gap) => {
                tracing::info!("the room's node lost events: closing the relay");
                false
            }
            Ok(News::Closed) => {
                tracing::info!("the room closed on its node: closing the relay");
                false
            }
            Err(e) => {
                tracing::error!("news from the room's node does not read: {e}");
                false
            }
        }
    }
}

/// What a member gets on entering, from what the owner sent and the relay's events.
fn joined(entered: wire::Entered, events: broadcast::Receiver<Arc<Event>>) -> Joined {
    let start = match entered.start {
        wire::Start::Snapshot(snapshot) => Start::Snapshot(snapshot),
        wire::Start::Resumed {
            since,
            missed,
            your_turn,
            players,
            spectators,
            chat,
        } => Start::Resumed {
            chat,
            since,
            missed: missed
                .into_iter()
                .map(|event| Arc::new(Event::from_wire(event)))
                .collect(),
            your_turn: your_turn.map(Into::into),
            players,
            spectators,
        },
    };
    Joined {
        role: entered.role,
        start,
        events,
    }
}

impl Joined {
    /// What the owner sends a member on another node (its events go on the room's
    /// subject).
    pub(crate) fn to_wire(&self) -> wire::Entered {
        let start = match &self.start {
            Start::Snapshot(snapshot) => wire::Start::Snapshot(snapshot.clone()),
            Start::Resumed {
                since,
                missed,
                your_turn,
                players,
                spectators,
                chat,
            } => wire::Start::Resumed {
                chat: chat.clone(),
                since: *since,
                missed: missed.iter().map(|event| event.to_wire()).collect(),
                your_turn: your_turn.as_ref().map(|json| json.as_str().to_owned()),
                players: players.clone(),
                spectators: *spectators,
            },
        };
        wire::Entered {
            role: self.role,
            start,
        }
    }
}

impl Resynced {
    /// What the owner sends a member on another node that fell behind.
    pub(crate) fn to_wire(&self) -> wire::Entered {
        wire::Entered {
            role: self.role,
            start: wire::Start::Snapshot(self.snapshot.clone()),
        }
    }
}

impl Event {
    /// The event as another node gets it.
    pub(crate) fn to_wire(&self) -> wire::Event {
        wire::Event {
            seq: self.seq,
            json: self.json.as_str().to_owned(),
            your_turn: self
                .lock()
                .as_ref()
                .map(|(color, json)| (*color, json.as_str().to_owned())),
            replaced: self.replaced,
            hearers: self.hearers,
        }
    }

    fn from_wire(event: wire::Event) -> Event {
        Event {
            seq: event.seq,
            json: event.json.into(),
            your_turn: Mutex::new(event.your_turn.map(|(color, json)| (color, json.into()))),
            replaced: event.replaced,
            hearers: event.hearers,
        }
    }
}
