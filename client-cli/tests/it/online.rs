//! End to end: a real `punct-server` in this process, and `punct` processes that play,
//! watch and let the engine play over the network.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use punct_engine::{Engine, Level};
use punct_rules::{Game, Outcome, Turn, Variant};
use serde_json::Value;

use crate::common::{Punct, start_server};

/// A finished game between two greedy engines: a real game, decided by the rules.
fn finished_game(variant: Variant) -> Game {
    let engine = Engine::with_seed(Level::Greedy, 3);
    let mut game = Game::new(variant);
    while !game.is_over() {
        assert!(game.turns().len() < 400, "the greedy game did not end");
        let turn = engine
            .choose(&game, Duration::from_millis(20))
            .expect("a turn");
        game.play(turn).expect("legal");
    }
    game
}

/// The turns a watcher saw: those of its snapshot, then those of each `turn_played`,
/// checking that they are numbered without gaps.
fn turns_seen(snapshot: &Value, events: &[Value]) -> Vec<Turn> {
    let mut turns: Vec<Turn> = snapshot["room"]["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .map(|t| t.as_str().expect("text").parse().expect("notation"))
        .collect();
    for event in events.iter().filter(|e| e["type"] == "turn_played") {
        assert_eq!(event["number"], turns.len() + 1, "turns arrive in order");
        turns.push(
            event["turn"]
                .as_str()
                .expect("text")
                .parse()
                .expect("notation"),
        );
    }
    turns
}

fn write_script(dir: &Path, name: &str, turns: impl Iterator<Item = Turn>) -> String {
    let path = dir.join(name);
    let text: String = turns.map(|t| format!("{t}\n")).collect();
    std::fs::write(&path, format!("# {name}\n{text}")).expect("script written");
    path.display().to_string()
}

#[test]
fn two_scripted_players_play_a_game_to_the_end_and_a_spectator_sees_every_turn() {
    let server = start_server();
    let game = finished_game(Variant::Standard);
    let dir = tempfile::tempdir().expect("temporary directory");
    let white_turns = game.turns().iter().copied().step_by(2);
    let black_turns = game.turns().iter().copied().skip(1).step_by(2);
    let white_script = write_script(dir.path(), "white.txt", white_turns);
    let black_script = write_script(dir.path(), "black.txt", black_turns);
    let white_seats = dir.path().join("white-seats.json").display().to_string();
    let black_seats = dir.path().join("black-seats.json").display().to_string();

    let mut white = Punct::spawn(&[
        "play",
        "--server",
        &server.url,
        "--create",
        "standard",
        "--color",
        "white",
        "--seats",
        &white_seats,
        "--script",
        &white_script,
    ]);
    let seat = white.next();
    assert_eq!(
        (&seat["type"], &seat["color"]),
        (&"seat".into(), &"white".into())
    );
    let room = seat["room"].as_str().expect("room id").to_owned();

    let mut watcher = Punct::spawn(&["watch", "--server", &server.url, "--room", &room, "--json"]);
    let snapshot = watcher.until("snapshot");
    assert_eq!(snapshot["you"], "spectator");

    let mut black = Punct::spawn(&[
        "play",
        "--server",
        &server.url,
        "--room",
        &room,
        "--seats",
        &black_seats,
        "--script",
        &black_script,
    ]);
    let black_seat = black.next();
    assert_eq!(black_seat["color"], "black");
    // The seat file keeps the token, so the player can come back to the game.
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&black_seats).expect("seat file"))
            .expect("JSON");
    assert_eq!(saved[0]["room"], room.as_str());
    assert_eq!(saved[0]["token"], black_seat["token"]);

    let expected_outcome = serde_json::to_value(game.outcome().expect("over")).expect("JSON");
    for (name, player) in [("white", white), ("black", black)] {
        let lines = player.finish();
        let last = lines.last().expect("lines");
        assert_eq!(
            last["type"], "game_over",
            "{name} ends with the end of the game"
        );
        assert_eq!(last["outcome"], expected_outcome);
        assert!(
            lines.iter().all(|l| l["type"] != "error"),
            "{name} got an error"
        );
    }

    let events = watcher.finish();
    assert_eq!(turns_seen(&snapshot, &events), game.turns());
    assert_eq!(events.last().expect("events")["outcome"], expected_outcome);
}

