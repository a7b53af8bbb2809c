//! The room's task: its state, what wakes it, and which method serves each command.

use std::sync::Arc;

use punct_protocol::{Action, RatingChanges, RoomSummary, Visibility};
use punct_rules::{Color, Game, Outcome};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tracing::Instrument;

use super::chat::Chat;
use super::history::History;
use super::seats::{Audience, Seat};
use super::turns::Backoff;
use super::{Command, Context, Setup};
use crate::clock::Clock;
use crate::computer::{Chosen, Computer, Thinking};

/// The state the actor owns.
#[derive(Debug)]
pub(super) struct Room {
    /// The room's id.
    pub(super) id: String,
    /// Whether the lobby lists it.
    pub(super) visibility: Visibility,
    /// The game: the only copy, changed only here.
    pub(super) game: Game,
    /// The result when the game ended off the board (resignation, agreement, time,
    /// abandonment).
    pub(super) ending: Option<Outcome>,
    /// The player whose draw offer stands.
    pub(super) draw_offer: Option<Color>,
    /// The player whose takeback request stands.
    pub(super) takeback_offer: Option<Color>,
    /// After the game: the player whose rematch request stands.
    pub(super) rematch_offer: Option<Color>,
    /// The rematch's room, once made.
    pub(super) rematch: Option<String>,
    /// The clocks, in a timed game.
    pub(super) clock: Option<Clock>,
    /// Whether the game changes its players' ratings.
    pub(super) rated: bool,
    /// The chat's recent lines, and who muted whom.
    pub(super) chat: Chat,
    /// Once a rated game is over and rated: what it did to the ratings.
    pub(super) ratings: Option<RatingChanges>,
    /// White's and Black's seats, indexed by `Color as usize`.
    pub(super) seats: [Seat; 2],
    /// The spectators.
    pub(super) audience: Audience,
    /// The numbered events and the replay buffer.
    pub(super) history: History,
    /// The seat the server's engine plays, if any.
    pub(super) computer: Option<Computer>,
    /// The engine's search for its next turn, while it runs.
    pub(super) thinking: Option<Thinking>,
    /// Holds back what the room stores on its own after a storage failure.
    pub(super) retry: Backoff,
    /// The incarnation this room was loaded as: its writes name it, and are refused once
    /// the room has been loaded again elsewhere.
    pub(super) incarnation: u32,
    /// Set once a write was refused for that: the room closes, and its members follow
    /// it to wherever it runs now.
    pub(super) fenced: bool,
    /// Set once its creator cancelled the room: it is deleted, and closes.
    pub(super) cancelled: bool,
    /// The store, the metrics, the timings and the computer's threads.
    pub(super) context: Arc<Context>,
}

/// What woke a room's actor.
enum Wake {
    /// A request.
    Command(Command),
    /// The running clock ran out (or storing its fall may be tried again).
    FlagFell,
    /// The computer chose its turn.
    Chosen(Chosen),
    /// A spectator count is due.
    Audience,
    /// The wait after a storage failure is over.
    Retry,
}

impl Room {
    /// The room `setup` describes.
    pub(super) fn new(setup: Setup, context: Arc<Context>) -> Room {
        let Setup {
            id,
            visibility,
            seats,
            players,
            rated,
            ratings,
            chat,
            muted,
            incarnation,
            game,
            ending,
            clock,
            computer,
        } = setup;
        let computer = computer.and_then(|(color, level)| Computer::new(color, level));
        let [white, black] = players;
        let players = [(Color::White, white), (Color::Black, black)];
        let seats = players.map(|(color, player)| {
            let engine = computer.as_ref().is_some_and(|c| c.color == color);
            Seat::new(seats[color as usize], player, engine)
        });
        Room {
            id,
            visibility,
            rated,
            game,
            ending,
            draw_offer: None,
            takeback_offer: None,
            ratings,
            chat: Chat::with(chat, muted),
            rematch_offer: None,
            rematch: None,
            clock,
            seats,
            audience: Audience::default(),
            history: History::new(incarnation, context.timings.event_buffer),
            computer,
            thinking: None,
            retry: Backoff::default(),
            incarnation,
            fenced: false,
            cancelled: false,
            context,
        }
    }

