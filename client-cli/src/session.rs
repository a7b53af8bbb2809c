//! What a client knows of its room, kept up to date from the server's messages.

use anyhow::{Context, bail};
use punct_protocol::{ChatLine, RatingChanges, Role, RoomSnapshot, Seats, ServerMessage};
use punct_rules::{Color, Game, Outcome};

use punct_client::NetEvent;

/// The room as this client sees it. The game is replayed with the rules crate from the
/// turns the server reports, so legality and drawing come from one place.
#[derive(Clone, Debug)]
pub struct Session {
    /// The room's id.
    pub room: String,
    /// Our seat, or spectator.
    pub you: Role,
    /// Every turn so far and the position they lead to.
    pub game: Game,
    /// The result as the server announced it: it also covers resignation and agreed
    /// draws, which the game record alone does not show.
    pub outcome: Option<Outcome>,
    /// Who holds each seat and whether they are online.
    pub players: Seats,
    /// How many watch.
    pub spectators: usize,
    /// The player whose draw offer stands.
    pub draw_offer: Option<Color>,
    /// The player whose takeback request stands.
    pub takeback_offer: Option<Color>,
    /// After the game: the player whose rematch request stands.
    pub rematch_offer: Option<Color>,
    /// The rematch's room, once both players asked for it.
    pub rematch: Option<String>,
    /// Whether the game changes the players' ratings.
    pub rated: bool,
    /// Once a rated game is over: what it did to both ratings.
    pub ratings: Option<RatingChanges>,
    /// The recent chat we hear, oldest first (at most [`CHAT_KEPT`] lines).
    pub chat: Vec<ChatLine>,
}

/// How many lines of chat are kept, as many as the server sends in a snapshot.
pub const CHAT_KEPT: usize = 100;

impl Session {
    /// The room of a snapshot, replaying its turns.
    pub fn from_snapshot(you: Role, room: &RoomSnapshot) -> anyhow::Result<Session> {
        let game =
            Game::replay(room.variant, &room.turns).context("the server's turns are not legal")?;
        Ok(Session {
            room: room.room.clone(),
            you,
            outcome: room.outcome.or(game.outcome()),
            game,
            players: room.players.clone(),
            spectators: room.spectators,
            draw_offer: room.draw_offer,
            takeback_offer: room.takeback_offer,
            rematch_offer: room.rematch_offer,
            rematch: room.rematch.clone(),
            rated: room.rated,
            ratings: room.ratings.clone(),
            chat: room.chat.clone(),
        })
    }

    /// Our colour, if we play.
    pub fn color(&self) -> Option<Color> {
        self.you.color()
    }

    /// Whether the game goes on and it is our turn. A game the rules have ended counts
    /// as over even before the server's `game_over` arrives.
    pub fn my_turn(&self) -> bool {
        self.outcome.is_none() && !self.game.is_over() && self.color() == Some(self.game.to_move())
    }

    /// Takes in a room event. Events already reflected (seen again after a reconnect)
    /// change nothing.
    pub fn apply(&mut self, message: &ServerMessage) -> anyhow::Result<()> {
        match message {
            ServerMessage::TurnPlayed { turn, number, .. } if *number > self.game.turns().len() => {
                if *number != self.game.turns().len() + 1 {
                    bail!(
                        "turn {number} arrived after turn {}",
                        self.game.turns().len()
                    );
                }
                self.game
                    .play(*turn)
                    .with_context(|| format!("the server's turn {number} ({turn}) is illegal"))?;
                // A turn played withdraws its player's draw offer, and any takeback
                // request lapses.
                self.draw_offer = None;
                self.takeback_offer = None;
            }
            ServerMessage::TakebackOffered { by, .. } => self.takeback_offer = Some(*by),
            ServerMessage::TakebackDeclined { .. } => self.takeback_offer = None,
            ServerMessage::TakenBack { number, .. } if *number < self.game.turns().len() => {
                // The game goes on from an earlier position: replay up to it.
                self.game = Game::replay(self.game.variant(), &self.game.turns()[..*number])
                    .context("turns played before are legal again")?;
                self.takeback_offer = None;
            }
            ServerMessage::GameOver { outcome, .. } => {
                self.outcome = Some(*outcome);
                self.draw_offer = None;
            }
            ServerMessage::DrawOffered { by, .. } => self.draw_offer = Some(*by),
            ServerMessage::DrawDeclined { .. } => self.draw_offer = None,
            ServerMessage::RematchOffered { by, .. } => self.rematch_offer = Some(*by),
            ServerMessage::Rematch { room, .. } => {
                self.rematch_offer = None;
                self.rematch = Some(room.clone());
            }
            ServerMessage::PlayerJoined { color, .. }
            | ServerMessage::PlayerReconnected { color, .. } => {
                set_seat(&mut self.players, *color, true);
            }
            ServerMessage::PlayerLeft { color, .. } => set_seat(&mut self.players, *color, false),
            ServerMessage::Spectators { count } => self.spectators = *count,
            ServerMessage::Resumed {
                players,
                spectators,
                chat,
                ..
            } => {
                self.players = players.clone();
                self.spectators = *spectators;
                // Chat is not replayed: these are the recent lines, whatever was missed.
                self.chat = chat.clone();
            }
            ServerMessage::Ratings { changes, .. } => self.ratings = Some(changes.clone()),
            ServerMessage::Chat { line } => {
                self.chat.push(line.clone());
                let over = self.chat.len().saturating_sub(CHAT_KEPT);
                self.chat.drain(..over);
            }
            // Replies and private messages carry no room state; new event kinds are shown
            // by the callers as they are.
            _ => {}
        }
        Ok(())
    }
}

fn set_seat(players: &mut Seats, color: Color, connected: bool) {
    let seat = match color {
        Color::White => &mut players.white,
        Color::Black => &mut players.black,
    };
    seat.taken = true;
    seat.connected = connected;
}

/// A session that follows a connection's events: a snapshot replaces it, other
/// messages update it.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    /// The room, once a snapshot has arrived.
    pub session: Option<Session>,
    /// Whether the connection is in the room now.
    pub connected: bool,
}

impl Tracker {
    /// Takes in one event from the connection.
    pub fn absorb(&mut self, event: &NetEvent) -> anyhow::Result<()> {
        match event {
            NetEvent::Connected => self.connected = true,
            NetEvent::Disconnected(_) | NetEvent::Failed(_) => self.connected = false,
            NetEvent::Message(ServerMessage::Snapshot { you, room, .. }) => {
                self.session = Some(Session::from_snapshot(*you, room)?);
            }
            NetEvent::Message(message) => {
                if let Some(session) = &mut self.session {
                    session.apply(message)?;
                }
            }
        }
        Ok(())
    }

    /// Whether we are in the room and it is our turn.
    pub fn my_turn(&self) -> bool {
        self.connected && self.session.as_ref().is_some_and(Session::my_turn)
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.outcome.is_some())
    }
}
