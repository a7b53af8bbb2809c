//! How a room looks from outside: what a member gets on entering, the snapshot, the
//! seats as others see them, the lobby's summary and the record. (A room that is not
//! running is summarised from its database row by `views`.)

use punct_protocol::{
    Record, Reserves, Role, RoomSnapshot, RoomSummary, SeatView, Seats, Seq, StackView,
};
use punct_rules::{Color, Turn};
use tokio::time::Instant;

use super::history::your_turn_json;
use super::protocol::{Entered, Start};
use super::state::Room;
use crate::clock::{Clock, millis};
use crate::cluster::ConnId;
use crate::views::status;

impl Room {
    /// What the member on `conn`, who is `role`, gets on entering: the events it missed
    /// since `since` if they are all still kept, a snapshot otherwise.
    pub(super) fn entered(&self, conn: ConnId, role: Role, since: Option<Seq>) -> Entered {
        let resumed = since.and_then(|since| Some((since, self.history.missed_since(since)?)));
        let start = match resumed {
            Some((since, missed)) => {
                // The list after the last turn, if the player is to move and none of the
                // missed events brings it (it was not made while they were away).
                let to_move = Some(self.game.to_move());
                let brought = missed.iter().any(|e| e.your_turn_for(to_move).is_some());
                let your_turn = (!brought)
                    .then(|| self.legal_turns_for(role))
                    .flatten()
                    .map(|legal_turns| your_turn_json(self.history.seq(), legal_turns).into());
                Start::Resumed {
                    since,
                    missed,
                    your_turn,
                    players: Box::new(self.seat_views()),
                    spectators: self.audience_size(),
                    chat: self.chat_for(conn, role),
                }
            }
            None => Start::Snapshot(Box::new(self.snapshot(conn, role))),
        };
        Entered { role, start }
    }

    /// The room as the member on `conn`, who is `role`, sees it now.
    pub(super) fn snapshot(&self, conn: ConnId, role: Role) -> RoomSnapshot {
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
            chat: self.chat_for(conn, role),
            legal_turns: self.legal_turns_for(role),
            tournament: self.tournament.clone(),
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
                rating: None,
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
            tournament: self.tournament.clone(),
            last_turn: self.game.turns().last().cloned(),
            clocks: self.clock.as_ref().map(|c| c.view(Instant::now())),
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
