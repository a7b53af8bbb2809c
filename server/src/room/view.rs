//! How a room looks from outside: the snapshot a member gets, the seats as others see
//! them, the lobby's summary and the record. A room that is not running is summarised
//! from its database row by [`summary_of`].

use punct_protocol::{
    Record, Reserves, Role, RoomSnapshot, RoomStatus, RoomSummary, SeatView, Seats, StackView,
};
use punct_rules::{Color, Outcome, Turn};
use tokio::time::Instant;

use super::actor::Room;
use super::millis;
use crate::clock::Clock;
use crate::store::{RoomRow, to_move};

impl Room {
    /// The room as `role` sees it now.
    pub(super) fn snapshot(&self, role: Role) -> RoomSnapshot {
        let position = self.game.position();
        RoomSnapshot {
            room: self.id.clone(),
            seq: self.history.seq(),
            variant: self.game.variant(),
            players: self.seat_views(),
            rated: self.rated,
            to_move: self.game.to_move(),
            board: StackView::all(position),
            reserves: Reserves::of(position),
            turns: self.game.turns().to_vec(),
            outcome: self.outcome(),
            spectators: self.audience_size(),
            clock: self.clock.as_ref().map(|c| c.view(Instant::now())),
            draw_offer: self.draw_offer,
            takeback_offer: self.takeback_offer,
            rematch_offer: self.rematch_offer,
            rematch: self.rematch.clone(),
            ratings: self.ratings.clone(),
            chat: self.chat_for(role),
            legal_turns: self.legal_turns_for(role),
        }
    }

    /// Every legal turn, if `role` is the player to move, the game goes on, and their
    /// connection wants the list.
    pub(super) fn legal_turns_for(&self, role: Role) -> Option<Vec<Turn>> {
        let to_move = self.game.to_move();
        (role.color() == Some(to_move) && self.outcome().is_none() && self.wants_lists(to_move))
            .then(|| self.game.legal_turns())
    }

    /// Whether the player of `color` is connected and wants the legal turns.
    pub(super) fn wants_lists(&self, color: Color) -> bool {
        self.seats[color as usize]
            .holder
            .as_ref()
            .is_some_and(|h| h.lists)
    }

    /// Both seats as others see them.
    pub(super) fn seat_views(&self) -> Seats {
        let view = |color: Color| {
            let seat = &self.seats[color as usize];
            let computer = self.computer.as_ref().filter(|c| c.color == color);
            SeatView {
                taken: seat.token.is_some(),
                player: seat.player.view(),
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

    /// The room as the lobby shows it.
    pub(super) fn summary(&self) -> RoomSummary {
        let players = self.seat_views();
        let outcome = self.outcome();
        RoomSummary {
            room: self.id.clone(),
            variant: self.game.variant(),
            visibility: self.visibility,
            status: status(outcome, &players),
            players,
            rated: self.rated,
            spectators: self.audience_size(),
            turns: self.game.turns().len(),
            to_move: self.game.to_move(),
            outcome,
            clock: self.clock.as_ref().map(Clock::control),
        }
    }

    /// The game record.
    pub(super) fn record(&self) -> Record {
        let [white, black] = self.seats.each_ref().map(|seat| seat.player.view());
        Record {
            room: self.id.clone(),
            variant: self.game.variant(),
            white,
            black,
            rated: self.rated,
            turns: self.game.turns().to_vec(),
            outcome: self.outcome(),
        }
    }
}

/// The summary of a room that is not running: nobody is connected to it but the
/// computer, and nobody is being timed (a player's grace period starts when the room is
/// loaded).
pub(crate) fn summary_of(row: &RoomRow) -> RoomSummary {
    let view = |color: Color| {
        let computer = row
            .computer
            .filter(|(c, _)| *c == color)
            .map(|(_, level)| level);
        SeatView {
            taken: row.taken[color as usize],
            player: row.players[color as usize].view(),
            connected: computer.is_some(),
            claim_in_ms: None,
            computer,
        }
    };
    let players = Seats {
        white: view(Color::White),
        black: view(Color::Black),
    };
    RoomSummary {
        room: row.id.clone(),
        variant: row.variant,
        visibility: row.visibility,
        status: status(row.outcome, &players),
        players,
        rated: row.rated,
        spectators: 0,
        turns: row.turns,
        to_move: to_move(row.turns),
        outcome: row.outcome,
        clock: row.clock,
    }
}

/// Over once there is a result; live with both seats taken; open otherwise.
fn status(outcome: Option<Outcome>, players: &Seats) -> RoomStatus {
    if outcome.is_some() {
        RoomStatus::Over
    } else if players.white.taken && players.black.taken {
        RoomStatus::Live
    } else {
        RoomStatus::Open
    }
}
