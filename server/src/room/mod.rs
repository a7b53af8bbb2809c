//! A room: one game, its two seats and its spectators, owned by one task.
//!
//! The task (the actor) is the only place where a turn is accepted: connections and HTTP
//! handlers send it [`Command`]s through a [`RoomHandle`] and it answers each on a
//! oneshot channel, then publishes what happened as an [`Event`] on a broadcast channel
//! that every member of the room reads at its own pace. The actor never waits for a
//! connection, so a slow member can only fall behind, never hold the room up.
//!
//! A room is started by the registry with a [`Context`] (the store, the metrics, the
//! timings, the computer's thread pool) and never sees the registry: the registry alone
//! adds rooms, and removes one once its task has ended.
//!
//! # Layout: where each request is handled
//!
//! - `actor`: the task's loop, what wakes it (a command, the clock, the computer, a
//!   presence notice due, the idle timeout) and which method each [`Command`] goes to.
//! - `seats`: `TakeSeat`, `Join`, `Watch`, `Leave`, `Resync`, `Cancel`: who holds which seat, who
//!   watches, who is away, and the presence notices (not part of the game's history).
//! - `turns`: `Act` (a turn played, resignation, draws, takebacks, claims, rematch), the clock
//!   running out, the computer's turns, and the back-off after a storage failure.
//! - `history`: the numbered room events, the replay buffer for members coming back,
//!   and what a member gets on entering (snapshot or missed events).
//! - `chat`: `Talk`: the players' and the spectators' chat, and muting.
//! - `view`: snapshots, seat views, summaries and the record (`Record`).
//! - `setup`: what a room starts from: a new room, or one loaded from the store.

mod actor;
mod chat;
mod history;
pub(crate) mod relay;
mod seats;
mod setup;
#[cfg(test)]
mod tests;
mod turns;
mod view;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;

use punct_protocol::{
    Action, ChatLine, ErrorCode, Record, Role, RoomSnapshot, RoomSummary, SeatGranted, Seats, Seq,
};
use punct_rules::{Color, IllegalTurn};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::Config;
use crate::cluster::NodeTag;
use crate::computer::Computers;
use crate::mail::Mailer;
use crate::metrics::Metrics;
use crate::store::{AccountId, Player, Store};

pub(crate) use setup::{Fresh, Setup};
pub(crate) use view::summary_of;

/// What a connection presents to take its seat. (No `Debug`: a token is a secret.)
#[derive(Clone, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum Talk {
    /// A line, from a member whose name (for a spectator: their username when signed in)
    /// is given.
    Say {
        /// The spectator's name; a player's is their seat's.
        name: Option<String>,
        /// What they say.
        text: String,
    },
    /// A player stops (true) or starts again (false) hearing the opponent.
    Mute(bool),
}

/// Who hears a notice: either seat, and the spectators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Hearers {
    /// White's and Black's players.
    pub(crate) seats: [bool; 2],
    /// The spectators.
    pub(crate) spectators: bool,
}

impl Hearers {
    /// Everyone in the room.
    pub(crate) const ALL: Hearers = Hearers {
        seats: [true; 2],
        spectators: true,
    };

    /// Whether a member who is `role` hears it.
    pub(crate) fn hear(&self, role: Role) -> bool {
        match role.color() {
            Some(color) => self.seats[color as usize],
            None => self.spectators,
        }
    }
}

impl Default for Hearers {
    fn default() -> Hearers {
        Hearers::ALL
    }
}

/// Identifies one WebSocket connection for the life of the server.
pub(crate) type ConnId = u64;

/// Requests a room's queue holds before senders wait.
const COMMAND_QUEUE: usize = 64;

/// What a room is given by whoever starts it.
#[derive(Debug)]
pub(crate) struct Context {
    /// Where rooms and turns are kept.
    pub(crate) store: Store,
    /// The counters of `/metrics`.
    pub(crate) metrics: Metrics,
    /// How long the room waits for things.
    pub(crate) timings: Timings,
    /// Where the computer thinks.
    pub(crate) computers: Computers,
    /// Where notices to correspondence players go.
    pub(crate) mail: Mailer,
}

