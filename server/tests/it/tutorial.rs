//! The tutorial's lessons (`server/web/tutorial.json`, as the server sends it): each is a
//! position the rules reach by legal turns, its goal accepts the right answer and only
//! turns that do what the lesson teaches, and its wrong examples are legal turns the goal
//! refuses; what each says reaches the page in its catalogue. The goal is judged here as
//! the page judges it (`learn.js`, `accepts`).

use std::collections::{BTreeSet, HashMap};

use punct_engine::puzzle::{self, Goal as PuzzleGoal};
use punct_rules::{Cell, Color, Game, Outcome, PIECES_PER_PLAYER, Turn, Variant, WinReason};
use punct_testing::TestServer;
use serde::Deserialize;

/// The file of lessons.
#[derive(Deserialize)]
struct Tutorial {
    lessons: Vec<Lesson>,
}

/// One lesson, as `tutorial.json`'s `about` describes it.
#[derive(Deserialize)]
struct Lesson {
    id: String,
    variant: String,
    turns: Vec<String>,
    goal: Goal,
    right: String,
    wrong: Vec<String>,
}

/// Which turns a lesson accepts.
#[derive(Deserialize)]
struct Goal {
    /// The turn's piece lands on exactly these cells…
    cells: Option<Vec<String>>,
    /// …moved from here (a drop when absent).
    from: Option<String>,
    /// One of these turns.
    turns: Option<Vec<String>>,
    /// The turn wins so: `connection` or `centre`.
    wins: Option<String>,
}

/// The cells a turn puts its piece on, and the PÜNCT's origin for a move.
fn landing(turn: Turn) -> (BTreeSet<Cell>, Option<Cell>) {
    match turn {
        Turn::Drop { punct, minors } => ([punct, minors[0], minors[1]].into(), None),
        Turn::Move { from, to, minors } => ([to, minors[0], minors[1]].into(), Some(from)),
        Turn::Pass => (BTreeSet::new(), None),
    }
}

impl Lesson {
    fn game(&self) -> Game {
        let variant: Variant = self.variant.parse().expect("a variant");
        let turns: Vec<Turn> = self.turns.iter().map(|t| t.parse().unwrap()).collect();
        Game::replay(variant, &turns).unwrap_or_else(|e| panic!("{}: {e}", self.id))
    }

    /// Whether the goal accepts `turn` in `game` (a legal turn there).
    fn accepts(&self, game: &Game, turn: Turn) -> bool {
        let goal = &self.goal;
        if let Some(cells) = &goal.cells {
            let cells: BTreeSet<Cell> = cells.iter().map(|c| c.parse().unwrap()).collect();
            let from: Option<Cell> = goal.from.as_ref().map(|c| c.parse().unwrap());
            return landing(turn) == (cells, from);
        }
        if let Some(turns) = &goal.turns {
            return turns.contains(&turn.to_string());
        }
        let reason = match goal.wins.as_deref() {
            Some("connection") => WinReason::Connection,
            Some("centre") => WinReason::Centre,
            other => panic!("{}: no goal {other:?}", self.id),
        };
        let mut after = game.clone();
        after.play(turn).unwrap()
            == Some(Outcome::Win {
                winner: game.to_move(),
                reason,
            })
    }
}

/// The level of the piece `turn` put on the board in `after`.
fn level(after: &Game, turn: Turn) -> u8 {
    let (cells, _) = landing(turn);
    let top = cells.first().copied().unwrap();
    after.position().top(top).unwrap().level
}

#[tokio::test]
async fn every_lesson_is_reached_by_legal_turns_and_accepts_what_it_teaches() {
    let server = TestServer::start().await;
    let (status, json) = server.http("GET", "/assets/tutorial.json", "").await;
    assert_eq!(status, 200);
    let tutorial: Tutorial = serde_json::from_str(&json).expect("tutorial.json reads");
    let (status, page) = server.http("GET", "/learn", "").await;
    assert_eq!(status, 200);
    assert!(page.contains("learn.js"), "the page runs the lessons");
    let catalogue = page
        .split(r#"<script id="catalogue" type="application/json">"#)
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the page holds its catalogue");
    // A message that counts is an object of plural forms; the lessons' are all text.
    let catalogue: HashMap<String, serde_json::Value> =
        serde_json::from_str(catalogue).expect("the catalogue reads");
    let catalogue: HashMap<String, String> = catalogue
        .into_iter()
        .filter_map(|(key, value)| Some((key, value.as_str()?.to_owned())))
        .collect();
    let (_, rules) = server.http("GET", "/how-to-play", "").await;
    assert!(
        rules.contains(r#"href="/learn""#),
        "the rules page links to the tutorial"
    );

    let taught: Vec<&str> = tutorial.lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(
        taught,
        [
            "drop", "move", "jump", "bridge", "connect", "stop", "centre"
        ]
    );
    for lesson in &tutorial.lessons {
        let name = &lesson.id;
        for part in ["title", "text", "hint", "success"] {
            let key = format!("learn.lesson.{name}.{part}");
            let text = catalogue.get(&key).map_or("", String::as_str);
            assert!(!text.trim().is_empty(), "{name} says its {part} ({key})");
        }
        let game = lesson.game();
        assert!(!game.is_over(), "{name}: the learner has a turn to make");
        let legal = game.legal_turns();
        let right: Turn = lesson.right.parse().unwrap();
        assert!(legal.contains(&right), "{name}: the right answer is legal");
        assert!(
            lesson.accepts(&game, right),
            "{name}: the right answer is accepted"
        );
        assert!(!lesson.wrong.is_empty(), "{name} has wrong examples");
        for text in &lesson.wrong {
            let wrong: Turn = text.parse().unwrap();
            assert!(
                legal.contains(&wrong),
                "{name}: the wrong example {text} is legal"
            );
            assert!(!lesson.accepts(&game, wrong), "{name}: {text} is refused");
        }
        let accepted: Vec<Turn> = legal
            .iter()
            .copied()
            .filter(|&t| lesson.accepts(&game, t))
            .collect();
        // Every accepted answer does what the lesson teaches.
        for &turn in &accepted {
            let mut after = game.clone();
            let outcome = after.play(turn).unwrap();
            let moved = after
                .position()
                .top(landing(turn).0.into_iter().next().unwrap());
            match name.as_str() {
                "drop" => assert!(turn.is_drop(), "{name}: {turn} is a drop"),
                "move" => {
                    assert!(!turn.is_drop(), "{name}: {turn} is a move");
                    assert_eq!(level(&after, turn), 1, "{name}: {turn} stays on the ground");
                }
                "jump" => assert_eq!(level(&after, turn), 2, "{name}: {turn} jumps up"),
                "bridge" => {
                    let piece = moved.unwrap().piece;
                    assert!(after.position().is_bridge(piece), "{name}: {turn} bridges");
                }
                "connect" | "stop" | "centre" => {}
                other => panic!("say what the lesson {other} teaches"),
            }
            if name == "centre" {
                assert!(turn.is_drop(), "only a drop ends the game");
                assert_eq!(
                    after.position().pieces_in_play(Color::White),
                    PIECES_PER_PLAYER
                );
                assert!(after.position().reserve(Color::Black).total() > 0);
            }
            if name == "connect" {
                assert!(matches!(outcome, Some(Outcome::Win { .. })));
            }
        }
        if name == "stop" {
            // Exactly the turns that leave the opponent no winning reply.
            assert_eq!(
                accepted,
                puzzle::solutions(&game, PuzzleGoal::Stop),
                "{name}: the accepted turns are the defences"
            );
            assert!(accepted.len() < legal.len(), "{name}: there is a threat");
        }
    }
}
