//! Who is in a room: its two seats and its spectators, as data (what a room does with
//! them is in `seats`).

use std::collections::HashSet;

use tokio::time::Instant;

use crate::cluster::ConnId;
use crate::secret::TokenHash;
use crate::store::Player;

/// One seat.
#[derive(Debug, Default)]
pub(super) struct Seat {
    /// The hash of the secret that plays this seat, once someone has taken it.
    pub(super) token: Option<TokenHash>,
    /// Who took it: their name, and their account if they were signed in.
    pub(super) player: Player,
    /// The connection playing the seat now.
    pub(super) holder: Option<Holder>,
    /// Whether anyone has joined on this seat yet: a later join is a reconnect.
    pub(super) joined_before: bool,
    /// Since when the seat's player has been away (given out, not connected); never for
    /// the computer's seat.
    pub(super) away: Option<Instant>,
}

impl Seat {
    /// A seat as a room starts with it: one given out counts as away from now (nobody is
    /// connected to a room that just started), unless the computer plays it.
    pub(super) fn new(token: Option<TokenHash>, player: Player, computer: bool) -> Seat {
        Seat {
            token,
            player,
            away: token.filter(|_| !computer).map(|_| Instant::now()),
            ..Seat::default()
        }
    }
}

/// The connection holding a seat.
#[derive(Debug)]
pub(super) struct Holder {
    /// Which connection.
    pub(super) conn: ConnId,
    /// Whether it wants the legal turns when it is to move.
    pub(super) lists: bool,
}

/// The spectators, and what everyone was last told of their number.
#[derive(Debug, Default)]
pub(super) struct Audience {
    /// The connections watching.
    pub(super) spectators: HashSet<ConnId>,
    /// The count last told.
    pub(super) told: usize,
    /// When it was told.
    pub(super) told_at: Option<Instant>,
    /// When the next count is due, once the number has changed.
    pub(super) due: Option<Instant>,
}