#[test]
fn a_script_with_an_illegal_turn_fails_before_sending_it() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    // I9 is in the central hexagon: no drop may touch it in the standard game.
    let script = write_script(
        dir.path(),
        "bad.txt",
        ["I9:I10,J10".parse().expect("notation")].into_iter(),
    );
    let seats = dir.path().join("seats.json").display().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args([
            "play",
            "--server",
            &server.url,
            "--create",
            "standard",
            "--color",
            "white",
        ])
        .args(["--seats", &seats, "--script", &script])
        .output()
        .expect("punct runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("script step 1 (I9:I10,J10) is illegal"),
        "{stderr}"
    );
    assert!(stderr.contains("central hexagon"), "{stderr}");
}

/// The game a bot's output lines tell of: every turn the server recorded replays
/// legally, and the game ended as the rules say.
fn played_out(variant: Variant, lines: &[Value]) -> Game {
    let mut game = Game::new(variant);
    for turn in turns_seen(&serde_json::json!({"room": {"turns": []}}), lines) {
        game.play(turn).expect("both sides play legal turns");
    }
    let outcome: Outcome = serde_json::from_value(lines.last().expect("lines")["outcome"].clone())
        .expect("the game ended");
    assert_eq!(game.outcome(), Some(outcome));
    game
}

#[test]
fn two_bots_play_a_whole_game_online() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let white_seats = dir.path().join("white-seats.json").display().to_string();
    let black_seats = dir.path().join("black-seats.json").display().to_string();
    let mut white = Punct::spawn(&[
        "bot",
        "--server",
        &server.url,
        "--create",
        "basic",
        "--color",
        "white",
        "--level",
        "1",
        "--ms-per-turn",
        "30",
        "--seats",
        &white_seats,
    ]);
    let room = white.next()["room"].as_str().expect("room id").to_owned();
    let black = Punct::spawn(&[
        "bot",
        "--server",
        &server.url,
        "--room",
        &room,
        "--level",
        "2",
        "--ms-per-turn",
        "30",
        "--seats",
        &black_seats,
    ]);
    let white_lines = white.finish();
    let black_lines = black.finish();

    played_out(Variant::Basic, &white_lines);
    assert_eq!(black_lines.last(), white_lines.last());
}

#[test]
fn a_bot_plays_the_server_s_computer_to_the_end() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let seats = dir.path().join("seats.json").display().to_string();
    let bot = Punct::spawn(&[
        "bot",
        "--server",
        &server.url,
        "--create",
        "basic",
        "--color",
        "white",
        "--computer",
        "1",
        "--level",
        "2",
        "--ms-per-turn",
        "30",
        "--seats",
        &seats,
    ]);
    let game = played_out(Variant::Basic, &bot.finish());
    assert!(
        game.turns().len() >= 2,
        "the server's computer played Black"
    );
}