impl Context {
    /// The context of every room of a server with `config`, on `store`.
    pub(crate) fn new(config: &Config, store: Store) -> Context {
        Context {
            metrics: Metrics::new(store.commit_times()),
            mail: Mailer::start(config, store.clone()),
            store,
            timings: Timings {
                event_buffer: config.room_event_buffer,
                idle_timeout: config.room_idle_timeout,
                grace_period: config.grace_period,
            },
            computers: Computers::new(config.computer_threads, config.computer_think_time),
        }
    }
}

/// How long a room waits for things, and how much it remembers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timings {
    /// Room events kept for members that fall behind or come back.
    pub(crate) event_buffer: usize,
    /// How long a room with nobody in it and nothing to time lives on.
    pub(crate) idle_timeout: Duration,
    /// How long a player may be away before the opponent may claim the win.
    pub(crate) grace_period: Duration,
}

/// A cheap handle on a running room.
#[derive(Clone, Debug)]
pub(crate) struct RoomHandle {
    /// The room's id.
    id: Arc<str>,
    /// Where commands go.
    commands: mpsc::Sender<Command>,
    /// The room as the lobby shows it, kept current by the actor (a relay's stays as
    /// it was when the relay started: ask with [`RoomHandle::current_summary`]).
    summary: watch::Receiver<RoomSummary>,
    /// For a room another node runs, relayed here: that node.
    relayed_from: Option<NodeTag>,
}

/// What a room's actor can be asked. Each request carries the oneshot its answer goes
/// back on; `conn` names the connection asking, which is how the actor knows who may act.
/// (No `Debug`: a `Join` holds a secret token.)
enum Command {
    /// Give out the free seat (HTTP).
    TakeSeat {
        /// Who takes it.
        player: Player,
        /// Gets the seat and its token, or why not.
        reply: oneshot::Sender<Result<SeatGranted, ErrorCode>>,
    },
    /// Seat a connection by token or account, replacing a connection already in that
    /// seat.
    Join {
        /// The connection to seat.
        conn: ConnId,
        /// What it presented.
        key: Key,
        /// The last event the client saw, when it comes back.
        since: Option<Seq>,
        /// Whether it wants the legal turns when it is to move.
        lists: bool,
        /// Gets the snapshot (or the missed events) and the events, or `BadToken`.
        reply: oneshot::Sender<Result<Joined, ErrorCode>>,
    },
    /// Add a spectator.
    Watch {
        /// The connection that watches.
        conn: ConnId,
        /// The last event the client saw, when it comes back.
        since: Option<Seq>,
        /// Gets the snapshot (or the missed events) and the events.
        reply: oneshot::Sender<Joined>,
    },
    /// A fresh snapshot and event stream for a member that fell behind.
    Resync {
        /// The member.
        conn: ConnId,
        /// Gets a snapshot and the events after it, or `SeatTakenOver` if the member no
        /// longer holds its seat.
        reply: oneshot::Sender<Result<Resynced, ErrorCode>>,
    },
    /// Play a turn, resign, offer, accept or decline a draw, claim the win or ask for a
    /// rematch, for the player seated on `conn`.
    Act {
        /// The connection asking: only its seat may act, only the side to move play.
        conn: ConnId,
        /// What it asks.
        action: Action,
        /// Whether it asks again after the room moved: an answer to the first request
        /// may have been lost, so a turn or resignation already done by this player is
        /// acknowledged rather than refused.
        retry: bool,
        /// Gets the sequence number of the event it caused, or why it was refused.
        reply: oneshot::Sender<Result<Seq, Refusal>>,
    },
    /// A line of chat, or muting, from the member on `conn`.
    Talk {
        /// The member.
        conn: ConnId,
        /// What they say or ask.
        talk: Talk,
        /// Gets the room's sequence number now, or why not.
        reply: oneshot::Sender<Result<Seq, Refusal>>,
    },
    /// Delete the room for its creator (HTTP), while the other seat is free.
    Cancel {
        /// The creator's seat token, or their account.
        key: Key,
        /// Gets nothing, or why not.
        reply: oneshot::Sender<Result<(), ErrorCode>>,
    },
    /// A member's connection ended.
    Leave {
        /// The connection that ended.
        conn: ConnId,
    },
    /// The room as the lobby shows it now (asked of a relay: the owner's).
    Summary {
        /// Gets the summary.
        reply: oneshot::Sender<RoomSummary>,
    },
    /// The game record (HTTP).
    Record {
        /// Gets the record.
        reply: oneshot::Sender<Record>,
    },
}

