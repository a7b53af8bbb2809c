//! A connection's place in a room: entering it (as a player or a spectator, or again
//! after the room moved), passing on its events in order, and a fresh snapshot after
//! falling behind.

use std::sync::Arc;

use axum::extract::ws::Message;
use punct_protocol::{ErrorCode, RequestId, Role, Seq, ServerMessage};
use tokio::sync::broadcast;

use super::end::{End, shutting_down};
use super::state::{Connection, Entry, Membership};
use crate::cluster::Closed;
use crate::errors;
use crate::errors::Refused;
use crate::room::{Entered, Event, Mismatch, Request, Start};

impl Connection {
    /// Enters room `room` as `entry` says, coming back after event `since` if given, and
    /// sends where the connection's view starts. `id` is the client's request: without
    /// one (the room moved under the connection) a snapshot goes unasked, and missed
    /// events simply follow.
    pub(super) async fn enter(
        &mut self,
        id: Option<RequestId>,
        room: &str,
        entry: Entry,
        since: Option<Seq>,
    ) -> Result<(), End> {
        let (conn, lists) = (self.id, self.legal_turns);
        // Loaded on every entry, so that a block made or lifted since counts once the
        // member comes back; the room keeps it only while the member is in.
        let blocks = match &self.account {
            Some(account) => match self.state.accounts.blocks(account).await {
                Ok(blocks) => blocks.into_iter().map(|block| block.account.id).collect(),
                Err(Refused { code, .. }) => return self.not_entered(id, code),
            },
            None => Vec::new(),
        };
        let request = match &entry {
            Entry::Seat { key } => Request::Join {
                conn,
                key: key.clone(),
                since,
                lists,
                blocks,
            },
            Entry::Watch => Request::Watch {
                conn,
                since,
                blocks,
            },
        };
        let (handle, joined, events) = match self.state.rooms.ask(room, &request).await {
            Ok((handle, reply)) => match reply.answer.entered() {
                Ok(Ok(joined)) => (handle, joined, reply.events),
                Ok(Err(code)) => return self.not_entered(id, code),
                Err(Mismatch) => return self.not_entered(id, ErrorCode::StorageFailed),
            },
            Err(code) => return self.not_entered(id, code),
        };
        tracing::Span::current().record("room", handle.id());
        let role = joined.role;
        let last_seq = match &joined.start {
            Start::Snapshot(snapshot) => snapshot.seq,
            Start::Resumed { missed, since, .. } => {
                missed.iter().rev().find_map(|e| e.seq).unwrap_or(*since)
            }
        };
        self.room = Some(Membership {
            handle,
            entry,
            role,
            events,
            last_seq,
        });
        match joined.start {
            Start::Snapshot(snapshot) => {
                tracing::info!(?role, "entered room");
                self.send(&ServerMessage::Snapshot {
                    id,
                    you: role,
                    room: *snapshot,
                })
            }
            Start::Resumed {
                since,
                missed,
                your_turn,
                players,
                spectators,
                chat,
            } => {
                tracing::info!(?role, since, missed = missed.len(), "came back to the room");
                if let Some(id) = id {
                    self.send(&ServerMessage::Resumed {
                        id,
                        you: role,
                        since,
                        players: *players,
                        spectators,
                        chat,
                    })?;
                }
                missed
                    .iter()
                    .try_for_each(|event| self.forward(event, role))?;
                your_turn.map_or(Ok(()), |json| self.push(Message::Text(json)))
            }
        }
    }

    /// Answers request `id` (none: the connection was entering again after its room
    /// moved) that the room was not entered, for `code`. A node that is stopping (it
    /// lost its lease) says goodbye at once: the client comes back on another. A room
    /// gone from the database was cancelled; any other refusal of a member coming back
    /// leaves a room that lives on, which the client is told to try again.
    fn not_entered(&self, id: Option<RequestId>, code: ErrorCode) -> Result<(), End> {
        match (code, id) {
            (ErrorCode::ShuttingDown, _) => {
                let _ = self.send(&shutting_down(self.lang));
                Err(End::Shutdown)
            }
            (_, Some(id)) => self.error(Some(id), code, errors::message(code, self.lang)),
            (ErrorCode::NoSuchRoom, None) => Err(End::RoomClosed),
            (_, None) => Err(End::RoomUnreachable),
        }
    }

