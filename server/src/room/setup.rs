//! What a room's actor starts from: a new room, or one loaded from the store.

use std::fmt;
use std::time::Duration;

use punct_protocol::{ChatLine, RatingChanges, TimeControl, Visibility};
use punct_rules::{Color, DrawReason, Game, Outcome, ReplayError, Variant, WinReason};
use tokio::time::Instant;

use crate::clock::Clock;
use crate::clock::now;
use crate::secret;
use crate::secret::{TokenHash, hash_token};
use crate::store::{AccountId, NewRoom, Player, StoredRoom, time_control};
use crate::views::rating_changes;

/// A room about to be made: its settings and the seats given out.
#[derive(Clone, Debug)]
pub(crate) struct Fresh {
    /// The new room's id.
    pub(crate) id: String,
    /// The game played.
    pub(crate) variant: Variant,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// The time control.
    pub(crate) control: Option<TimeControl>,
    /// White's and Black's token hashes, for the seats given out.
    pub(crate) seats: [Option<TokenHash>; 2],
    /// White's and Black's players, for the seats given out.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// The seat the server's engine plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
}

impl Fresh {
    /// A room with a new id whose seats given out are those of `seats` (White's,
    /// Black's), to `players`; the computer's seat, if any, is taken by a token nobody
    /// is ever given, and named by its level.
    pub(crate) fn new(
        variant: Variant,
        visibility: Visibility,
        control: Option<TimeControl>,
        mut seats: [Option<TokenHash>; 2],
        mut players: [Player; 2],
        computer: Option<(Color, u8)>,
        rated: bool,
    ) -> Fresh {
        if let Some((color, level)) = computer {
            seats[color as usize] = Some(hash_token(&secret::token()));
            players[color as usize] = Player {
                name: Some(crate::computer::name(level)),
                account: None,
            };
        }
        Fresh {
            id: secret::room_id(),
            variant,
            visibility,
            control,
            seats,
            players,
            rated,
            computer,
        }
    }

    /// The room as the store records it.
    pub(crate) fn stored(&self) -> NewRoom {
        NewRoom {
            id: self.id.clone(),
            variant: self.variant,
            visibility: self.visibility,
            clock: self.control.map(Clock::control_ms),
            days: self.control.and_then(|control| control.days),
            seats: self.seats,
            players: self.players.clone(),
            rated: self.rated,
            computer: self.computer,
        }
    }

    /// What the room's actor starts from.
    pub(crate) fn setup(self) -> Setup {
        Setup {
            id: self.id,
            visibility: self.visibility,
            seats: self.seats,
            players: self.players,
            rated: self.rated,
            ratings: None,
            chat: Vec::new(),
            muted: [false; 2],
            incarnation: 0,
            game: Game::new(self.variant),
            ending: None,
            clock: self.control.map(Clock::new),
            computer: self.computer,
            tournament: None,
        }
    }
}

/// What a room's actor starts from.
#[derive(Debug)]
pub(crate) struct Setup {
    /// The room's id.
    pub(crate) id: String,
    /// Whether the lobby lists it.
    pub(crate) visibility: Visibility,
    /// White's and Black's token hashes, for the seats given out.
    pub(crate) seats: [Option<TokenHash>; 2],
    /// White's and Black's players.
    pub(crate) players: [Player; 2],
    /// Whether the game changes its players' ratings.
    pub(crate) rated: bool,
    /// What the game did to the ratings, once it was rated.
    pub(crate) ratings: Option<RatingChanges>,
    /// The chat's last lines, oldest first, each with its speaker's account if signed
    /// in.
    pub(crate) chat: Vec<(ChatLine, Option<AccountId>)>,
    /// Whether White's and Black's players muted their opponent.
    pub(crate) muted: [bool; 2],
    /// How many times the room has been loaded: the high half of its sequence numbers,
    /// so that numbers never repeat across loads.
    pub(crate) incarnation: u32,
    /// The game so far.
    pub(crate) game: Game,
    /// How the game ended, if it ended off the board.
    pub(crate) ending: Option<Outcome>,
    /// The clocks, in a timed game.
    pub(crate) clock: Option<Clock>,
    /// The seat the server's engine plays, and its level.
    pub(crate) computer: Option<(Color, u8)>,
    /// The tournament whose game this is, if any: it is told when the game ends.
    pub(crate) tournament: Option<String>,
}

/// A stored room whose turns do not replay: the database was changed by hand or is
/// damaged.
#[derive(Debug)]
pub(crate) struct CorruptRoom(ReplayError);

impl fmt::Display for CorruptRoom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a stored {}", self.0)
    }
}

impl std::error::Error for CorruptRoom {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl Setup {
    /// A room loaded from the store, its game rebuilt by replaying its turns. The clock
    /// of the player to move starts again now: the time the room was not running is not
    /// charged, except in a correspondence game (see [`Clock::resumed`]).
    pub(crate) fn stored(id: String, room: StoredRoom) -> Result<Setup, CorruptRoom> {
        let game = Game::replay(room.variant, &room.turns).map_err(CorruptRoom)?;
        let off_the_board = |outcome: &Outcome| {
            matches!(
                outcome,
                Outcome::Win {
                    reason: WinReason::Resignation | WinReason::Time | WinReason::Abandonment,
                    ..
                } | Outcome::Draw {
                    reason: DrawReason::Agreement
                }
            )
        };
        let over = room.outcome.is_some();
        let slept = room.last_turn_at.map_or(0, |at| now().saturating_sub(at));
        let slept = Duration::from_millis(u64::try_from(slept).unwrap_or(0));
        let clock = time_control(room.clock, room.days).map(|control| {
            let mut clock = Clock::resumed(control, room.clocks_left, game.to_move(), slept);
            if over {
                clock.stop(Instant::now());
            }
            clock
        });
        Ok(Setup {
            id,
            visibility: room.visibility,
            seats: room.seats,
            players: room.players,
            rated: room.rated,
            ratings: room.ratings.as_ref().map(rating_changes),
            chat: room.chat,
            muted: room.muted,
            incarnation: room.incarnation,
            game,
            ending: room.outcome.filter(off_the_board),
            clock,
            computer: room.computer,
            tournament: room.tournament,
        })
    }
}