/// What a connection gets on entering a room.
#[derive(Debug)]
pub(crate) struct Joined {
    /// Who the connection is in the room.
    pub(crate) role: Role,
    /// Where its view of the room starts.
    pub(crate) start: Start,
    /// Events after the snapshot, from the moment it was taken.
    pub(crate) events: broadcast::Receiver<Arc<Event>>,
}

/// A fresh start for a member that fell behind the room's events.
#[derive(Debug)]
pub(crate) struct Resynced {
    /// Who the member is in the room.
    pub(crate) role: Role,
    /// The room as it stands after event `snapshot.seq`.
    pub(crate) snapshot: Box<RoomSnapshot>,
    /// Events after the snapshot.
    pub(crate) events: broadcast::Receiver<Arc<Event>>,
}

/// Where a member's view of the room starts.
#[derive(Debug)]
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
        your_turn: Option<Utf8Bytes>,
        /// Both seats now.
        players: Box<Seats>,
        /// Spectators now.
        spectators: usize,
        /// The recent chat the member hears.
        chat: Vec<ChatLine>,
    },
}

/// Something every member of a room is told, serialised once for all of them (its
/// bytes are shared, not copied, by every member's queue).
#[derive(Debug)]
pub(crate) struct Event {
    /// The room event's sequence number; `None` for a presence notice, which is not part
    /// of the game's history.
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
    fn new(seq: Option<Seq>, json: String, your_turn: Option<(Color, String)>) -> Event {
        Event {
            seq,
            json: json.into(),
            your_turn: Mutex::new(your_turn.map(|(color, json)| (color, json.into()))),
            replaced: None,
            hearers: Hearers::ALL,
        }
    }

    /// The notice that `conn`'s seat was taken over.
    fn takeover(conn: ConnId) -> Event {
        let bye = punct_protocol::ServerMessage::Bye {
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
    fn forget_your_turn(&self) -> bool {
        self.lock().take().is_some()
    }
}

/// Why a request was refused.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Refusal {
    /// What went wrong, for programs.
    pub(crate) code: ErrorCode,
    /// The rules engine's reason, for an illegal turn.
    pub(crate) rule: Option<String>,
    /// What went wrong, for people.
    pub(crate) message: String,
}

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            rule: None,
            message: message.into(),
        }
    }

    fn illegal(illegal: IllegalTurn) -> Refusal {
        Refusal {
            code: ErrorCode::IllegalTurn,
            rule: Some(illegal.code().to_owned()),
            message: illegal.to_string(),
        }
    }
}

/// The room's side of the command channel is gone: the room has closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoomClosed;

impl RoomHandle {
    /// [`RoomHandle::start_subscribed`] without the receiver, for tests.
    #[cfg(test)]
    pub(crate) fn start(
        setup: Setup,
        context: Arc<Context>,
    ) -> (RoomHandle, impl Future<Output = ()> + Send + 'static) {
        let (handle, _, actor) = RoomHandle::start_subscribed(setup, context);
        (handle, actor)
    }

    /// Builds the room of `setup` in `context`; answers its handle, a receiver of every
    /// event from the first (for other nodes of a cluster), and the actor to run (the
    /// caller spawns it, and learns so when the room has closed).
    pub(crate) fn start_subscribed(
        setup: Setup,
        context: Arc<Context>,
    ) -> (
        RoomHandle,
        broadcast::Receiver<Arc<Event>>,
        impl Future<Output = ()> + Send + 'static,
    ) {
        let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
        let id = Arc::from(setup.id.as_str());
        let room = actor::Room::new(setup, context);
        let events = room.history.subscribe();
        let (publish, summary) = watch::channel(room.summary());
        let handle = RoomHandle {
            id,
            commands,
            summary,
            relayed_from: None,
        };
        (handle, events, room.run(inbox, publish))
    }