    /// The room closed under this connection (it moved to another node, or was fenced):
    /// enters it again where it is now, resuming after the last event passed on.
    pub(super) async fn reenter(&mut self) -> Result<(), End> {
        let Some(membership) = self.room.take() else {
            return Ok(());
        };
        tracing::info!("the room moved: entering it again");
        let room = membership.handle.id().to_owned();
        self.enter(None, &room, membership.entry, Some(membership.last_seq))
            .await
    }

    /// Queues a room event, and the legal turns that come with it if they are this
    /// connection's to know.
    fn forward(&self, event: &Event, role: Role) -> Result<(), End> {
        self.push(Message::Text(event.json.clone()))?;
        match event.your_turn_for(role.color()) {
            Some(json) => self.push(Message::Text(json)),
            None => Ok(()),
        }
    }

    /// Passes on what the room tells, unless it is not this member's to hear; enters
    /// again when the room closed under it, and starts afresh after missing events.
    pub(super) async fn on_room(
        &mut self,
        news: Result<Arc<Event>, broadcast::error::RecvError>,
    ) -> Result<(), End> {
        let Some(membership) = &mut self.room else {
            return Ok(());
        };
        match news {
            Ok(event) => match event.replaced {
                Some(conn) if conn == self.id => {
                    let _ = self.push(Message::Text(event.json.clone()));
                    Err(End::Replaced)
                }
                Some(_) => Ok(()),
                // A line of a chat this member does not hear.
                None if !event.hearers.hear(self.id, membership.role) => Ok(()),
                None => match event.seq {
                    // Passed on already: a room relayed from another node may deliver an
                    // event both in what the member got on entering and after it.
                    Some(seq) if seq <= membership.last_seq => Ok(()),
                    // An event was lost on the way from another node: start afresh.
                    Some(seq) if !follows(membership.last_seq, seq) => self.resync(1).await,
                    seq => {
                        if let Some(seq) = seq {
                            membership.last_seq = seq;
                        }
                        let role = membership.role;
                        self.forward(&event, role)
                    }
                },
            },
            Err(broadcast::error::RecvError::Lagged(missed)) => self.resync(missed).await,
            Err(broadcast::error::RecvError::Closed) => self.reenter().await,
        }
    }

    /// A fresh snapshot, after the connection missed `missed` events.
    async fn resync(&mut self, missed: u64) -> Result<(), End> {
        let Some(membership) = &mut self.room else {
            return Ok(());
        };
        tracing::info!(missed, "fell behind the room: resyncing");
        self.state.services.metrics.lagged();
        let resynced = membership
            .handle
            .ask(Request::Resync { conn: self.id })
            .await;
        let resynced = resynced.map(|reply| (reply.answer.entered(), reply.events));
        match resynced {
            Ok((
                Ok(Ok(Entered {
                    role,
                    start: Start::Snapshot(snapshot),
                })),
                events,
            )) => {
                membership.events = events;
                membership.last_seq = snapshot.seq;
                self.send(&ServerMessage::Snapshot {
                    id: None,
                    you: role,
                    room: *snapshot,
                })
            }
            Ok((Ok(Err(_)), _)) => {
                let _ = self.send(&ServerMessage::Bye {
                    code: ErrorCode::SeatTakenOver,
                    message: errors::message(ErrorCode::SeatTakenOver, self.lang).into(),
                });
                Err(End::Replaced)
            }
            // A resync always answers a snapshot; anything else is a bug (logged), and
            // the member enters again.
            Ok(_) | Err(Closed) => self.reenter().await,
        }
    }
}

/// Whether event `seq` comes right after event `last`: the next of the same
/// incarnation of the room (the high half), or the first of a later one (a relay may
/// pass on the events of the node that took the room over before it closes).
pub(super) fn follows(last: Seq, seq: Seq) -> bool {
    seq == last + 1 || (seq >> 32 > last >> 32 && seq & u64::from(u32::MAX) == 1)
}

/// What the room has for this connection next; never, outside a room.
pub(super) async fn from_room(
    room: &mut Option<Membership>,
) -> Result<Arc<Event>, broadcast::error::RecvError> {
    match room {
        Some(membership) => membership.events.recv().await,
        None => std::future::pending().await,
    }
}
