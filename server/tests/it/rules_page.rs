//! The how-to-play page's pictures (`server/web/lessons.json`, as the server sends it):
//! each is a position the rules reach by legal turns from the start, and shows what its
//! text says it shows.

use std::collections::BTreeMap;

use punct_rules::{Cell, Color, Game, Outcome, PIECES_PER_PLAYER, Turn, Variant, WinReason};
use punct_testing::TestServer;
use serde::Deserialize;

/// The file of pictures.
#[derive(Deserialize)]
struct Lessons {
    pictures: BTreeMap<String, Picture>,
}

/// One picture: the turns that reach it, and a turn drawn as the next one.
#[derive(Deserialize)]
struct Picture {
    variant: String,
    turns: Vec<String>,
    next: Option<String>,
}

impl Picture {
    /// The game its first `count` turns make; fails on the first illegal one.
    fn replay(&self, name: &str, count: usize) -> Game {
        let variant: Variant = self.variant.parse().expect("a variant");
        let mut game = Game::new(variant);
        for (n, text) in self.turns[..count].iter().enumerate() {
            let turn: Turn = text
                .parse()
                .unwrap_or_else(|e| panic!("{name}: {text}: {e}"));
            assert!(!game.is_over(), "{name}: turn {} after the end", n + 1);
            game.play(turn)
                .unwrap_or_else(|why| panic!("{name}: turn {} ({text}) is illegal: {why}", n + 1));
        }
        game
    }

    /// Whether the last turn is a drop.
    fn last_is_drop(&self) -> bool {
        let last: Option<Turn> = self.turns.last().map(|t| t.parse().unwrap());
        last.is_some_and(Turn::is_drop)
    }

    /// The last turn, as a move: where its PÜNCT came from and went.
    fn last_move(&self, name: &str) -> (Cell, Cell) {
        match self.turns.last().map(|t| t.parse::<Turn>().unwrap()) {
            Some(Turn::Move { from, to, .. }) => (from, to),
            other => panic!("{name} ends with a move, not {other:?}"),
        }
    }
}

/// The pictures and the page that shows them, as the server sends them.
async fn lessons(server: &TestServer) -> (Lessons, String) {
    let (status, json) = server.http("GET", "/assets/lessons.json", "").await;
    assert_eq!(status, 200);
    let (status, page) = server.http("GET", "/how-to-play", "").await;
    assert_eq!(status, 200);
    (
        serde_json::from_str(&json).expect("lessons.json reads"),
        page,
    )
}

/// The level of the top dot on `cell` in `game`'s position.
fn level(game: &Game, cell: Cell) -> u8 {
    game.position().top(cell).expect("a dot there").level
}

#[tokio::test]
async fn every_rules_picture_is_reached_by_legal_turns_and_shows_what_it_says() {
    let server = TestServer::start().await;
    let (lessons, page) = lessons(&server).await;
    let drawn: Vec<&str> = page
        .split(r#"data-board=""#)
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert!(drawn.len() >= 6, "{drawn:?}");
    for name in &drawn {
        assert!(lessons.pictures.contains_key(*name), "no picture {name}");
    }
    for (name, picture) in &lessons.pictures {
        assert!(drawn.contains(&name.as_str()), "{name} is not on the page");
        let game = picture.replay(name, picture.turns.len());
        if let Some(text) = &picture.next {
            let next: Turn = text.parse().unwrap();
            game.is_legal(next)
                .unwrap_or_else(|why| panic!("{name}: the next turn {text} is illegal: {why}"));
        }
        match name.as_str() {
            "goal" => assert_eq!(
                game.outcome(),
                Some(Outcome::Win {
                    winner: Color::White,
                    reason: WinReason::Connection
                }),
                "the goal picture shows White's winning chain"
            ),
            "sides" => assert!(picture.turns.is_empty(), "the empty board"),
            "drop" => assert!(picture.last_is_drop(), "the drop picture shows a drop"),
            "move" => {
                let next: Turn = picture.next.as_deref().unwrap().parse().unwrap();
                assert!(!next.is_drop(), "the move picture shows a move, not {next}");
            }
            "jump" => {
                let (from, to) = picture.last_move(name);
                let before = picture.replay(name, picture.turns.len() - 1);
                assert_eq!(level(&before, from), 1, "it jumps from the ground");
                assert_eq!(level(&game, to), 2, "it lands a level higher");
            }
            "down" => {
                let (from, to) = picture.last_move(name);
                let before = picture.replay(name, picture.turns.len() - 1);
                assert_eq!(level(&before, from), 2, "it jumps down from a level 2");
                assert_eq!(level(&game, to), 1, "back on the ground");
            }
            "bridge" => {
                let (_, to) = picture.last_move(name);
                let piece = game.position().top(to).unwrap().piece;
                assert!(game.position().is_bridge(piece), "the piece is a bridge");
            }
            "count" => {
                let position = game.position();
                assert_eq!(
                    game.outcome(),
                    Some(Outcome::Win {
                        winner: Color::White,
                        reason: WinReason::Centre
                    }),
                    "White wins the count of the centre"
                );
                assert!(picture.last_is_drop(), "the game ends with a drop");
                assert_eq!(position.pieces_in_play(Color::White), PIECES_PER_PLAYER);
                assert!(
                    position.reserve(Color::Black).total() > 0,
                    "Black has a piece left"
                );
                assert!(position.centre_count(Color::White) > position.centre_count(Color::Black));
            }
            other => panic!("say what the picture {other} shows"),
        }
    }
}