    /// The node that runs the room, when this handle relays it from there.
    pub(crate) fn relayed_from(&self) -> Option<NodeTag> {
        self.relayed_from
    }

    /// The room's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The room as the lobby shows it, for a room run here.
    pub(crate) fn summary(&self) -> RoomSummary {
        self.summary.borrow().clone()
    }

    /// The room as the lobby shows it, run here or relayed.
    pub(crate) async fn current_summary(&self) -> Result<RoomSummary, RoomClosed> {
        match self.relayed_from {
            None => Ok(self.summary()),
            Some(_) => self.ask(|reply| Command::Summary { reply }).await,
        }
    }

    /// Whether the room has closed: its handle is stale.
    pub(crate) fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }

    async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, RoomClosed> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(command(reply))
            .await
            .map_err(|_| RoomClosed)?;
        answer.await.map_err(|_| RoomClosed)
    }

    /// Gives out the free seat to `player`.
    pub(crate) async fn take_seat(
        &self,
        player: Player,
    ) -> Result<Result<SeatGranted, ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::TakeSeat { player, reply }).await
    }

    /// Seats `conn` by `key` (a token, or the account holding a seat); `since` is the
    /// last event it saw, if it comes back; `lists` whether it wants the legal turns
    /// when it is to move.
    pub(crate) async fn join(
        &self,
        conn: ConnId,
        key: impl Into<Key>,
        since: Option<Seq>,
        lists: bool,
    ) -> Result<Result<Joined, ErrorCode>, RoomClosed> {
        let key = key.into();
        self.ask(|reply| Command::Join {
            conn,
            key,
            since,
            lists,
            reply,
        })
        .await
    }

    /// Adds `conn` as a spectator; `since` is the last event it saw, if it comes back.
    pub(crate) async fn watch(
        &self,
        conn: ConnId,
        since: Option<Seq>,
    ) -> Result<Joined, RoomClosed> {
        self.ask(|reply| Command::Watch { conn, since, reply })
            .await
    }

    /// A fresh start for a member that fell behind.
    pub(crate) async fn resync(
        &self,
        conn: ConnId,
    ) -> Result<Result<Resynced, ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::Resync { conn, reply }).await
    }

    /// Does `action` for the player on `conn`; `retry` if it asks again after the room
    /// moved.
    pub(crate) async fn act(
        &self,
        conn: ConnId,
        action: Action,
        retry: bool,
    ) -> Result<Result<Seq, Refusal>, RoomClosed> {
        self.ask(|reply| Command::Act {
            conn,
            action,
            retry,
            reply,
        })
        .await
    }

    /// Says something in the chat, or mutes, for the member on `conn`.
    pub(crate) async fn talk(
        &self,
        conn: ConnId,
        talk: Talk,
    ) -> Result<Result<Seq, Refusal>, RoomClosed> {
        self.ask(|reply| Command::Talk { conn, talk, reply }).await
    }

    /// Plays `turn` for the player on `conn`.
    #[cfg(test)]
    pub(crate) async fn play(
        &self,
        conn: ConnId,
        turn: punct_rules::Turn,
    ) -> Result<Result<Seq, Refusal>, RoomClosed> {
        self.act(conn, Action::Play(turn), false).await
    }

    /// Deletes the room for its creator, who presents `key`, while the other seat is free.
    pub(crate) async fn cancel(&self, key: Key) -> Result<Result<(), ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::Cancel { key, reply }).await
    }

    /// The record.
    pub(crate) async fn record(&self) -> Result<Record, RoomClosed> {
        self.ask(|reply| Command::Record { reply }).await
    }

    /// Tells the room that `conn` has gone. Never waits: a full queue means the room is
    /// busy, and the leave is then sent from a task of its own.
    pub(crate) fn leave(&self, conn: ConnId) {
        if let Err(mpsc::error::TrySendError::Full(command)) =
            self.commands.try_send(Command::Leave { conn })
        {
            let commands = self.commands.clone();
            tokio::spawn(async move { commands.send(command).await });
        }
    }
}

/// The JSON of a server message.
fn to_json(message: &punct_protocol::ServerMessage) -> String {
    serde_json::to_string(message).expect("server messages serialise")
}

/// Whole milliseconds, as the protocol counts them.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