#[test]
fn both_players_ask_for_a_rematch_and_play_it_with_colours_swapped() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    let script = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("script written");
        path.display().to_string()
    };
    // The creator takes Black, so White's resignation comes only once both are seated.
    // In the rematch the creator has White and resigns at once.
    let creator_script = script("creator.txt", "rematch\nresign\n");
    let joiner_script = script("joiner.txt", "resign\nrematch\n");
    let creator_seats = dir.path().join("creator-seats.json").display().to_string();
    let joiner_seats = dir.path().join("joiner-seats.json").display().to_string();

    let mut creator = Punct::spawn(&[
        "play",
        "--server",
        &server.url,
        "--create",
        "standard",
        "--color",
        "black",
        "--seats",
        &creator_seats,
        "--script",
        &creator_script,
    ]);
    let first = creator.next();
    assert_eq!(first["color"], "black");
    let room = first["room"].as_str().expect("room id").to_owned();
    let mut joiner = Punct::spawn(&[
        "play",
        "--server",
        &server.url,
        "--room",
        &room,
        "--seats",
        &joiner_seats,
        "--script",
        &joiner_script,
    ]);
    let joiner_first = joiner.next();
    assert_eq!(joiner_first["color"], "white");

    let mut rematch_rooms = Vec::new();
    for (name, mut player, first, seats) in [
        ("creator", creator, first, &creator_seats),
        ("joiner", joiner, joiner_first, &joiner_seats),
    ] {
        let rematch = player.until("rematch");
        let new_room = rematch["room"].as_str().expect("room id").to_owned();
        assert_ne!(new_room, room);
        // The same token takes the other colour in the rematch's room.
        let seat = player.until("seat");
        let swapped = if first["color"] == "white" {
            "black"
        } else {
            "white"
        };
        assert_eq!(seat["room"], new_room.as_str(), "{name}");
        assert_eq!(seat["token"], first["token"], "{name}");
        assert_eq!(seat["color"], swapped, "{name}");
        let snapshot = player.until("snapshot");
        assert_eq!(snapshot["room"]["room"], new_room.as_str(), "{name}");
        assert_eq!(snapshot["you"], swapped, "{name}");
        // The seat file has the new seat too, so `--room` finds it again.
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(seats).expect("seat file"))
                .expect("JSON");
        let saved = saved
            .as_array()
            .expect("seats")
            .iter()
            .find(|s| s["room"] == new_room.as_str())
            .cloned()
            .expect("the rematch's seat is saved");
        assert_eq!(
            (&saved["token"], &saved["color"]),
            (&first["token"], &swapped.into())
        );

        let lines = player.finish();
        assert!(lines.iter().all(|l| l["type"] != "error"), "{name}");
        // The creator, White in the rematch, resigned it: its script ends with the
        // `ack`. The joiner sees the end as `game_over`, or in its snapshot when it came
        // in after the resignation.
        if name == "creator" {
            assert_eq!(lines.last().expect("lines")["type"], "ack");
        } else {
            let outcome = lines
                .iter()
                .rev()
                .find(|l| l["type"] == "game_over")
                .map_or(&snapshot["room"]["outcome"], |l| &l["outcome"]);
            assert_eq!(outcome["winner"], "black");
            assert_eq!(outcome["reason"], "resignation");
        }
        rematch_rooms.push(new_room);
    }
    assert_eq!(rematch_rooms[0], rematch_rooms[1]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_turn_the_server_could_not_store_is_sent_again() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let file = dir.path().join("punct.db");
    let server = punct_testing::TestServer::with(punct_server::Config {
        database: Some(file.display().to_string()),
        ..punct_server::Config::default()
    })
    .await;
    let table = server.table("standard").await;
    // Black is in the room, so that it runs, and White's entering it writes nothing.
    let mut black = server.player(&table.room, &table.black).await;
    // Another program holds the database's write lock: the server's commit waits for it
    // (5 s) and then fails, and the turn is refused with `storage-failed`.
    let holder = rusqlite::Connection::open(&file).expect("the database opens");
    holder
        .execute_batch("BEGIN IMMEDIATE")
        .expect("the write lock");
    let game = finished_game(Variant::Standard);
    let (first, second) = (game.turns()[0], game.turns()[1]);
    let script = write_script(dir.path(), "white.txt", std::iter::once(first));
    let seats = dir.path().join("seats.json").display().to_string();
    let mut white = Punct::spawn(&[
        "play",
        "--server",
        &server.url,
        "--room",
        &table.room,
        "--token",
        &table.white,
        "--seats",
        &seats,
        "--script",
        &script,
    ]);
    let refused = tokio::task::block_in_place(|| white.until("error"));
    assert_eq!(refused["code"], "storage-failed", "{refused}");
    holder.execute_batch("ROLLBACK").expect("the lock let go");
    // The script sends the turn again, and it is played.
    let acknowledged = tokio::task::block_in_place(|| white.until("ack"));
    assert_eq!(acknowledged["id"], refused["id"].as_u64().unwrap() + 1);
    let played = tokio::task::block_in_place(|| white.until("turn_played"));
    assert_eq!(played["turn"], first.to_string());
    // Black answers; White's script, out of turns, ends without another error.
    let answered = black
        .request(|id| punct_protocol::ClientMessage::Play {
            id,
            turn: second,
            number: Some(2),
        })
        .await;
    assert!(
        matches!(answered, punct_protocol::ServerMessage::Ack { .. }),
        "{answered:?}"
    );
    let rest = tokio::task::block_in_place(|| white.finish());
    assert!(rest.iter().all(|line| line["type"] != "error"), "{rest:?}");
    let stored: i64 = holder
        .query_row("SELECT count(*) FROM turns", [], |row| row.get(0))
        .expect("the turns counted");
    assert_eq!(stored, 2, "each turn stored once");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_a_full_server_turns_away_for_now_comes_back_once_there_is_room() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let file = dir.path().join("punct.db").display().to_string();
    let on = |max_rooms| punct_server::Config {
        database: Some(file.clone()),
        max_rooms,
        ..punct_server::Config::default()
    };
    // A room stored and not in memory: made before a restart, nobody in it since.
    let first = punct_testing::TestServer::with(on(16)).await;
    let waiting = first.create_room(r#"{"color":"white"}"#).await;
    first.shutdown().await.expect("shut down");
    // Then the server holds one room at a time, and another room has the place.
    let server = punct_testing::TestServer::with(on(1)).await;
    let other = server.create_room(r#"{"color":"white"}"#).await;
    let seats = dir.path().join("seats.json").display().to_string();
    let mut bot = Punct::spawn(&[
        "bot",
        "--server",
        &server.url,
        "--room",
        &waiting.room,
        "--token",
        &waiting.token,
        "--seats",
        &seats,
    ]);
    let seat = tokio::task::block_in_place(|| bot.next());
    assert_eq!(seat["type"], "seat", "{seat}");
    let refused = tokio::task::block_in_place(|| bot.next());
    assert_eq!(refused["type"], "disconnected", "{refused}");
    assert!(
        refused["reason"]
            .as_str()
            .is_some_and(|r| r.contains("too-many-rooms")),
        "{refused}"
    );
    // The other room cancelled, the bot's next try enters its own.
    let path = format!("/api/rooms/{}/cancel", other.room);
    let token = format!(r#"{{"token":"{}"}}"#, other.token);
    assert_eq!(server.http("POST", &path, &token).await.0, 204);
    let connected = tokio::task::block_in_place(|| bot.until("connected"));
    assert_eq!(connected["type"], "connected");
    let entered = tokio::task::block_in_place(|| bot.next());
    assert_eq!(entered["type"], "snapshot", "{entered}");
    assert_eq!(entered["room"]["room"], waiting.room.as_str());
}

#[test]
fn two_terminals_seeking_five_plus_three_meet_and_play_their_game_to_its_end() {
    let server = start_server();
    let dir = tempfile::tempdir().expect("temporary directory");
    // Whoever has White resigns at once; Black's script never comes to its turn.
    let script = dir.path().join("resign.txt");
    std::fs::write(&script, "resign\n").expect("script written");
    let script = script.display().to_string();
    let seek = |name: &str| {
        let seats = dir
            .path()
            .join(format!("{name}-seats.json"))
            .display()
            .to_string();
        Punct::spawn(&[
            "play",
            "--server",
            &server.url,
            "--seek",
            "5+3",
            "--name",
            name,
            "--seats",
            &seats,
            "--script",
            &script,
        ])
    };
    let mut anna = seek("Anna");
    let mut bert = seek("Bert");
    let (anna_seat, bert_seat) = (anna.next(), bert.next());
    assert_eq!(anna_seat["type"], "seat", "{anna_seat} {bert_seat}");
    assert_eq!(anna_seat["room"], bert_seat["room"], "one room for both");
    assert_ne!(anna_seat["color"], bert_seat["color"]);
    for (name, seat, player) in [("anna", anna_seat, anna), ("bert", bert_seat, bert)] {
        let lines = player.finish();
        let snapshot = lines
            .iter()
            .find(|l| l["type"] == "snapshot")
            .expect("a snapshot");
        assert_eq!(
            snapshot["room"]["clock"]["white_ms"], 300_000,
            "{name}: 5 minutes"
        );
        assert_eq!(
            snapshot["you"], seat["color"],
            "{name} sits where it was told"
        );
        if seat["color"] == "white" {
            // Its script ends with the resignation acknowledged.
            assert_eq!(
                lines.last().expect("lines")["type"],
                "ack",
                "{name}: {lines:?}"
            );
        } else {
            let over = lines.iter().find(|l| l["type"] == "game_over");
            let over = over.unwrap_or_else(|| panic!("{name} sees the game end: {lines:?}"));
            assert_eq!(over["outcome"]["reason"], "resignation", "{over}");
        }
    }
}
