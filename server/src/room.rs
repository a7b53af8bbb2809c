//! A room: one game, its two seats and its spectators, owned by one task.
//!
//! The task (the actor) is the only place where a turn is accepted: connections and HTTP
//! handlers send it [`Command`]s and it answers each on a oneshot channel, then publishes
//! what happened as an [`Event`] on a broadcast channel that every member of the room
//! reads at its own pace. The actor never waits for a connection, so a slow member can
//! only fall behind, never hold the room up.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use punct_protocol::{
    ErrorCode, Record, Reserves, Role, RoomSnapshot, RoomStatus, RoomSummary, SeatGranted,
    SeatView, Seats, Seq, ServerMessage, StackView, TimeControl, Visibility,
};
use punct_rules::{Color, DrawReason, Game, IllegalTurn, Outcome, Turn, Variant, WinReason};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;
use tracing::Instrument;

use crate::clock::Clock;
use crate::computer::{self, Computer, Thinking};
use crate::rooms::Rooms;
use crate::secret;
use crate::store::{StoredRoom, TokenHash, hash_token};

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
    /// Play a turn for the player seated on `conn`.
    Play {
        /// The connection asking: only the holder of the side to move may play.
        conn: ConnId,
        /// The turn.
        turn: Turn,
        /// Gets the sequence number of the turn's event, or why it was refused.
        reply: oneshot::Sender<Result<Seq, Refusal>>,
    },
    /// Resign or offer, accept or decline a draw, for the player seated on `conn`.
    Act {
        /// The connection asking.
        conn: ConnId,
        /// What it does.
        act: Act,
        /// Gets the sequence number of the event it caused, or why it was refused.
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

/// What a player may do besides playing turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Act {
    /// Give up: the opponent wins.
    Resign,
    /// Offer the opponent a draw.
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline the opponent's draw offer.
    DeclineDraw,
    /// Claim the win from an opponent away longer than the grace period.
    ClaimWin,
    /// After the game: ask for a rematch with colours swapped.
    Rematch,
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
    /// For a player: fires when another connection takes over the seat.
    pub(crate) replaced: Option<oneshot::Receiver<()>>,
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
    /// The room as it stands after event `seq` of the snapshot (boxed: it is large, and
    /// `Resumed` small).
    Snapshot(Box<RoomSnapshot>),
    /// The member saw every event up to `since`; here are those after it.
    Resumed {
        /// The last event the member saw.
        since: Seq,
        /// The events after it, in order.
        missed: Vec<Arc<Event>>,
        /// A `your_turn` to send after them, for a player to move whose list none of
        /// them brings.
        your_turn: Option<String>,
        /// Both seats now.
        players: Seats,
        /// Spectators now.
        spectators: usize,
    },
}

/// A room event, serialised once for every member.
#[derive(Debug)]
pub(crate) struct Event {
    /// Its sequence number.
    pub(crate) seq: Seq,
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

    fn illegal(illegal: IllegalTurn) -> Refusal {
        Refusal {
            code: ErrorCode::IllegalTurn,
            rule: Some(illegal.code()),
            message: illegal.to_string(),
        }
    }

    fn storage(e: &crate::store::StoreError) -> Refusal {
        tracing::error!("{e}");
        Refusal::new(
            ErrorCode::StorageFailed,
            "the server could not store this; nothing changed, try again",
        )
    }
}

/// The room's side of the command channel is gone: the room has closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoomClosed;

