//! The page's engine, as the browser gets it: the WebAssembly module the server serves,
//! run here by an interpreter, chooses the turn the native engine chooses, searched to
//! the same depth, on positions from the rules' test records; and the random level picks
//! the same turn.

use punct_engine::{Engine, Level, Limits};
use punct_rules::Game;
use serde_json::json;

use crate::rules_wasm::{TextModule, records, served_bytes};

/// The depth both engines search to: small, since the interpreter is slow, but deep
/// enough that the alpha-beta search, its table and its line all take part.
const DEPTH: u32 = 2;

#[tokio::test]
async fn the_module_chooses_the_native_engines_turn_at_a_fixed_depth() {
    let bytes = served_bytes("engine.wasm").await;
    // A module per record, each on a thread of its own: the interpreter is slow.
    let compared: usize = std::thread::scope(|scope| {
        let checks: Vec<_> = records()
            .into_iter()
            .map(|(name, variant, turns)| {
                let bytes = &bytes;
                scope.spawn(move || {
                    let mut module = TextModule::new(bytes);
                    let mut compared = 0;
                    // Two positions of each record: a third and two thirds of the way.
                    for n in [turns.len() / 3, turns.len() * 2 / 3] {
                        let game = Game::replay(variant, &turns[..n]).unwrap();
                        let native = Engine::new(Level::strongest())
                            .think(&game, &Limits::depth(DEPTH))
                            .expect("the record's game goes on there");
                        let answer =
                            module.ask("think", variant, &turns[..n], &format!("5 depth {DEPTH}"));
                        let line: Vec<String> =
                            native.line.iter().map(ToString::to_string).collect();
                        assert_eq!(
                            (&answer["turn"], &answer["score"], &answer["line"]),
                            (
                                &json!(native.turn.to_string()),
                                &json!(native.score),
                                &json!(line)
                            ),
                            "{name} after {n} turns"
                        );
                        // The random level draws the same number on a 32-bit machine.
                        let random = Engine::new(Level::Random)
                            .think(&game, &Limits::depth(1))
                            .expect("the record's game goes on there");
                        let answer = module.ask("think", variant, &turns[..n], "random depth 1");
                        assert_eq!(
                            answer["turn"],
                            json!(random.turn.to_string()),
                            "{name} after {n} turns, at random"
                        );
                        compared += 1;
                    }
                    compared
                })
            })
            .collect();
        checks.into_iter().map(|check| check.join().unwrap()).sum()
    });
    assert!(compared >= 14, "{compared} positions");
}

#[tokio::test]
async fn the_module_thinks_by_time_on_the_pages_clock_and_refuses_bad_requests() {
    let mut module = TextModule::new(&served_bytes("engine.wasm").await);
    let (_, variant, turns) = records().remove(0);
    let game = Game::replay(variant, &turns[..20]).unwrap();
    let answer = module.ask("think", variant, &turns[..20], "5 ms 300");
    let turn = answer["turn"].as_str().expect("a turn").parse().unwrap();
    assert_eq!(game.is_legal(turn), Ok(()), "{answer}");
    assert!(answer["depth"].as_u64().unwrap() >= 1, "{answer}");
    for (argument, error) in [
        ("5", "expected a level and a limit"),
        ("9 depth 2", "unknown level"),
        ("5 depth 40", "a depth is 1 to"),
        ("5 hours 2", "is not a limit"),
    ] {
        let answer = module.ask("think", variant, &[], argument);
        assert!(
            answer["error"].as_str().unwrap().contains(error),
            "{argument}: {answer}"
        );
    }
}
