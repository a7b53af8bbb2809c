//! The room's protocol: the one request type its actor takes, the answers it gives, and
//! the events it tells its members. A request is the same value whether it comes from
//! a connection on this node or, forwarded unchanged, from another node; so is the
//! answer. Adding a request means a variant here, its arm in `actor`, and its docs.

use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::ws::Utf8Bytes;
use punct_protocol::{
    Action, ChatLine, ErrorCode, Record, Role, RoomSnapshot, RoomSummary, SeatGranted, Seats, Seq,
    ServerMessage,
};
use punct_rules::Color;
use serde::{Deserialize, Serialize};

use crate::cluster::{ConnId, NodeTag};
use crate::errors::Refused;
use crate::store::{AccountId, Player};

/// What a room's actor can be asked. `conn` names the connection asking (ids are
/// unique across a cluster), which is how the actor knows who may act. (No `Debug`: a
/// `Join` or `Cancel` may hold a secret token.)
#[derive(Clone, Serialize, Deserialize)]
pub(crate) enum Request {
    /// Give out the free seat (HTTP). Answered [`Answer::Seat`].
    TakeSeat {
        /// Who takes it.
        player: Player,
        /// The accounts that block the player's: a room whose other seat one of them
        /// holds (its creator's) refuses the seat. Loaded by whoever asks, so that the
        /// room never waits on the database for it.
        #[serde(default)]
        blockers: Vec<AccountId>,
    },
    /// Seat a connection by token or account, replacing a connection already in that
    /// seat. Answered [`Answer::Entered`]: the snapshot or the missed events, or
    /// `bad-token`/`not-a-player`.
    Join {
        /// The connection to seat.
        conn: ConnId,
        /// What it presented.
        key: Key,
        /// The last event the client saw, when it comes back.
        since: Option<Seq>,
        /// Whether it wants the legal turns when it is to move.
        lists: bool,
        /// The accounts the connection's account blocks: their chat does not reach it.
        #[serde(default)]
        blocks: Vec<AccountId>,
    },
    /// Add a spectator. Answered [`Answer::Entered`].
    Watch {
        /// The connection that watches.
        conn: ConnId,
        /// The last event the client saw, when it comes back.
        since: Option<Seq>,
        /// The accounts the connection's account blocks: their chat does not reach it.
        #[serde(default)]
        blocks: Vec<AccountId>,
    },
    /// A fresh snapshot for a member that fell behind. Answered [`Answer::Entered`],
    /// always with a snapshot, or `seat-taken-over` if it no longer holds its seat.
    Resync {
        /// The member.
        conn: ConnId,
    },
    /// Play a turn, resign, offer, accept or decline a draw or a takeback, claim the win
    /// or ask for a rematch, for the player seated on `conn`. Answered [`Answer::Done`]
    /// with the sequence number of the event it caused.
    Act {
        /// The connection asking: only its seat may act, only the side to move play.
        conn: ConnId,
        /// What it asks; a turn may say the number it is to have, and is then
        /// acknowledged, not refused, if that player played it already as that number.
        action: Action,
        /// Whether the connection asks again after the room moved under its first
        /// request, whose answer was lost: a turn or resignation already done by this
        /// player is then acknowledged rather than refused.
        retry: bool,
    },
    /// A line of chat, or muting, from the member on `conn`. Answered [`Answer::Done`]
    /// with the room's sequence number now.
    Talk {
        /// The member.
        conn: ConnId,
        /// What they say or ask.
        talk: Talk,
    },
    /// Delete the room for its creator (HTTP), while the other seat is free. Answered
    /// [`Answer::Cancelled`].
    Cancel {
        /// The creator's seat token, or their account.
        key: Key,
    },
    /// A member's connection ended. Answered [`Answer::Left`].
    Leave {
        /// The connection that ended.
        conn: ConnId,
    },
    /// Node `node` of the cluster died: every member on it has gone. Answered
    /// [`Answer::Left`].
    NodeDied {
        /// The dead node.
        node: NodeTag,
    },
    /// What a moderator does to the room. Answered [`Answer::Done`] with the room's
    /// sequence number after it.
    Moderate(Moderate),
    /// The room as the lobby shows it. Answered [`Answer::Summary`].
    Summary,
    /// The game record (HTTP). Answered [`Answer::Record`].
    Record,
    /// Account `account` was deleted, and is named `name` from now on (the database says
    /// so already): its seats take the name, and the lines it said leave the chat kept.
    /// Answered [`Answer::Left`].
    Forget {
        /// The deleted account.
        account: AccountId,
        /// What its seats show now: `deleted player N`.
        name: String,
    },
}

/// What a room's actor answers; each request's doc says which.
#[derive(Serialize, Deserialize)]
pub(crate) enum Answer {
    /// The seat given out and its token, or why not.
    Seat(Result<SeatGranted, ErrorCode>),
    /// What a member gets on entering, or why it may not enter.
    Entered(Result<Entered, ErrorCode>),
    /// The sequence number of what the request caused, or why it was refused.
    Done(Result<Seq, Refused>),
    /// The room is deleted, or why not.
    Cancelled(Result<(), ErrorCode>),
    /// The room as the lobby shows it.
    Summary(RoomSummary),
    /// The game record.
    Record(Record),
    /// Nothing to say: the member has gone.
    Left,
}

