//! What nodes say to each other over NATS, as JSON: requests to the node that runs a
//! room, their answers, and the news it publishes on the room's subject.

use punct_protocol::{ChatLine, ClientMessage, Role, RoomSnapshot, Seats, Seq};
use punct_rules::Color;
use serde::{Deserialize, Serialize};

use crate::room::{ConnId, Hearers, Key, Talk};
use crate::store::Player;

/// The subject a node takes requests for the rooms it runs on.
pub(crate) fn node_subject(tag: u32) -> String {
    format!("punct.node.{tag}.room")
}

/// The subject a room's news is published on, once for every node relaying it.
pub(crate) fn room_subject(room: &str) -> String {
    format!("punct.room.{room}")
}

/// The subject every node answers with the rooms it runs, for the lobby.
pub(crate) const LOBBY_SUBJECT: &str = "punct.lobby";

/// A request to the node that runs `room`, for a member or a request on another node.
/// (No `Debug`: a `Join` holds a secret token.)
#[derive(Serialize, Deserialize)]
pub(crate) struct Request {
    /// The room.
    pub(crate) room: String,
    /// What is asked.
    pub(crate) op: Op,
}

/// What one node asks of a room another runs: the room's commands, with the
/// connection's id (ids are unique across the cluster: each node's carry its tag).
#[derive(Serialize, Deserialize)]
pub(crate) enum Op {
    /// The room as the lobby shows it (also: whether it runs there).
    Summary,
    /// Give out the free seat.
    TakeSeat { player: Player },
    /// Seat a connection by token or account.
    Join {
        conn: ConnId,
        key: Key,
        since: Option<Seq>,
        lists: bool,
    },
    /// Add a spectator.
    Watch { conn: ConnId, since: Option<Seq> },
    /// A fresh snapshot for a member that fell behind.
    Resync { conn: ConnId },
    /// An action of the player on `conn`, written as the client's request.
    Act {
        conn: ConnId,
        request: ClientMessage,
        retry: bool,
    },
    /// A line of chat, or muting, from the member on `conn`.
    Talk { conn: ConnId, talk: Talk },
    /// A member's connection ended.
    Leave { conn: ConnId },
    /// Delete the room for its creator.
    Cancel { key: Key },
    /// The game record.
    Record,
}

/// The answer when the room does not run on the node asked (any more): the asker looks
/// it up again.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Moved;

/// What a member gets on entering a room run elsewhere (its events come on the room's
/// subject).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Entered {
    /// Who it is in the room.
    pub(crate) role: Role,
    /// Where its view starts.
    pub(crate) start: Start,
}

/// Where a member's view of the room starts (`room::Start`, as sent).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Start {
    /// The room as it stands.
    Snapshot(Box<RoomSnapshot>),
    /// The events missed since `since`.
    Resumed {
        since: Seq,
        missed: Vec<Event>,
        your_turn: Option<String>,
        players: Box<Seats>,
        spectators: usize,
        chat: Vec<ChatLine>,
    },
}

/// A room event (`room::Event`, as sent).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Event {
    /// Its number; none for a presence notice.
    pub(crate) seq: Option<Seq>,
    /// The message, as the client gets it.
    pub(crate) json: String,
    /// The legal turns, for the player to move only.
    pub(crate) your_turn: Option<(Color, String)>,
    /// The connection whose seat was taken over, on that notice.
    pub(crate) replaced: Option<ConnId>,
    /// Who hears it.
    pub(crate) hearers: Hearers,
}

/// What the node running a room publishes on the room's subject.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum News {
    /// An event for every member.
    Event(Event),
    /// The publisher fell behind the room and lost events: relays start afresh.
    Gap,
    /// The room closed there.
    Closed,
}
