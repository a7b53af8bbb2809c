//! `punct games`: the signed-in player's unfinished games as lines of text, those that
//! wait for the player's move first (the server's order).

use punct_protocol::{MyGame, MyGames, RoomStatus, TimeControl};

use crate::ui::{clock_text, plain};

/// One line per game; a hint when there are none.
pub fn lines(games: &MyGames) -> Vec<String> {
    if games.games.is_empty() {
        return vec![
            "no unfinished games; start one with: punct play --create standard --clock 3d".into(),
        ];
    }
    games.games.iter().map(line).collect()
}

/// `STATE  COLOUR vs OPPONENT  VARIANT  CONTROL  TIME LEFT  ROOM`.
fn line(game: &MyGame) -> String {
    let summary = &game.summary;
    let state = match summary.status {
        RoomStatus::Open => "open",
        _ if game.your_move => "your move",
        _ => "their move",
    };
    let seat = summary.players.get(game.color.opponent());
    let opponent = match (&seat.player.name, seat.taken) {
        (Some(name), _) => plain(name),
        (None, true) => "guest".to_owned(),
        (None, false) => "nobody yet".to_owned(),
    };
    let control = match summary.clock {
        Some(TimeControl {
            days: Some(days), ..
        }) => format!("{days}d a move"),
        Some(clock) => format!("{}+{}", clock.base, clock.increment),
        None => "no clock".to_owned(),
    };
    let left = game
        .time_left_ms
        .map_or_else(String::new, |ms| format!("{} left", clock_text(ms)));
    format!(
        "{state:<10}  {color:<5} vs {opponent:<24}  {variant:<8}  {control:<10}  {left:<12}  {room}",
        color = game.color.to_string(),
        variant = summary.variant.name(),
        room = summary.room,
    )
    .trim_end()
    .to_owned()
}

#[cfg(test)]
mod tests {
    use punct_protocol::{Player, RoomSummary, SeatView, Seats, Visibility};
    use punct_rules::{Color, Variant};

    use super::*;

    fn seat(name: Option<&str>, taken: bool) -> SeatView {
        SeatView {
            taken,
            player: Player {
                name: name.map(str::to_owned),
                account: name.map(str::to_owned),
            },
            connected: false,
            claim_in_ms: None,
            computer: None,
            rating: None,
        }
    }

    fn game(room: &str, status: RoomStatus, black: SeatView, your_move: bool) -> MyGame {
        MyGame {
            summary: RoomSummary {
                room: room.into(),
                variant: Variant::Standard,
                visibility: Visibility::Public,
                status,
                players: Seats {
                    white: seat(Some("anna"), true),
                    black,
                },
                rated: false,
                spectators: 0,
                turns: 1,
                to_move: Color::Black,
                outcome: None,
                clock: Some(TimeControl::days(3)),
                tournament: None,
                last_turn: None,
                clocks: None,
            },
            color: Color::White,
            your_move,
            time_left_ms: your_move.then_some(2 * 86_400_000 + 5 * 3_600_000),
        }
    }

    #[test]
    fn each_game_says_whose_move_and_the_time_left() {
        let games = MyGames {
            games: vec![
                game(
                    "r1",
                    RoomStatus::Live,
                    seat(Some("bert\u{1b}[2J"), true),
                    true,
                ),
                game("r2", RoomStatus::Live, seat(None, true), false),
                game("r3", RoomStatus::Open, seat(None, false), false),
            ],
        };
        assert_eq!(
            lines(&games),
            [
                "your move   white vs bert[2J                   standard  3d a move   2d 05h left   r1",
                "their move  white vs guest                     standard  3d a move                 r2",
                "open        white vs nobody yet                standard  3d a move                 r3",
            ]
        );
        assert!(lines(&MyGames { games: vec![] })[0].starts_with("no unfinished games"));
    }
}