/// A room answered a request with the answer of another: a bug, logged where found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch;

impl Answer {
    /// The answer to `Join`, `Watch` or `Resync`.
    pub(crate) fn entered(self) -> Result<Result<Entered, ErrorCode>, Mismatch> {
        match self {
            Answer::Entered(entered) => Ok(entered),
            other => Err(other.mismatch()),
        }
    }

    /// The answer to `Act` or `Talk`.
    pub(crate) fn done(self) -> Result<Result<Seq, Refused>, Mismatch> {
        match self {
            Answer::Done(done) => Ok(done),
            other => Err(other.mismatch()),
        }
    }

    /// The answer to `TakeSeat`.
    pub(crate) fn seat(self) -> Result<Result<SeatGranted, ErrorCode>, Mismatch> {
        match self {
            Answer::Seat(seat) => Ok(seat),
            other => Err(other.mismatch()),
        }
    }

    /// The answer to `Cancel`.
    pub(crate) fn cancelled(self) -> Result<Result<(), ErrorCode>, Mismatch> {
        match self {
            Answer::Cancelled(done) => Ok(done),
            other => Err(other.mismatch()),
        }
    }

    /// The answer to `Summary`.
    pub(crate) fn summary(self) -> Result<RoomSummary, Mismatch> {
        match self {
            Answer::Summary(summary) => Ok(summary),
            other => Err(other.mismatch()),
        }
    }

    /// The answer to `Record`.
    pub(crate) fn record(self) -> Result<Record, Mismatch> {
        match self {
            Answer::Record(record) => Ok(record),
            other => Err(other.mismatch()),
        }
    }

    fn mismatch(&self) -> Mismatch {
        let name = match self {
            Answer::Seat(_) => "seat",
            Answer::Entered(_) => "entered",
            Answer::Done(_) => "done",
            Answer::Cancelled(_) => "cancelled",
            Answer::Summary(_) => "summary",
            Answer::Record(_) => "record",
            Answer::Left => "left",
        };
        tracing::error!(answer = name, "a room answered another request's answer");
        Mismatch
    }
}

/// What a connection presents to take its seat. (No `Debug`: a token is a secret.)
#[derive(Clone, Serialize, Deserialize)]
pub(crate) enum Key {
    /// The seat's secret token.
    Token(String),
    /// A session signed in to the account that holds the seat.
    Account(AccountId),
}

impl From<String> for Key {
    fn from(token: String) -> Key {
        Key::Token(token)
    }
}

/// What a member says in the room's chat, or asks of it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Talk {
    /// A line, from a member whose name (for a spectator: their username when signed in)
    /// is given.
    Say {
        /// The spectator's name; a player's is their seat's.
        name: Option<String>,
        /// The spectator's account, if signed in; a player's is their seat's. Stored
        /// with the line, so that the account's lines go when it is deleted.
        #[serde(default)]
        account: Option<String>,
        /// What they say.
        text: String,
    },
    /// A player stops (true) or starts again (false) hearing the opponent.
    Mute(bool),
}

/// What a moderator does to a room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Moderate {
    /// The player of this account loses the running game by abandonment (a ban); a room
    /// still waiting for its opponent is deleted.
    Forfeit {
        /// The banned account.
        account: AccountId,
    },
    /// The room ends: a game under way is drawn as `closed`, never rated; a room still
    /// waiting for its opponent is deleted.
    Close,
    /// A line of the chat is shown to everyone as removed (the database says so already).
    RemoveLine {
        /// The line's id.
        line: u64,
    },
}

/// What a connection gets on entering a room (its events come with the reply).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Entered {
    /// Who the connection is in the room.
    pub(crate) role: Role,
    /// Where its view of the room starts.
    pub(crate) start: Start,
}

/// Where a member's view of the room starts.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Start {
    /// The room as it stands after event `seq` of the snapshot (boxed, as the seats of
    /// `Resumed` are: both are large).
    Snapshot(Box<RoomSnapshot>),
    /// The member saw every event up to `since`; here are those after it.
    Resumed {
        /// The last event the member saw.
        since: Seq,
        /// The events after it, in order.
        missed: Vec<Arc<Event>>,
        /// A `your_turn` to send after them, for a player to move whose list none of
        /// them brings.
        #[serde(with = "text")]
        your_turn: Option<Utf8Bytes>,
        /// Both seats now.
        players: Box<Seats>,
        /// Spectators now.
        spectators: usize,
        /// The recent chat the member hears.
        chat: Vec<ChatLine>,
    },
}

/// Who hears a notice: either seat, and the spectators, but for members who block the
/// speaker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Hearers {
    /// White's and Black's players.
    pub(crate) seats: [bool; 2],
    /// The spectators.
    pub(crate) spectators: bool,
    /// The members who block the speaker's account, whatever their role.
    #[serde(default)]
    pub(crate) deaf: Vec<ConnId>,
}