impl RoomHandle {
    /// Starts the actor of `room`, a room of the table `rooms`.
    pub(crate) fn spawn(room: Setup, rooms: Rooms) -> RoomHandle {
        let (events, _) = broadcast::channel(rooms.event_buffer().max(1));
        let Setup {
            id,
            visibility,
            seats,
            incarnation,
            game,
            ending,
            clock,
            computer,
        } = room;
        let computer = computer.and_then(|(color, level)| Computer::new(color, level));
        let mut room = Room {
            id: id.clone(),
            visibility,
            game,
            ending,
            draw_offer: None,
            rematch_offer: None,
            rematch: None,
            seq: Seq::from(incarnation) << 32,
            seats: Color::ALL.map(|color| {
                let token = seats[color as usize];
                let engine = computer.as_ref().is_some_and(|c| c.color == color);
                Seat {
                    token,
                    // A seat given out but not joined yet counts as away; the computer
                    // is never away.
                    away: token.filter(|_| !engine).map(|_| Instant::now()),
                    ..Seat::default()
                }
            }),
            computer,
            thinking: None,
            clock,
            spectators: HashSet::new(),
            events,
            recent: VecDeque::new(),
            summary: None,
            rooms,
        };
        let (summary_tx, summary) = watch::channel(room.summary());
        room.summary = Some(summary_tx);
        let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
        let span = tracing::info_span!("room", room = %id);
        tokio::spawn(room.run(inbox).instrument(span));
        RoomHandle { commands, summary }
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

    /// Seats `conn` by token; `since` is the last event it saw, if it comes back;
    /// `lists` whether it wants the legal turns when it is to move.
    pub(crate) async fn join(
        &self,
        conn: ConnId,
        token: String,
        since: Option<Seq>,
        lists: bool,
    ) -> Result<Result<Joined, ErrorCode>, RoomClosed> {
        self.ask(|reply| Command::Join {
            conn,
            token,
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

    /// Plays `turn` for the player on `conn`.
    pub(crate) async fn play(
        &self,
        conn: ConnId,
        turn: Turn,
    ) -> Result<Result<Seq, Refusal>, RoomClosed> {
        self.ask(|reply| Command::Play { conn, turn, reply }).await
    }

    /// Resigns or offers, accepts or declines a draw for the player on `conn`.
    pub(crate) async fn act(
        &self,
        conn: ConnId,
        act: Act,
    ) -> Result<Result<Seq, Refusal>, RoomClosed> {
        self.ask(|reply| Command::Act { conn, act, reply }).await
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

/// What a room's actor starts from: a new room, or one loaded from the store.
#[derive(Debug)]
pub(crate) struct Setup {
    /// The room's id.
    pub(crate) id: String,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// White's and Black's token hashes, for the seats given out.
    pub(crate) seats: [Option<TokenHash>; 2],
    /// How many times the room has been loaded: the high half of its sequence numbers,
    /// so that numbers never repeat across restarts.
    pub(crate) incarnation: u32,
    /// The game so far.
    pub(crate) game: Game,
    /// How the game ended, if it ended off the board.
    pub(crate) ending: Option<Outcome>,
    /// The clocks, in a timed game.
    pub(crate) clock: Option<Clock>,
    /// The seat the server's engine plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

impl Setup {
    /// A new room whose creator holds the seat of `creator`.
    pub(crate) fn new(
        id: String,
        variant: Variant,
        visibility: Visibility,
        control: Option<TimeControl>,
        creator: Color,
        token: TokenHash,
    ) -> Setup {
        let mut seats = [None; 2];
        seats[creator as usize] = Some(token);
        Setup {
            id,
            visibility,
            seats,
            incarnation: 0,
            game: Game::new(variant),
            ending: None,
            clock: control.map(Clock::new),
            computer: None,
        }
    }

    /// A room loaded from the store, its game rebuilt by replaying its turns.
    pub(crate) fn stored(id: String, room: StoredRoom) -> Result<Setup, String> {
        let mut game = Game::new(room.variant);
        for (number, &turn) in room.turns.iter().enumerate() {
            game.play(turn)
                .map_err(|e| format!("stored turn {} ({turn}) is illegal: {e}", number + 1))?;
        }
        let off_the_board = |outcome: &Outcome| {
            matches!(
                outcome,
                Outcome::Win {
                    reason: WinReason::Resignation,
                    ..
                } | Outcome::Win {
                    reason: WinReason::Time | WinReason::Abandonment,
                    ..
                } | Outcome::Draw {
                    reason: DrawReason::Agreement
                }
            )
        };
        let over = room.outcome.is_some();
        let clock = room.clock.map(|control| {
            let mut clock = Clock::resumed(control, room.clocks_left, game.to_move());
            if over {
                clock.stop(Instant::now());
            }
            clock
        });
        Ok(Setup {
            id,
            visibility: room.visibility,
            seats: room.seats,
            incarnation: room.incarnation,
            game,
            ending: room.outcome.filter(off_the_board),
            clock,
            computer: room.computer,
        })
    }
}

/// One seat.
#[derive(Debug, Default)]
struct Seat {
    /// The hash of the secret that plays this seat, once someone has taken it.
    token: Option<TokenHash>,
    /// The connection playing the seat now.
    holder: Option<Holder>,
    /// Whether anyone has joined on this seat yet: a later join is a reconnect.
    joined_before: bool,
    /// Since when the seat's player has been away (given out, not connected).
    away: Option<Instant>,
}

/// The connection holding a seat.
#[derive(Debug)]
struct Holder {
    /// Which connection.
    conn: ConnId,
    /// Whether it wants the legal turns when it is to move.
    lists: bool,
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
    /// The result when the game ended off the board (resignation, agreement).
    ending: Option<Outcome>,
    /// The player whose draw offer stands.
    draw_offer: Option<Color>,
    /// After the game: the player whose rematch request stands.
    rematch_offer: Option<Color>,
    /// The rematch's room, once made.
    rematch: Option<String>,
    /// The clocks, in a timed game.
    clock: Option<Clock>,
    /// Sequence number of the last event published.
    seq: Seq,
    /// White's and Black's seats, indexed by `Color as usize`.
    seats: [Seat; 2],
    /// Connections watching.
    spectators: HashSet<ConnId>,
    /// Where events are published.
    events: broadcast::Sender<Arc<Event>>,
    /// The latest events, for members that come back (as many as the broadcast keeps).
    recent: VecDeque<Arc<Event>>,
    /// Where the summary is published (set once the room is built).
    summary: Option<watch::Sender<RoomSummary>>,
    /// The table the room leaves when it closes.
    rooms: Rooms,
    /// The seat the server's engine plays, if any.
    computer: Option<Computer>,
    /// The engine's search for its next turn, while it runs.
    thinking: Option<Thinking>,
}

impl Room {
    async fn run(mut self, mut inbox: mpsc::Receiver<Command>) {
        tracing::info!(variant = %self.game.variant(), turns = self.game.turns().len(), "room opened");
        let idle_timeout = self.rooms.idle_timeout();
        loop {
            self.think_if_due();
            let empty = self.is_empty();
            let flag_falls = self
                .clock
                .as_ref()
                .and_then(Clock::deadline)
                .filter(|_| self.outcome().is_none());
            let wake = tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => Wake::Command(command),
                    None => break,
                },
                () = sleep_until(flag_falls), if flag_falls.is_some() => Wake::FlagFell,
                turn = chosen(&mut self.thinking) => Wake::Chosen(turn),
                () = tokio::time::sleep(idle_timeout), if empty => {
                    tracing::info!("nobody came for {idle_timeout:?}: closing");
                    self.rooms.remove(&self.id);
                    break;
                }
            };
            match wake {
                Wake::Command(command) => self.handle(command).await,
                Wake::FlagFell => self.time_out().await,
                Wake::Chosen(turn) => self.computer_plays(turn).await,
            }
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

    async fn handle(&mut self, command: Command) {
        match command {
            Command::TakeSeat { reply } => {
                let _ = reply.send(self.take_seat().await);
            }
            Command::Join {
                conn,
                token,
                since,
                lists,
                reply,
            } => {
                let _ = reply.send(self.join(conn, &token, since, lists));
            }
            Command::Watch { conn, since, reply } => {
                self.spectators.insert(conn);
                let count = self.spectators.len();
                self.notify(&ServerMessage::Spectators { count });
                let _ = reply.send(self.joined(Role::Spectator, since, None));
            }
            Command::Resync { conn, reply } => {
                let role = if self.spectators.contains(&conn) {
                    Ok(Role::Spectator)
                } else {
                    self.seat_of(conn)
                        .map(Role::player)
                        .ok_or(ErrorCode::SeatTakenOver)
                };
                let _ = reply.send(role.map(|role| Resynced {
                    role,
                    snapshot: Box::new(self.snapshot(role)),
                    events: self.events.subscribe(),
                }));
            }
            Command::Play { conn, turn, reply } => {
                let played = self.play(conn, turn).await;
                let refused = played.as_ref().err().map(|refusal| refusal.code);
                self.rooms.metrics().turn(refused);
                let _ = reply.send(played);
            }
            Command::Act { conn, act, reply } => {
                let _ = reply.send(self.act(conn, act).await);
            }
            Command::Leave { conn } => self.leave(conn),
            Command::Record { reply } => {
                let record = Record {
                    room: self.id.clone(),
                    variant: self.game.variant(),
                    turns: self.game.turns().to_vec(),
                    outcome: self.outcome(),
                };
                let _ = reply.send((record, self.game.record()));
            }
        }
    }

    /// Ends the game if the running clock has run out.
    async fn time_out(&mut self) {
        let now = Instant::now();
        if let Some(loser) = self.clock.as_ref().and_then(|c| c.flagged(now)) {
            let outcome = Outcome::Win {
                winner: loser.opponent(),
                reason: WinReason::Time,
            };
            // If it cannot be stored, the flag falls again at the next request.
            let _ = self.end(outcome).await;
        }
    }

    /// The result, once the game is over on the board or off it.
    fn outcome(&self) -> Option<Outcome> {
        self.ending.or(self.game.outcome())
    }

    async fn take_seat(&mut self) -> Result<SeatGranted, ErrorCode> {
        let color = Color::ALL
            .into_iter()
            .find(|&c| self.seats[c as usize].token.is_none())
            .ok_or(ErrorCode::RoomFull)?;
        let token = secret::token();
        let hash = hash_token(&token);
        self.rooms
            .store()
            .take_seat(&self.id, color, hash)
            .await
            .map_err(|e| Refusal::storage(&e).code)?;
        self.seats[color as usize].token = Some(hash);
        tracing::info!(%color, "seat taken");
        Ok(SeatGranted {
            room: self.id.clone(),
            color,
            token,
        })
    }

    fn join(
        &mut self,
        conn: ConnId,
        token: &str,
        since: Option<Seq>,
        lists: bool,
    ) -> Result<Joined, ErrorCode> {
        let presented = hash_token(token);
        let color = Color::ALL
            .into_iter()
            .find(|&c| {
                self.seats[c as usize]
                    .token
                    .is_some_and(|t| secret::same(&t, &presented))
            })
            .ok_or(ErrorCode::BadToken)?;
        let (replaced, on_replaced) = oneshot::channel();
        let seat = &mut self.seats[color as usize];
        seat.away = None;
        if let Some(old) = seat.holder.replace(Holder {
            conn,
            lists,
            replaced,
        }) {
            tracing::info!(%color, old = old.conn, new = conn, "seat taken over");
            let _ = old.replaced.send(());
        }
        let again = std::mem::replace(&mut seat.joined_before, true);
        self.notify(&match again {
            true => ServerMessage::PlayerReconnected { color },
            false => ServerMessage::PlayerJoined { color },
        });
        Ok(self.joined(Role::player(color), since, Some(on_replaced)))
    }

    /// The seat of the player on `conn`, or why `conn` may not act.
    fn player(&self, conn: ConnId) -> Result<Color, Refusal> {
        self.seat_of(conn).ok_or_else(|| {
            if self.spectators.contains(&conn) {
                Refusal::new(ErrorCode::NotAPlayer, "spectators cannot act in the game")
            } else {
                Refusal::new(
                    ErrorCode::SeatTakenOver,
                    "another connection holds this seat now",
                )
            }
        })
    }

    async fn play(&mut self, conn: ConnId, turn: Turn) -> Result<Seq, Refusal> {
        let color = self.player(conn)?;
        self.play_as(color, turn).await
    }

    /// Starts the computer thinking if it is to move and is not thinking yet; stops it
    /// once the game is over.
    fn think_if_due(&mut self) {
        let Some(computer) = &self.computer else {
            return;
        };
        if self.outcome().is_some() {
            self.thinking = None;
        } else if self.thinking.is_none() && self.game.to_move() == computer.color {
            let think_time = self.rooms.computer_think_time();
            let budget = computer::budget(
                think_time,
                self.clock.as_ref(),
                computer.color,
                Instant::now(),
            );
            self.thinking = Some(computer.think(&self.game, budget));
        }
    }

    /// Plays the turn the computer chose, as a player's turn is played.
    async fn computer_plays(&mut self, turn: Option<Turn>) {
        self.thinking = None;
        let (Some(computer), Some(turn)) = (&self.computer, turn) else {
            return;
        };
        let played = self.play_as(computer.color, turn).await;
        self.rooms
            .metrics()
            .turn(played.as_ref().err().map(|refusal| refusal.code));
        if let Err(refusal) = played {
            // Only a storage failure can refuse it: it is tried again, as a person would.
            tracing::error!(%turn, code = %refusal.code, "the computer's turn was refused");
        }
    }

    /// Plays `turn` for the player of `color`.
    async fn play_as(&mut self, color: Color, turn: Turn) -> Result<Seq, Refusal> {
        self.time_out().await;
        if self.outcome().is_some() {
            return Err(Refusal::illegal(IllegalTurn::GameOver));
        }
        if self.game.to_move() != color {
            return Err(Refusal::new(
                ErrorCode::NotYourTurn,
                format!("it is {}'s turn", self.game.to_move()),
            ));
        }
        // The turn is applied to a copy and stored; only then does it count.
        let mut next = self.game.clone();
        let outcome = next.play(turn).map_err(Refusal::illegal)?;
        let number = next.turns().len();
        let now = Instant::now();
        let clock = self.clock.clone().map(|mut clock| {
            clock.punch(color, now);
            if outcome.is_some() {
                clock.stop(now);
            }
            clock
        });
        let left = clock.as_ref().map(|c| c.left_ms(now));
        self.rooms
            .store()
            .turn(&self.id, number, turn, left, outcome)
            .await
            .map_err(|e| Refusal::storage(&e))?;
        self.game = next;
        self.clock = clock;
        if self.draw_offer == Some(color) {
            // An offer lapses when its maker plays on.
            self.draw_offer = None;
        }
        let to_move = self.game.to_move();
        tracing::debug!(%turn, number, "turn played");
        // Nobody to send the list to, or a client that finds the turns itself: skip the
        // largest cost of a turn. A player who comes back gets the list then.
        let your_turn = (outcome.is_none() && self.wants_lists(Role::player(to_move)))
            .then(|| (to_move, self.game.legal_turns()));
        let clock = self.clock.as_ref().map(|c| c.view(now));
        self.forget_legal_turns();
        let seq = self.publish_with(
            |seq| ServerMessage::TurnPlayed {
                seq,
                turn,
                by: color,
                number,
                to_move,
                clock,
            },
            your_turn,
        );
        if let Some(outcome) = outcome {
            tracing::info!(%outcome, "game over");
            self.publish(|seq| ServerMessage::GameOver { seq, outcome });
        }
        Ok(seq)
    }

    async fn act(&mut self, conn: ConnId, act: Act) -> Result<Seq, Refusal> {
        let color = self.player(conn)?;
        let offer_from_opponent = self.draw_offer == Some(color.opponent());
        match act {
            Act::Rematch => self.rematch(color).await,
            _ if self.outcome().is_some() => {
                Err(Refusal::new(ErrorCode::GameOver, "the game is over"))
            }
            Act::Resign => {
                let outcome = Outcome::Win {
                    winner: color.opponent(),
                    reason: WinReason::Resignation,
                };
                self.end(outcome).await
            }
            Act::OfferDraw if self.draw_offer.is_some() => Err(Refusal::new(
                ErrorCode::NoDrawOffer,
                "a draw offer stands already",
            )),
            Act::OfferDraw => {
                self.draw_offer = Some(color);
                let seq = self.publish(|seq| ServerMessage::DrawOffered { seq, by: color });
                if let Some(computer) = self.computer.as_ref().map(|c| c.color) {
                    // The engine plays every game out.
                    self.draw_offer = None;
                    self.publish(|seq| ServerMessage::DrawDeclined { seq, by: computer });
                }
                Ok(seq)
            }
            Act::AcceptDraw | Act::DeclineDraw if !offer_from_opponent => Err(Refusal::new(
                ErrorCode::NoDrawOffer,
                "the opponent has no draw offer standing",
            )),
            Act::AcceptDraw => {
                let outcome = Outcome::Draw {
                    reason: DrawReason::Agreement,
                };
                self.end(outcome).await
            }
            Act::DeclineDraw => {
                self.draw_offer = None;
                Ok(self.publish(|seq| ServerMessage::DrawDeclined { seq, by: color }))
            }
            Act::ClaimWin => match self.claim_in(color.opponent()) {
                Some(Duration::ZERO) => {
                    let outcome = Outcome::Win {
                        winner: color,
                        reason: WinReason::Abandonment,
                    };
                    self.end(outcome).await
                }
                Some(left) => Err(Refusal::new(
                    ErrorCode::NotClaimable,
                    format!(
                        "the opponent may still come back for {} s",
                        left.as_millis().div_ceil(1000)
                    ),
                )),
                None => Err(Refusal::new(
                    ErrorCode::NotClaimable,
                    "the opponent is connected",
                )),
            },
        }
    }

    /// After the game: `color`'s player asks for a rematch; once both have, it is made in
    /// a new room like this one, where each player's token holds the other colour.
    async fn rematch(&mut self, color: Color) -> Result<Seq, Refusal> {
        let unavailable = |why: &str| Err(Refusal::new(ErrorCode::RematchUnavailable, why));
        if self.outcome().is_none() {
            return unavailable("the game is not over");
        }
        if self.rematch.is_some() {
            return unavailable("the rematch has been made");
        }
        match self.rematch_offer {
            Some(asked) if asked == color => {
                return unavailable("your request stands; the opponent has not asked yet");
            }
            Some(_) => {}
            None => {
                self.rematch_offer = Some(color);
                let seq = self.publish(|seq| ServerMessage::RematchOffered { seq, by: color });
                return match self.computer.as_ref().map(|c| c.color) {
                    // The computer always takes a rematch.
                    Some(computer) => Box::pin(self.rematch(computer)).await.map(|_| seq),
                    None => Ok(seq),
                };
            }
        }
        let [white, black] = self.seats.each_ref().map(|seat| seat.token);
        let computer = self.computer.as_ref();
        // Colours swap; the computer's seat gets a fresh token in the new room.
        let mut seats = [black, white];
        if let Some(computer) = computer {
            seats[computer.color.opponent() as usize] = None;
        }
        let room = self
            .rooms
            .open(
                self.game.variant(),
                self.visibility,
                self.clock.as_ref().map(Clock::control),
                seats,
                computer.map(|c| (c.color.opponent(), c.level)),
            )
            .await
            .map_err(|code| Refusal::new(code, "the rematch could not be made; try again"))?;
        tracing::info!(rematch = %room, "rematch made");
        self.rematch_offer = None;
        self.rematch = Some(room.clone());
        Ok(self.publish(|seq| ServerMessage::Rematch { seq, room }))
    }

    /// While the game goes on and `color`'s player is away: the time until the opponent
    /// may claim the win.
    fn claim_in(&self, color: Color) -> Option<Duration> {
        let away = self.seats[color as usize].away?;
        let grace = self.rooms.grace_period();
        self.outcome()
            .is_none()
            .then(|| grace.saturating_sub(away.elapsed()))
    }

    /// Ends the game off the board: stores the result, then announces it.
    async fn end(&mut self, outcome: Outcome) -> Result<Seq, Refusal> {
        self.rooms
            .store()
            .finish(&self.id, outcome)
            .await
            .map_err(|e| Refusal::storage(&e))?;
        self.ending = Some(outcome);
        self.draw_offer = None;
        if let Some(clock) = &mut self.clock {
            clock.stop(Instant::now());
        }
        tracing::info!(%outcome, "game over");
        Ok(self.publish(|seq| ServerMessage::GameOver { seq, outcome }))
    }

    fn leave(&mut self, conn: ConnId) {
        if self.spectators.remove(&conn) {
            let count = self.spectators.len();
            self.notify(&ServerMessage::Spectators { count });
        } else if let Some(color) = self.seat_of(conn) {
            let seat = &mut self.seats[color as usize];
            seat.holder = None;
            seat.away = Some(Instant::now());
            let claim_in_ms = self.claim_in(color).map(millis);
            self.notify(&ServerMessage::PlayerLeft { color, claim_in_ms });
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

    /// Drops the list of legal turns from the replay buffer once a turn makes it stale:
    /// only the latest is still true, and each is tens of KiB.
    fn forget_legal_turns(&mut self) {
        if let Some(stale) = self.recent.iter_mut().rev().find(|e| e.your_turn.is_some()) {
            *stale = Arc::new(Event {
                seq: stale.seq,
                json: stale.json.clone(),
                your_turn: None,
            });
        }
    }

    /// Tells every member about presence: not a room event, so it takes no sequence
    /// number and is not kept for members coming back.
    fn notify(&self, message: &ServerMessage) {
        let event = Arc::new(Event {
            seq: self.seq,
            json: to_json(message),
            your_turn: None,
        });
        // No receiver is fine: nobody is in the room to hear it.
        let _ = self.events.send(event);
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
        let event = Arc::new(Event {
            seq,
            json: to_json(&event(seq)),
            your_turn: your_turn.map(|(color, legal_turns)| {
                (
                    color,
                    to_json(&ServerMessage::YourTurn { seq, legal_turns }),
                )
            }),
        });
        if self.recent.len() == self.rooms.event_buffer() {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::clone(&event));
        // No receiver is fine: nobody is in the room to hear it.
        let _ = self.events.send(event);
        seq
    }

    /// What a member gets on entering: the events it missed since `since` if they are
    /// all still kept, a snapshot otherwise; then the events after it.
    fn joined(
        &self,
        role: Role,
        since: Option<Seq>,
        replaced: Option<oneshot::Receiver<()>>,
    ) -> Joined {
        let start = match since.and_then(|since| self.missed_since(since)) {
            Some((since, missed)) => {
                // The list after the last turn, if the player is to move and none of the
                // missed events brings it (it was not made while they were away).
                let to_move = self.game.to_move();
                let brought = missed
                    .iter()
                    .any(|e| e.your_turn.as_ref().is_some_and(|(c, _)| *c == to_move));
                let your_turn = (role.color() == Some(to_move)
                    && self.outcome().is_none()
                    && self.wants_lists(role)
                    && !brought)
                    .then(|| {
                        let legal_turns = self.game.legal_turns();
                        let seq = self.seq;
                        to_json(&ServerMessage::YourTurn { seq, legal_turns })
                    });
                Start::Resumed {
                    since,
                    missed,
                    your_turn,
                    players: self.seats(),
                    spectators: self.spectators.len(),
                }
            }
            None => Start::Snapshot(Box::new(self.snapshot(role))),
        };
        Joined {
            role,
            start,
            events: self.events.subscribe(),
            replaced,
        }
    }

    /// The events after `since`, if `since` is one of this room's and every event after
    /// it is still kept.
    fn missed_since(&self, since: Seq) -> Option<(Seq, Vec<Arc<Event>>)> {
        // Numbers from another incarnation (before a restart) cannot be resumed from.
        let incarnation_start = self.seq & !u64::from(u32::MAX);
        if since > self.seq || since < incarnation_start {
            return None;
        }
        let oldest_kept = self.recent.front().map_or(self.seq + 1, |e| e.seq);
        if since + 1 < oldest_kept {
            return None;
        }
        let missed = self
            .recent
            .iter()
            .filter(|e| e.seq > since)
            .cloned()
            .collect();
        Some((since, missed))
    }

    /// Whether `role` is a seated player whose connection wants the legal turns.
    fn wants_lists(&self, role: Role) -> bool {
        role.color().is_some_and(|color| {
            self.seats[color as usize]
                .holder
                .as_ref()
                .is_some_and(|h| h.lists)
        })
    }

    fn snapshot(&self, role: Role) -> RoomSnapshot {
        let position = self.game.position();
        let to_move = self.game.to_move();
        let legal_turns =
            (role.color() == Some(to_move) && self.outcome().is_none() && self.wants_lists(role))
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
            outcome: self.outcome(),
            spectators: self.spectators.len(),
            clock: self.clock.as_ref().map(|c| c.view(Instant::now())),
            draw_offer: self.draw_offer,
            rematch_offer: self.rematch_offer,
            rematch: self.rematch.clone(),
            legal_turns,
        }
    }

    fn seats(&self) -> Seats {
        let view = |color: Color| {
            let seat = &self.seats[color as usize];
            let computer = self.computer.as_ref().filter(|c| c.color == color);
            SeatView {
                taken: seat.token.is_some(),
                connected: seat.holder.is_some() || computer.is_some(),
                claim_in_ms: self.claim_in(color).map(millis),
                computer: computer.map(|c| c.level),
            }
        };
        Seats {
            white: view(Color::White),
            black: view(Color::Black),
        }
    }

    fn summary(&self) -> RoomSummary {
        let players = self.seats();
        let status = if self.outcome().is_some() {
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
            outcome: self.outcome(),
        }
    }
}

/// Sleeps until `deadline`, or forever without one.
/// What woke a room's actor.
enum Wake {
    /// A request.
    Command(Command),
    /// The running clock ran out.
    FlagFell,
    /// The computer chose its turn.
    Chosen(Option<Turn>),
}

/// The computer's turn once it has chosen; never while it is not thinking.
async fn chosen(thinking: &mut Option<Thinking>) -> Option<Turn> {
    match thinking {
        Some(thinking) => thinking.answer().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn to_json(message: &ServerMessage) -> String {
    serde_json::to_string(message).expect("server messages serialise")
}

#[cfg(test)]
mod tests {
    use punct_protocol::{CreateRoom, SeatChoice};

    use super::*;
    use crate::Config;
    use crate::store::Store;

    /// White (connection 1) and Black (connection 2) seated in a new room.
    async fn table(clock: Option<TimeControl>) -> (Rooms, RoomHandle) {
        let (rooms, room, _) = table_with_tokens(clock).await;
        (rooms, room)
    }

    /// As [`table`], with White's and Black's seat tokens.
    async fn table_with_tokens(clock: Option<TimeControl>) -> (Rooms, RoomHandle, [String; 2]) {
        let rooms = Rooms::new(&Config::default(), Store::open(None).unwrap());
        let request = CreateRoom {
            color: SeatChoice::White,
            clock,
            ..CreateRoom::default()
        };
        let white = rooms.create(request).await.unwrap();
        let room = rooms.get(&white.room).await.unwrap();
        let black = room.take_seat().await.unwrap().unwrap();
        room.join(1, white.token.clone(), None, true)
            .await
            .unwrap()
            .unwrap();
        room.join(2, black.token.clone(), None, true)
            .await
            .unwrap()
            .unwrap();
        (rooms, room, [white.token, black.token])
    }

    fn turn(text: &str) -> Turn {
        text.parse().unwrap()
    }

    /// The seats as a snapshot shows them now.
    async fn seats(room: &RoomHandle) -> Seats {
        match room.watch(99, None).await.unwrap().start {
            Start::Snapshot(snapshot) => snapshot.players,
            Start::Resumed { .. } => unreachable!("no `since` was given"),
        }
    }

    async fn outcome(room: &RoomHandle) -> Option<Outcome> {
        room.record().await.unwrap().0.outcome
    }

    #[tokio::test]
    async fn a_member_coming_back_gets_only_the_latest_legal_turns() {
        let (_rooms, room) = table(None).await;
        let since = match room.watch(3, None).await.unwrap().start {
            Start::Snapshot(snapshot) => snapshot.seq,
            Start::Resumed { .. } => unreachable!("no `since` was given"),
        };
        for (conn, text) in [(1, "C4:C5,D5"), (2, "F5:F6,G6"), (1, "C6:C7,D7")] {
            room.play(conn, turn(text)).await.unwrap().unwrap();
        }
        let Start::Resumed { missed, .. } = room.watch(4, Some(since)).await.unwrap().start else {
            panic!("the events are all kept");
        };
        let lists: Vec<Color> = missed
            .iter()
            .filter_map(|e| e.your_turn.as_ref())
            .map(|(c, _)| *c)
            .collect();
        assert_eq!(
            lists,
            [Color::Black],
            "only the list after the last turn is still true"
        );
        assert_eq!(
            missed
                .iter()
                .filter(|e| e.json.contains("turn_played"))
                .count(),
            3
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_player_whose_time_runs_out_loses() {
        let control = TimeControl {
            base: 60,
            increment: 5,
        };
        let (_rooms, room) = table(Some(control)).await;
        let mut events = room.watch(3, None).await.unwrap().events;
        // White's first turn is free; then Black's minute runs.
        tokio::time::sleep(Duration::from_secs(100)).await;
        room.play(1, turn("C4:C5,D5")).await.unwrap().unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
        room.play(2, turn("F5:F6,G6")).await.unwrap().unwrap();
        // White has the full minute (no increment for the free turn): 59 s pass safely.
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert_eq!(outcome(&room).await, None);
        let Start::Snapshot(snapshot) = room.watch(4, None).await.unwrap().start else {
            panic!("a snapshot");
        };
        let clock = snapshot.clock.unwrap();
        assert_eq!((clock.white_ms, clock.black_ms), (1_000, 35_000));
        assert_eq!(clock.running, Some(Color::White));
        tokio::time::sleep(Duration::from_secs(2)).await;
        let lost = Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Time,
        };
        assert_eq!(outcome(&room).await, Some(lost));
        // Everyone was told; no turn comes after.
        let told = loop {
            let event = events.recv().await.unwrap();
            if event.json.contains("game_over") {
                break event;
            }
        };
        assert!(told.json.contains(r#""reason":"time""#), "{}", told.json);
        let refused = room.play(1, turn("C6:C7,D7")).await.unwrap().unwrap_err();
        assert_eq!(refused.rule, Some("game-over"));
    }

    #[tokio::test(start_paused = true)]
    async fn the_win_can_be_claimed_only_after_the_grace_period() {
        let (rooms, room) = table(None).await;
        let grace = rooms.grace_period();
        let claim = |conn| room.act(conn, Act::ClaimWin);
        assert_eq!(
            claim(2).await.unwrap().unwrap_err().code,
            ErrorCode::NotClaimable,
            "White is connected"
        );
        room.leave(1);
        tokio::time::sleep(grace - Duration::from_secs(1)).await;
        let early = claim(2).await.unwrap().unwrap_err();
        assert_eq!(early.code, ErrorCode::NotClaimable);
        assert!(early.message.contains("1 s"), "{}", early.message);
        // The room says how long is left.
        assert_eq!(room.summary().players.white.claim_in_ms, Some(1_000));
        tokio::time::sleep(Duration::from_secs(1)).await;
        claim(2).await.unwrap().unwrap();
        assert_eq!(
            outcome(&room).await,
            Some(Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Abandonment
            })
        );
    }

    #[tokio::test(start_paused = true)]
    async fn coming_back_within_the_grace_period_keeps_the_game() {
        let (rooms, room, [white, _]) = table_with_tokens(None).await;
        room.leave(1);
        tokio::time::sleep(rooms.grace_period() / 2).await;
        let left = seats(&room).await.white.claim_in_ms;
        assert_eq!(left, Some(millis(rooms.grace_period() / 2)));
        room.join(11, white, None, true).await.unwrap().unwrap();
        assert_eq!(seats(&room).await.white.claim_in_ms, None);
        tokio::time::sleep(rooms.grace_period() * 2).await;
        let refused = room.act(2, Act::ClaimWin).await.unwrap().unwrap_err();
        assert_eq!(refused.code, ErrorCode::NotClaimable);
        assert_eq!(outcome(&room).await, None);
    }
}
