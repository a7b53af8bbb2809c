//! Rows of the store as the protocol shows them: a room that is not running, as the
//! lobby and a player's list of games show it, and ratings.
//!
//! Must not import: `room`, `registry`, `connection`, `api`, `mail`.

use punct_protocol::{
    MyGame, RatingChange, RatingChanges, RatingView, RoomStatus, RoomSummary, SeatView, Seats,
};
use punct_rules::{Color, Outcome};

use crate::rating::{self, Rating};
use crate::store::{Account, Rated, RoomRow, to_move};

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
            rating: None,
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
        tournament: row.tournament.clone(),
        // What only a running room knows.
        last_turn: None,
        clocks: None,
    }
}

/// `summary` as the lobby lists it: each seat an account holds with that account's
/// rating in the room's variant, from `row` (a newcomer's for one not rated yet, as a
/// seek shows it).
pub(crate) fn with_ratings(mut summary: RoomSummary, row: &RoomRow) -> RoomSummary {
    let seats = [&mut summary.players.white, &mut summary.players.black];
    for (seat, stored) in seats.into_iter().zip(row.ratings) {
        if seat.player.account.is_some() {
            seat.rating = Some(stored.unwrap_or(rating::shown(Rating::NEW.rating)));
        }
    }
    summary
}

/// Over once there is a result; live with both seats taken; open otherwise.
pub(crate) fn status(outcome: Option<Outcome>, players: &Seats) -> RoomStatus {
    if outcome.is_some() {
        RoomStatus::Over
    } else if players.white.taken && players.black.taken {
        RoomStatus::Live
    } else {
        RoomStatus::Open
    }
}

/// `account`'s games among `rows`, as `GET /api/me/games` lists them at `now`: those
/// waiting for their move first, the least time left first.
pub(crate) fn my_games_of(account: &Account, rows: &[RoomRow], now: i64) -> Vec<MyGame> {
    let mut games: Vec<MyGame> = rows
        .iter()
        .filter_map(|row| {
            let color = Color::ALL.into_iter().find(|&color| {
                row.players[color as usize]
                    .account
                    .as_ref()
                    .is_some_and(|held| held.id == account.id)
            })?;
            let summary = summary_of(row);
            Some(MyGame {
                your_move: summary.status == RoomStatus::Live && summary.to_move == color,
                time_left_ms: row.time_left(now),
                summary,
                color,
            })
        })
        .collect();
    // Stable: among equals, the oldest game first.
    games.sort_by_key(|game| (!game.your_move, game.time_left_ms.unwrap_or(u64::MAX)));
    games
}

/// What a rated game did to both players (White's, Black's), as the protocol shows it.
pub(crate) fn rating_changes(both: &[Rated; 2]) -> RatingChanges {
    let [white, black] = both.each_ref().map(|rated| RatingChange {
        username: rated.username.clone(),
        before: rating_view(rated.change.before),
        after: rating_view(rated.change.after),
    });
    RatingChanges { white, black }
}

/// A rating as the protocol shows it.
pub(crate) fn rating_view(rating: Rating) -> RatingView {
    RatingView {
        rating: rating.rating,
        deviation: rating.deviation,
        volatility: rating.volatility,
        provisional: rating.provisional(),
    }
}
