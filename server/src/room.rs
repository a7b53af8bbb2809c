//! A room: one game, its two seats and its spectators, owned by one task.
//!
//! The task (the actor) is the only place where a turn is accepted: connections and HTTP
//! handlers send it [`Command`]s and it answers each on a oneshot channel, then publishes
//! what happened as an [`Event`] on a broadcast channel that every member of the room
//! reads at its own pace. The actor never waits for a connection, so a slow member can
//! only fall behind, never hold the room up.

use std::collections::HashSet;
use std::sync::Arc;

use punct_protocol::{
    CreateRoom, ErrorCode, Record, Reserves, Role, RoomSnapshot, RoomStatus, RoomSummary,
    SeatChoice, SeatGranted, SeatView, Seats, Seq, ServerMessage, StackView, Visibility,
};
use punct_rules::{Color, Game, Turn};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tracing::Instrument;

use crate::rooms::Rooms;
use crate::secret;

/// Identifies one WebSocket connection for the life of the server.
pub(crate) type ConnId = u64;

/// Requests a room's queue holds before senders wait.
const COMMAND_QUEUE: usize = 64;

/// A cheap handle on a running room.
#[derive(Clone, Debug)]
pub(crate) struct RoomHandle {
    /// Where commands go.
    commands: mpsc::Sender<Command>,
    /// The room as the lobby shows it, kept current by the actor.
    summary: watch::Receiver<RoomSummary>,
}

/// What a room's actor can be asked. Each request carries the oneshot its answer goes
/// back on; `conn` names the connection asking, which is how the actor knows who may act.
/// (No `Debug`: a `Join` holds a secret token.)
enum Command {
    /// Give out the free seat (HTTP).
    TakeSeat {
        /// Gets the seat and its token, or `RoomFull`.
        reply: oneshot::Sender<Result<SeatGranted, ErrorCode>>,
    },
    /// Seat a connection by token, replacing a connection already in that seat.
    Join {
        /// The connection to seat.
        conn: ConnId,
        /// The secret it presented.
        token: String,
        /// Gets the snapshot and events, or `BadToken`.
        reply: oneshot::Sender<Result<Joined, ErrorCode>>,
    },
    /// Add a spectator.
    Watch {
        /// The connection that watches.
        conn: ConnId,
        /// Gets the snapshot and events.
        reply: oneshot::Sender<Joined>,
    },
    /// A fresh snapshot and event stream for a member that fell behind.
    Resync {
        /// The member.
        conn: ConnId,
        /// Gets the new start, or `SeatTakenOver` if the member no longer holds its seat.
        reply: oneshot::Sender<Result<Joined, ErrorCode>>,
    },
    /// Play a turn for the player seated on `conn`.
    Play {
        /// The connection asking: only the holder of the side to move may play.
        conn: ConnId,
        /// The turn.
        turn: Turn,
        /// Gets the sequence number of the turn's event, or why it was refused.
        reply: oneshot::Sender<Result<Seq, Refusal>>,
    },
    /// A member's connection ended.
    Leave {
        /// The connection that ended.
        conn: ConnId,
    },
    /// The game record (HTTP).
    Record {
        /// Gets the record as JSON and as text.
        reply: oneshot::Sender<(Record, String)>,
    },
}

/// What a connection gets on entering a room.
#[derive(Debug)]
pub(crate) struct Joined {
    /// Who the connection is in the room.
    pub(crate) role: Role,
    /// The room as it stands after event `snapshot.seq`.
    pub(crate) snapshot: RoomSnapshot,
    /// Events after the snapshot, from the moment it was taken.
    pub(crate) events: broadcast::Receiver<Arc<Event>>,
    /// For a player: fires when another connection takes over the seat.
    pub(crate) replaced: Option<oneshot::Receiver<()>>,
}

/// A room event, serialised once for every member.
#[derive(Debug)]
pub(crate) struct Event {
    /// The event as a JSON [`ServerMessage`].
    pub(crate) json: String,
    /// For the player to move after a turn: a `your_turn` message to send them only.
    pub(crate) your_turn: Option<(Color, String)>,
}

/// Why a turn was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// What went wrong, for programs.
    pub(crate) code: ErrorCode,
    /// The rules engine's reason, for an illegal turn.
    pub(crate) rule: Option<&'static str>,
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
}

