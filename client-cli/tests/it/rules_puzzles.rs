//! `punct rules puzzles` run as a real process: the puzzle file it prints is the web
//! page's, and each puzzle in it has its one answer.

use std::process::Command;

use punct_engine::puzzle::{self, Goal};
use punct_rules::{Game, Turn, Variant};

#[test]
fn puzzles_prints_the_page_file_of_puzzles_with_one_answer_each() {
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args([
            "rules",
            "puzzles",
            "--connect",
            "1",
            "--stop",
            "1",
            "--centre",
            "0",
        ])
        // The random player does not think against the clock: the same games anywhere.
        .args(["--level", "random", "--games", "40", "--seed", "1"])
        .output()
        .expect("punct runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let file: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let puzzles = file["puzzles"].as_array().expect("a list of puzzles");
    let ids: Vec<&str> = puzzles.iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["connect-1", "stop-1"]);
    for p in puzzles {
        let variant: Variant = p["variant"].as_str().unwrap().parse().unwrap();
        let turns: Vec<Turn> = p["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().parse().unwrap())
            .collect();
        let game = Game::replay(variant, &turns).unwrap();
        let goal: Goal = p["goal"].as_str().unwrap().parse().unwrap();
        let answer: Turn = p["answer"].as_str().unwrap().parse().unwrap();
        assert_eq!(puzzle::solutions(&game, goal), [answer], "{}", p["id"]);
    }
}
