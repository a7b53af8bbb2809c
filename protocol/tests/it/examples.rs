//! Every JSON example in `PROTOCOL.md` is a message the types read, and writes back the
//! same.

use punct_protocol::{ClientMessage, Reserves, ServerMessage, StackView};
use punct_rules::Game;
use serde_json::Value;

/// The contents of the ```json blocks of the document.
fn examples() -> Vec<String> {
    let text = include_str!("../../PROTOCOL.md");
    text.split("```json\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap().trim().to_owned())
        .collect()
}

#[test]
fn every_documented_example_is_a_message() {
    let examples = examples();
    assert!(examples.len() >= 19, "found {} examples", examples.len());
    for example in examples {
        let value: Value = serde_json::from_str(&example).unwrap();
        let written = if let Ok(message) = ClientMessage::decode(&example) {
            serde_json::to_value(message).unwrap()
        } else {
            let message: ServerMessage = serde_json::from_str(&example)
                .unwrap_or_else(|e| panic!("{example} is no message: {e}"));
            serde_json::to_value(message).unwrap()
        };
        assert_eq!(
            written, value,
            "the example is written as the types write it"
        );
    }
}

/// The `type` of every client and server message, as the schema (made from the Rust
/// types) lists them: a message added to the enums is on this list without anyone
/// remembering to add it.
fn message_types() -> Vec<String> {
    let schema: Value = serde_json::from_str(&punct_protocol::schema_json()).unwrap();
    ["ClientMessage", "ServerMessage"]
        .iter()
        .flat_map(|name| schema["$defs"][name]["oneOf"].as_array().unwrap().clone())
        .map(|variant| {
            variant["properties"]["type"]["const"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn every_message_type_is_documented() {
    let kinds: Vec<String> = examples()
        .iter()
        .map(|e| {
            serde_json::from_str::<Value>(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let types = message_types();
    assert!(
        types.len() >= 27,
        "the schema lists {} message types",
        types.len()
    );
    for kind in types {
        assert!(
            kinds.contains(&kind),
            "PROTOCOL.md has no example of {kind}"
        );
    }
}

#[test]
fn the_documented_snapshot_is_the_position_after_its_turns() {
    let snapshot = examples()
        .into_iter()
        .find_map(|e| match serde_json::from_str(&e) {
            Ok(ServerMessage::Snapshot { room, .. }) => Some(room),
            _ => None,
        })
        .expect("a snapshot example");
    let mut game = Game::new(snapshot.variant);
    for &turn in &snapshot.turns {
        game.play(turn).unwrap();
    }
    assert_eq!(snapshot.board, StackView::all(game.position()));
    assert_eq!(snapshot.reserves, Reserves::of(game.position()));
    assert_eq!(snapshot.to_move, game.to_move());
    for turn in snapshot.legal_turns.unwrap() {
        assert_eq!(game.is_legal(turn), Ok(()), "{turn}");
    }
}