/// The room's side of the command channel is gone: the room has closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoomClosed;

impl RoomHandle {
    /// Creates a room of the table `rooms` and starts its actor; the creator gets a seat
    /// and its token.
    pub(crate) fn spawn(
        id: String,
        request: CreateRoom,
        rooms: Rooms,
    ) -> (RoomHandle, SeatGranted) {
        let creator = match request.color {
            SeatChoice::White => Color::White,
            SeatChoice::Black => Color::Black,
            SeatChoice::Random if secret::coin() => Color::White,
            SeatChoice::Random => Color::Black,
        };
        let (events, _) = broadcast::channel(rooms.event_buffer().max(1));
        let mut room = Room {
            id: id.clone(),
            visibility: request.visibility,
            game: Game::new(request.variant),
            seq: 0,
            seats: [Seat::default(), Seat::default()],
            spectators: HashSet::new(),
            events,
            summary: None,
            rooms,
        };
        let token = secret::token();
        room.seats[creator as usize].token = Some(token.clone());
        let (summary_tx, summary) = watch::channel(room.summary());
        room.summary = Some(summary_tx);
        let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
        let span = tracing::info_span!("room", id = %id);
        tokio::spawn(room.run(inbox).instrument(span));
        let granted = SeatGranted {
            room: id,
            color: creator,
            token,
        };
        (RoomHandle { commands, summary }, granted)
    }