    /// Serves commands until the room closes: when every handle is gone, or when nobody
    /// has been in it for the idle timeout and nothing in it is being timed. Publishes
    /// the summary on `summary` whenever it changes.
    pub(super) fn run(
        mut self,
        mut inbox: mpsc::Receiver<Command>,
        summary: watch::Sender<RoomSummary>,
    ) -> impl Future<Output = ()> + Send + 'static {
        // A span of its own, not the one of the connection or request that loaded it.
        let span = tracing::info_span!(parent: None, "room", room = %self.id);
        async move {
            tracing::info!(variant = %self.game.variant(), turns = self.game.turns().len(), "room opened");
            let idle_timeout = self.context.timings.idle_timeout;
            loop {
                self.think_if_due();
                let flag = self.flag_falls();
                // A correspondence game's room sleeps between moves: its flag, days
                // away, is the sweep's to see (`Registry::sweep`).
                let timed = flag.is_some() && !self.clock.as_ref().is_some_and(Clock::is_correspondence);
                let idle = self.is_empty() && !timed && self.thinking.is_none();
                let (audience, retry) = (self.audience_due(), self.retry.until());
                let wake = tokio::select! {
                    // Requests first: a join queued when the idle timeout fires is served.
                    biased;
                    command = inbox.recv() => match command {
                        Some(command) => Wake::Command(command),
                        None => break,
                    },
                    () = sleep_until(flag) => Wake::FlagFell,
                    chosen = chosen(&mut self.thinking) => Wake::Chosen(chosen),
                    () = sleep_until(audience) => Wake::Audience,
                    () = sleep_until(retry) => Wake::Retry,
                    () = tokio::time::sleep(idle_timeout), if idle => {
                        // Whatever is still queued is refused (its senders see the room
                        // closed, and load it again).
                        inbox.close();
                        tracing::info!("nobody came for {idle_timeout:?}: closing");
                        break;
                    }
                };
                match wake {
                    Wake::Command(command) => self.handle(command).await,
                    Wake::FlagFell => {
                        // A failure is logged; the retry waits.
                        let _ = self.end_if_flagged().await;
                    }
                    Wake::Chosen(chosen) => self.computer_plays(chosen).await,
                    Wake::Audience => self.tell_audience(),
                    Wake::Retry => {}
                }
                if self.fenced {
                    inbox.close();
                    tracing::warn!("the room was loaded again elsewhere: closing");
                    break;
                }
                if self.cancelled {
                    inbox.close();
                    break;
                }
                summary.send_if_modified(|old| {
                    let new = self.summary();
                    let changed = *old != new;
                    *old = new;
                    changed
                });
            }
            tracing::info!("room closed");
        }
        .instrument(span)
    }

    /// Serves one command: each goes to the method of its concern.
    async fn handle(&mut self, command: Command) {
        match command {
            Command::TakeSeat { player, reply } => {
                let _ = reply.send(self.take_seat(player).await);
            }
            Command::Join {
                conn,
                key,
                since,
                lists,
                reply,
            } => {
                let _ = reply.send(self.join(conn, &key, since, lists));
            }
            Command::Watch { conn, since, reply } => {
                let _ = reply.send(self.watch(conn, since));
            }
            Command::Resync { conn, reply } => {
                let _ = reply.send(self.resync(conn));
            }
            Command::Talk { conn, talk, reply } => {
                let _ = reply.send(self.talk(conn, talk).await);
            }
            Command::Act {
                conn,
                action,
                retry,
                reply,
            } => {
                let done = self.act(conn, action, retry).await;
                if let Action::Play(_) = action {
                    let refused = done.as_ref().err().map(|refusal| refusal.code);
                    self.context.metrics.turn(refused);
                }
                let _ = reply.send(done);
            }
            Command::Cancel { key, reply } => {
                let _ = reply.send(self.cancel(&key).await);
            }
            Command::Leave { conn } => self.leave(conn),
            Command::Summary { reply } => {
                let _ = reply.send(self.summary());
            }
            Command::Record { reply } => {
                let _ = reply.send(self.record());
            }
        }
    }
}

/// The computer's turn once it has chosen; never while it is not thinking.
async fn chosen(thinking: &mut Option<Thinking>) -> Chosen {
    match thinking {
        Some(thinking) => thinking.answer().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