impl Hearers {
    /// Everyone in the room.
    pub(crate) const ALL: Hearers = Hearers {
        seats: [true; 2],
        spectators: true,
        deaf: Vec::new(),
    };

    /// Whether the member on `conn`, who is `role`, hears it.
    pub(crate) fn hear(&self, conn: ConnId, role: Role) -> bool {
        let by_role = match role.color() {
            Some(color) => self.seats[color as usize],
            None => self.spectators,
        };
        by_role && !self.deaf.contains(&conn)
    }
}

/// Something every member of a room is told, serialised once for all of them (its
/// bytes are shared, not copied, by every member's queue).
#[derive(Debug, Deserialize)]
#[serde(from = "WireEvent")]
pub(crate) struct Event {
    /// The room event's sequence number; `None` for a notice (presence, chat), which is
    /// not part of the game's history.
    pub(crate) seq: Option<Seq>,
    /// The message as JSON.
    pub(crate) json: Utf8Bytes,
    /// For the player to move after a turn: a `your_turn` message to send them only.
    /// Dropped once the next turn makes it stale: a room's broadcast channel and replay
    /// buffer keep events long after they are read, and a list is tens of KiB.
    your_turn: Mutex<Option<(Color, Utf8Bytes)>>,
    /// Set on the notice that another connection took this one's seat over: only that
    /// connection acts on it (it says `json`, a `bye`, and closes); the others skip it.
    pub(crate) replaced: Option<ConnId>,
    /// Who hears it (everyone, but for chat).
    pub(crate) hearers: Hearers,
}

impl Event {
    /// Event `seq` (a notice without one), told as `json`, bringing `your_turn` to the
    /// player to move if given; everyone hears it.
    pub(crate) fn new(seq: Option<Seq>, json: String, your_turn: Option<(Color, String)>) -> Event {
        Event {
            seq,
            json: json.into(),
            your_turn: Mutex::new(your_turn.map(|(color, json)| (color, json.into()))),
            replaced: None,
            hearers: Hearers::ALL,
        }
    }

    /// The notice that `conn`'s seat was taken over.
    pub(crate) fn takeover(conn: ConnId) -> Event {
        let bye = ServerMessage::Bye {
            code: ErrorCode::SeatTakenOver,
            message: "another connection took over this seat with its token".into(),
        };
        Event {
            replaced: Some(conn),
            ..Event::new(None, to_json(&bye), None)
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Color, Utf8Bytes)>> {
        self.your_turn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The `your_turn` this event brings the player of `color`, while it is still true.
    pub(crate) fn your_turn_for(&self, color: Option<Color>) -> Option<Utf8Bytes> {
        match &*self.lock() {
            Some((to_move, json)) if Some(*to_move) == color => Some(json.clone()),
            _ => None,
        }
    }

    /// Drops the list, if it brings one; answers whether it did.
    pub(crate) fn forget_your_turn(&self) -> bool {
        self.lock().take().is_some()
    }
}

/// An [`Event`] as another node gets it.
#[derive(Serialize, Deserialize)]
struct WireEvent {
    /// Its number; none for a notice.
    seq: Option<Seq>,
    /// The message, as the client gets it.
    json: String,
    /// The legal turns, for the player to move only.
    your_turn: Option<(Color, String)>,
    /// The connection whose seat was taken over, on that notice.
    replaced: Option<ConnId>,
    /// Who hears it.
    hearers: Hearers,
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, to: S) -> Result<S::Ok, S::Error> {
        WireEvent::from(self).serialize(to)
    }
}

impl From<&Event> for WireEvent {
    fn from(event: &Event) -> WireEvent {
        let your_turn = event
            .lock()
            .as_ref()
            .map(|(color, json)| (*color, json.as_str().to_owned()));
        WireEvent {
            seq: event.seq,
            json: event.json.as_str().to_owned(),
            your_turn,
            replaced: event.replaced,
            hearers: event.hearers.clone(),
        }
    }
}

impl From<WireEvent> for Event {
    fn from(event: WireEvent) -> Event {
        Event {
            replaced: event.replaced,
            hearers: event.hearers,
            ..Event::new(event.seq, event.json, event.your_turn)
        }
    }
}

/// The JSON of a server message.
pub(crate) fn to_json(message: &ServerMessage) -> String {
    serde_json::to_string(message).expect("server messages serialise")
}

/// Text shared without copying ([`Utf8Bytes`]), written as a string between nodes.
mod text {
    use axum::extract::ws::Utf8Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        text: &Option<Utf8Bytes>,
        to: S,
    ) -> Result<S::Ok, S::Error> {
        match text {
            Some(text) => to.serialize_some(text.as_str()),
            None => to.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        from: D,
    ) -> Result<Option<Utf8Bytes>, D::Error> {
        Ok(Option::<String>::deserialize(from)?.map(Utf8Bytes::from))
    }
}