    /// The room as the lobby shows it.
    pub(crate) fn summary(&self) -> RoomSummary {
        self.summary.borrow().clone()
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

    /// Gives out the free seat.
    pub(crate) async fn take_seat(&self) -> Result<Result<SeatGranted, ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::TakeSeat { reply }).await
    }

    /// Seats `conn` by token.
    pub(crate) async fn join(
        &self,
        conn: ConnId,
        token: String,
    ) -> Result<Result<Joined, ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::Join { conn, token, reply }).await
    }

    /// Adds `conn` as a spectator.
    pub(crate) async fn watch(&self, conn: ConnId) -> Result<Joined, RoomClosed> {
        self.ask(|reply| Command::Watch { conn, reply }).await
    }

    /// A fresh start for a member that fell behind.
    pub(crate) async fn resync(
        &self,
        conn: ConnId,
    ) -> Result<Result<Joined, ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::Resync { conn, reply }).await
    }

    /// Plays `turn` for the player on `conn`.
    pub(crate) async fn play(
        &self,
        conn: ConnId,
        turn: Turn,
    ) -> Result<Result<Seq, Refusal>, RoomClosed> {
        self.ask(|reply| Command::Play { conn, turn, reply }).await
    }

    /// The record, as JSON and as text.
    pub(crate) async fn record(&self) -> Result<(Record, String), RoomClosed> {
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

/// One seat.
#[derive(Debug, Default)]
struct Seat {
    /// The secret that plays this seat, once someone has taken it.
    token: Option<String>,
    /// The connection playing the seat now.
    holder: Option<Holder>,
    /// Whether anyone has joined on this seat yet: a later join is a reconnect.
    joined_before: bool,
}

/// The connection holding a seat.
#[derive(Debug)]
struct Holder {
    /// Which connection.
    conn: ConnId,
    /// Fired when another connection takes the seat over.
    replaced: oneshot::Sender<()>,
}

/// The state the actor owns.
struct Room {
    /// The room's id.
    id: String,
    /// Whether the lobby lists it.
    visibility: Visibility,
    /// The game: the only copy, changed only here.
    game: Game,
    /// Sequence number of the last event published.
    seq: Seq,
    /// White's and Black's seats, indexed by `Color as usize`.
    seats: [Seat; 2],
    /// Connections watching.
    spectators: HashSet<ConnId>,
    /// Where events are published.
    events: broadcast::Sender<Arc<Event>>,
    /// Where the summary is published (set once the room is built).
    summary: Option<watch::Sender<RoomSummary>>,
    /// The table the room leaves when it closes.
    rooms: Rooms,
}

impl Room {
    async fn run(mut self, mut inbox: mpsc::Receiver<Command>) {
        tracing::info!(variant = %self.game.variant(), "room opened");
        let idle_timeout = self.rooms.idle_timeout();
        loop {
            let empty = self.is_empty();
            let command = tokio::select! {
                command = inbox.recv() => command,
                () = tokio::time::sleep(idle_timeout), if empty => {
                    tracing::info!("nobody came for {idle_timeout:?}: closing");
                    self.rooms.remove(&self.id);
                    break;
                }
            };
            let Some(command) = command else {
                break;
            };
            self.handle(command);
            if let Some(summary) = &self.summary {
                summary.send_if_modified(|old| {
                    let new = self.summary();
                    let changed = *old != new;
                    *old = new;
                    changed
                });
            }
        }
        tracing::info!("room closed");
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::TakeSeat { reply } => {
                let _ = reply.send(self.take_seat());
            }
            Command::Join { conn, token, reply } => {
                let _ = reply.send(self.join(conn, &token));
            }
            Command::Watch { conn, reply } => {
                self.spectators.insert(conn);
                let count = self.spectators.len();
                self.publish(|seq| ServerMessage::Spectators { seq, count });
                let _ = reply.send(self.joined(Role::Spectator, None));
            }
            Command::Resync { conn, reply } => {
                let role = if self.spectators.contains(&conn) {
                    Ok(Role::Spectator)
                } else {
                    self.seat_of(conn)
                        .map(Role::player)
                        .ok_or(ErrorCode::SeatTakenOver)
                };
                let _ = reply.send(role.map(|role| self.joined(role, None)));
            }
            Command::Play { conn, turn, reply } => {
                let _ = reply.send(self.play(conn, turn));
            }
            Command::Leave { conn } => self.leave(conn),
            Command::Record { reply } => {
                let record = Record {
                    room: self.id.clone(),
                    variant: self.game.variant(),
                    turns: self.game.turns().to_vec(),
                    outcome: self.game.outcome(),
                };
                let _ = reply.send((record, self.game.record()));
            }
        }
    }

    fn take_seat(&mut self) -> Result<SeatGranted, ErrorCode> {
        let color = Color::ALL
            .into_iter()
            .find(|&c| self.seats[c as usize].token.is_none())
            .ok_or(ErrorCode::RoomFull)?;
        let token = secret::token();
        self.seats[color as usize].token = Some(token.clone());
        tracing::info!(%color, "seat taken");
        Ok(SeatGranted {
            room: self.id.clone(),
            color,
            token,
        })
    }

    fn join(&mut self, conn: ConnId, token: &str) -> Result<Joined, ErrorCode> {
        let color = Color::ALL
            .into_iter()
            .find(|&c| {
                self.seats[c as usize]
                    .token
                    .as_deref()
                    .is_some_and(|t| secret::same(t, token))
            })
            .ok_or(ErrorCode::BadToken)?;
        let (replaced, on_replaced) = oneshot::channel();
        let seat = &mut self.seats[color as usize];
        if let Some(old) = seat.holder.replace(Holder { conn, replaced }) {
            tracing::info!(%color, old = old.conn, new = conn, "seat taken over");
            let _ = old.replaced.send(());
        }
        let again = std::mem::replace(&mut seat.joined_before, true);
        self.publish(|seq| match again {
            true => ServerMessage::PlayerReconnected { seq, color },
            false => ServerMessage::PlayerJoined { seq, color },
        });
        Ok(self.joined(Role::player(color), Some(on_replaced)))
    }

    fn play(&mut self, conn: ConnId, turn: Turn) -> Result<Seq, Refusal> {
        let Some(color) = self.seat_of(conn) else {
            return Err(if self.spectators.contains(&conn) {
                Refusal::new(ErrorCode::NotAPlayer, "spectators cannot play")
            } else {
                Refusal::new(
                    ErrorCode::SeatTakenOver,
                    "another connection holds this seat now",
                )
            });
        };
        if !self.game.is_over() && self.game.to_move() != color {
            return Err(Refusal::new(
                ErrorCode::NotYourTurn,
                format!("it is {}'s turn", self.game.to_move()),
            ));
        }
        let outcome = self.game.play(turn).map_err(|illegal| Refusal {
            code: ErrorCode::IllegalTurn,
            rule: Some(illegal.code()),
            message: illegal.to_string(),
        })?;
        let turns = self.game.turns();
        let (turn, number, to_move) = (turns[turns.len() - 1], turns.len(), self.game.to_move());
        tracing::debug!(%turn, number, "turn played");
        let your_turn = outcome
            .is_none()
            .then(|| (to_move, self.game.legal_turns()));
        let seq = self.publish_with(
            |seq| ServerMessage::TurnPlayed {
                seq,
                turn,
                by: color,
                number,
                to_move,
            },
            your_turn,
        );
        if let Some(outcome) = outcome {
            tracing::info!(%outcome, "game over");
            self.publish(|seq| ServerMessage::GameOver { seq, outcome });
        }
        Ok(seq)
    }

    fn leave(&mut self, conn: ConnId) {
        if self.spectators.remove(&conn) {
            let count = self.spectators.len();
            self.publish(|seq| ServerMessage::Spectators { seq, count });
        } else if let Some(color) = self.seat_of(conn) {
            self.seats[color as usize].holder = None;
            self.publish(|seq| ServerMessage::PlayerLeft { seq, color });
        }
    }

    /// Whether nobody is connected to the room.
    fn is_empty(&self) -> bool {
        self.spectators.is_empty() && self.seats.iter().all(|seat| seat.holder.is_none())
    }

    /// The seat `conn` plays, if it holds one.
    fn seat_of(&self, conn: ConnId) -> Option<Color> {
        Color::ALL.into_iter().find(|&c| {
            self.seats[c as usize]
                .holder
                .as_ref()
                .is_some_and(|h| h.conn == conn)
        })
    }

    /// Publishes the next event; returns its sequence number.
    fn publish(&mut self, event: impl FnOnce(Seq) -> ServerMessage) -> Seq {
        self.publish_with(event, None)
    }

    /// Publishes the next event, with the legal turns for the player to move after it;
    /// returns its sequence number.
    fn publish_with(
        &mut self,
        event: impl FnOnce(Seq) -> ServerMessage,
        your_turn: Option<(Color, Vec<Turn>)>,
    ) -> Seq {
        self.seq += 1;
        let seq = self.seq;
        let event = Event {
            json: to_json(&event(seq)),
            your_turn: your_turn.map(|(color, legal_turns)| {
                (
                    color,
                    to_json(&ServerMessage::YourTurn { seq, legal_turns }),
                )
            }),
        };
        // No receiver is fine: nobody is in the room to hear it.
        let _ = self.events.send(Arc::new(event));
        seq
    }

    /// What a member gets on entering: a snapshot and the events after it.
    fn joined(&self, role: Role, replaced: Option<oneshot::Receiver<()>>) -> Joined {
        Joined {
            role,
            snapshot: self.snapshot(role),
            events: self.events.subscribe(),
            replaced,
        }
    }

    fn snapshot(&self, role: Role) -> RoomSnapshot {
        let position = self.game.position();
        let to_move = self.game.to_move();
        let legal_turns = (role.color() == Some(to_move) && !self.game.is_over())
            .then(|| self.game.legal_turns());
        RoomSnapshot {
            room: self.id.clone(),
            seq: self.seq,
            variant: self.game.variant(),
            players: self.seats(),
            to_move,
            board: StackView::all(position),
            reserves: Reserves::of(position),
            turns: self.game.turns().to_vec(),
            outcome: self.game.outcome(),
            spectators: self.spectators.len(),
            legal_turns,
        }
    }

    fn seats(&self) -> Seats {
        let view = |seat: &Seat| SeatView {
            taken: seat.token.is_some(),
            connected: seat.holder.is_some(),
        };
        Seats {
            white: view(&self.seats[0]),
            black: view(&self.seats[1]),
        }
    }

    fn summary(&self) -> RoomSummary {
        let players = self.seats();
        let status = if self.game.is_over() {
            RoomStatus::Over
        } else if players.white.taken && players.black.taken {
            RoomStatus::Live
        } else {
            RoomStatus::Open
        };
        RoomSummary {
            room: self.id.clone(),
            variant: self.game.variant(),
            visibility: self.visibility,
            status,
            players,
            spectators: self.spectators.len(),
            turns: self.game.turns().len(),
            to_move: self.game.to_move(),
            outcome: self.game.outcome(),
        }
    }
}

fn to_json(message: &ServerMessage) -> String {
    serde_json::to_string(message).expect("server messages serialise")
}
