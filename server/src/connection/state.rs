//! A connection's state, and how it queues what it sends: every part of the connection
//! (`requests`, `membership`, `following`, `seeking`) adds its methods to
//! [`Connection`].

use std::sync::Arc;

use axum::extract::ws::Message;
use punct_protocol::{ErrorCode, RequestId, Role, Seq, ServerMessage};
use tokio::sync::broadcast;

use super::end::End;
use super::outbound;
use super::seeking::Seeking;
use crate::cluster::ConnId;
use crate::endings::Ticket;
use crate::errors;
use crate::i18n::Lang;
use crate::limits::MessageLimits;
use crate::room::{Event, Key, RoomHandle};
use crate::state::AppState;
use crate::store::Account;
use crate::tournament;

/// A connection's state.
pub(super) struct Connection {
    /// Names this connection to its room.
    pub(super) id: ConnId,
    /// The rooms, the limits and the shutdown signal.
    pub(super) state: AppState,
    /// The writer's queue.
    pub(super) out: outbound::Sender,
    /// How fast the client may send.
    pub(super) limits: MessageLimits,
    /// Whether the client has said `hello` with the right version.
    pub(super) greeted: bool,
    /// Whether the client wants the legal turns when it is its turn to play.
    pub(super) legal_turns: bool,
    /// The account the connection is signed in to, by the upgrade request's session.
    pub(super) account: Option<Account>,
    /// The language its messages for people are in: the upgrade request's.
    pub(super) lang: Lang,
    /// The room joined, if any.
    pub(super) room: Option<Membership>,
    /// The tournament followed, if any.
    pub(super) following: Option<Following>,
    /// The open seek, if any. Boxed: most connections never seek, and each holds its
    /// state for its whole life.
    pub(super) seeking: Option<Box<Seeking>>,
    /// What ends the connection with its session, or its seat's account.
    pub(super) ticket: Ticket,
}

/// A tournament a connection follows.
pub(super) struct Following {
    /// Its id.
    pub(super) tournament: String,
    /// Its director's events.
    pub(super) events: broadcast::Receiver<Arc<tournament::Event>>,
    /// Whether it was over when last heard of: its director closing then is no news.
    pub(super) over: bool,
}

/// A connection's place in a room. (No `Debug`: it holds a seat token.)
pub(super) struct Membership {
    /// The room's actor.
    pub(super) handle: RoomHandle,
    /// How the connection entered, to enter again the same way if the room moves.
    pub(super) entry: Entry,
    /// Who the connection is there.
    pub(super) role: Role,
    /// The room's events.
    pub(super) events: broadcast::Receiver<Arc<Event>>,
    /// The last room event this connection has passed on: where it resumes if the room
    /// moves (to another node, or is loaded again after it was fenced).
    pub(super) last_seq: Seq,
}

/// How a connection entered its room.
#[derive(Clone)]
pub(super) enum Entry {
    /// As the player of the seat this token, or this connection's account, holds.
    Seat {
        /// The seat token (kept only in memory), or the account.
        key: Key,
    },
    /// As a spectator.
    Watch,
}

impl Connection {
    /// Tells the client that request `id` failed with `code`.
    pub(super) fn error(
        &self,
        id: Option<RequestId>,
        code: ErrorCode,
        message: impl Into<String>,
    ) -> Result<(), End> {
        let message = errors::told(code, message.into(), self.lang);
        self.send(&ServerMessage::error(id, code, message))
    }

    /// Queues `message` for the writer without waiting.
    pub(super) fn send(&self, message: &ServerMessage) -> Result<(), End> {
        let json = serde_json::to_string(message).expect("server messages serialise");
        self.push(Message::Text(json.into()))
    }

    /// Queues a frame for the writer without waiting.
    pub(super) fn push(&self, message: Message) -> Result<(), End> {
        self.out.try_send(message).map_err(|e| match e {
            outbound::NotQueued::Full => End::TooSlow,
            outbound::NotQueued::Closed => End::Broken("the socket stopped taking data".into()),
        })
    }
}
