//! Rooms created against the computer: the server's engine takes the other seat, answers
//! every turn with a legal one, declines draws, takes rematches and survives a restart;
//! it plays differently from room to room, and a room plays on after a restart as it
//! would have.

use std::collections::HashSet;
use std::time::Duration;

use punct_protocol::{ClientMessage, RoomStatus, ServerMessage};
use punct_rules::{Color, Game, Turn};
use punct_server::Config;
use punct_testing::{Client, Database, TestServer};

/// A server whose computer thinks briefly, on `database` if given.
fn quick(database: Option<String>) -> Config {
    Config {
        computer_think_time: Duration::from_millis(30),
        database,
        ..Config::default()
    }
}

/// Alice in her seat of `room`, and the game as her snapshot shows it (the computer
/// may have opened already).
async fn sit(server: &TestServer, room: &str, token: &str) -> (Client, Game) {
    let mut alice = server.client().await;
    let snapshot = alice.join(room, token).await;
    let mut game = Game::new(snapshot.variant);
    for turn in snapshot.turns {
        game.play(turn).unwrap();
    }
    (alice, game)
}

/// The next event that is not about who is in the room or which turns are legal.
async fn next_event(alice: &mut Client) -> ServerMessage {
    loop {
        match alice.next_news().await {
            ServerMessage::YourTurn { .. } => continue,
            other => return other,
        }
    }
}

/// Plays `mine` turns of `me` against the computer, following its answers in `game`;
/// every turn the computer plays must be legal.
async fn play_against(alice: &mut Client, game: &mut Game, me: Color, mine: usize) {
    let mut played = 0;
    while played < mine {
        if game.to_move() == me {
            let legal = game.legal_turns();
            let turn = legal[(played * 37 + 11) % legal.len()];
            alice.play(&turn.to_string()).await.unwrap();
            assert_eq!(alice.next_turn().await.1, turn);
            game.play(turn).unwrap();
            played += 1;
        } else {
            let (_, turn) = alice.next_turn().await;
            game.play(turn).expect("the computer plays legal turns");
        }
        assert!(!game.is_over(), "a game this short does not end");
    }
}

#[tokio::test]
async fn the_computer_takes_the_other_seat_and_answers_every_turn() {
    let server = TestServer::with(quick(None)).await;
    let seat = server
        .create_room(r#"{"variant":"standard","color":"white","computer":2}"#)
        .await;
    let summary = server.summary(&seat.room).await;
    assert_eq!(summary.status, RoomStatus::Live, "no seat is free");
    assert_eq!(summary.players.black.computer, Some(2));
    assert!(summary.players.black.connected);
    assert_eq!(summary.players.white.computer, None);
    assert_eq!(
        server
            .http("POST", &format!("/api/rooms/{}/seat", seat.room), "")
            .await
            .0,
        409
    );

    let (mut alice, mut game) = sit(&server, &seat.room, &seat.token).await;
    play_against(&mut alice, &mut game, Color::White, 4).await;
    // The computer answers the fourth turn too.
    let (_, turn) = alice.next_turn().await;
    game.play(turn).unwrap();
    assert_eq!(server.record(&seat.room).await.turns, game.turns());

    // It declines a draw, and the game goes on.
    alice.request(|id| ClientMessage::OfferDraw { id }).await;
    assert!(matches!(
        next_event(&mut alice).await,
        ServerMessage::DrawOffered {
            by: Color::White,
            ..
        }
    ));
    assert!(matches!(
        next_event(&mut alice).await,
        ServerMessage::DrawDeclined {
            by: Color::Black,
            ..
        }
    ));
    play_against(&mut alice, &mut game, Color::White, 1).await;
}

#[tokio::test]
async fn a_level_that_does_not_exist_is_refused() {
    let server = TestServer::with(quick(None)).await;
    for level in [0, 6, 200] {
        let body = format!(r#"{{"computer":{level}}}"#);
        let (status, answer) = server.http("POST", "/api/rooms", &body).await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer.contains("bad-request"), "{answer}");
    }
}

#[tokio::test]
async fn the_computer_is_seated_again_after_a_restart_and_plays_on() {
    let database = Database::new();
    let config = quick(Some(database.url()));
    let server = TestServer::with(config.clone()).await;
    // Alice plays Black: the computer, White, opens at once.
    let seat = server
        .create_room(r#"{"color":"black","computer":1}"#)
        .await;
    let (mut alice, mut game) = sit(&server, &seat.room, &seat.token).await;
    play_against(&mut alice, &mut game, Color::Black, 2).await;
    // Wait for the computer's answer to be stored, then stop the server.
    let (_, turn) = alice.next_turn().await;
    game.play(turn).unwrap();
    drop(alice);
    server.shutdown().await.unwrap();

    let server = TestServer::with(config).await;
    let summary = server.summary(&seat.room).await;
    assert_eq!(summary.players.white.computer, Some(1));
    assert!(
        summary.players.white.connected,
        "the computer is never away"
    );
    let (mut alice, restored) = sit(&server, &seat.room, &seat.token).await;
    assert_eq!(restored.turns(), game.turns());
    play_against(&mut alice, &mut game, Color::Black, 2).await;
    let (_, turn) = alice.next_turn().await;
    game.play(turn).unwrap();
    assert_eq!(server.record(&seat.room).await.turns, game.turns());
}

#[tokio::test]
async fn the_computer_takes_a_rematch_with_colours_swapped() {
    let server = TestServer::with(quick(None)).await;
    let seat = server
        .create_room(r#"{"color":"white","computer":1}"#)
        .await;
    let mut alice = server.player(&seat.room, &seat.token).await;
    alice.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(
        next_event(&mut alice).await,
        ServerMessage::GameOver { .. }
    ));
    alice.request(|id| ClientMessage::Rematch { id }).await;
    assert!(matches!(
        next_event(&mut alice).await,
        ServerMessage::RematchOffered {
            by: Color::White,
            ..
        }
    ));
    let ServerMessage::Rematch { room, .. } = next_event(&mut alice).await else {
        panic!("the computer agrees at once");
    };
    let summary = server.summary(&room).await;
    assert_eq!(summary.players.white.computer, Some(1));
    assert_eq!(summary.players.black.computer, None);
    // Alice's token holds Black there, and the computer opens.
    let (mut alice, mut game) = sit(&server, &room, &seat.token).await;
    play_against(&mut alice, &mut game, Color::Black, 1).await;
}

/// The computer's first two turns as White at `level` in each of six fresh rooms, Alice
/// answering its first with a turn chosen alike in every room.
async fn first_two_turns(level: u8) -> Vec<(Turn, Turn)> {
    // Long enough for levels 3 and 4 to complete an iteration in a debug build.
    let server = TestServer::with(Config {
        computer_think_time: Duration::from_millis(100),
        ..Config::default()
    })
    .await;
    let mut openings = Vec::new();
    for _ in 0..6 {
        let body = format!(r#"{{"color":"black","computer":{level}}}"#);
        let seat = server.create_room(&body).await;
        let (mut alice, mut game) = sit(&server, &seat.room, &seat.token).await;
        if game.turns().is_empty() {
            game.play(alice.next_turn().await.1).unwrap();
        }
        let first = game.turns()[0];
        let legal = game.legal_turns();
        let reply = legal[11 % legal.len()];
        alice.play(&reply.to_string()).await.unwrap();
        assert_eq!(alice.next_turn().await.1, reply);
        let (_, second) = alice.next_turn().await;
        game.play(second).expect("the computer plays legal turns");
        openings.push((first, second));
    }
    openings
}

/// Asserts that at least three of six rooms against `level` began differently.
async fn rooms_differ(level: u8) {
    let openings = first_two_turns(level).await;
    let distinct: HashSet<&(Turn, Turn)> = openings.iter().collect();
    assert!(distinct.len() >= 3, "level {level}: {openings:?}");
}

#[tokio::test]
async fn level_1_plays_differently_from_room_to_room() {
    rooms_differ(1).await;
}

#[tokio::test]
async fn level_2_plays_differently_from_room_to_room() {
    rooms_differ(2).await;
}

#[tokio::test]
async fn level_3_plays_differently_from_room_to_room() {
    rooms_differ(3).await;
}

#[tokio::test]
async fn level_4_plays_differently_from_room_to_room() {
    rooms_differ(4).await;
}

/// Waits for the computer's turn, which must come, and returns it.
async fn computers_turn(alice: &mut Client, computer: Color) -> Turn {
    loop {
        if let ServerMessage::TurnPlayed { by, turn, .. } = alice.next_news().await
            && by == computer
        {
            return turn;
        }
    }
}

#[tokio::test]
async fn a_room_played_on_after_a_restart_chooses_as_it_would_have() {
    let database = Database::new();
    // Level 3 searches two plies whatever its time: given plenty, it never stops early,
    // so its choice depends only on the position and the room's seed.
    let config = Config {
        computer_think_time: Duration::from_secs(20),
        database: Some(database.url()),
        ..Config::default()
    };
    let server = TestServer::with(config.clone()).await;
    let seat = server
        .create_room(r#"{"color":"black","computer":3}"#)
        .await;
    let (mut alice, mut game) = sit(&server, &seat.room, &seat.token).await;
    if game.turns().is_empty() {
        game.play(alice.next_turn().await.1).unwrap();
    }
    let legal = game.legal_turns();
    let reply = legal[11 % legal.len()].to_string();
    alice.play(&reply).await.unwrap();
    let before = computers_turn(&mut alice, Color::White).await;
    drop(alice);
    server.shutdown().await.unwrap();

    // After the restart, Alice takes back her reply and the computer's answer, and plays
    // the reply again: the computer, loaded afresh, answers as it did.
    let server = TestServer::with(config).await;
    let mut alice = server.player(&seat.room, &seat.token).await;
    alice.request(|id| ClientMessage::Takeback { id }).await;
    loop {
        if let ServerMessage::TakenBack { number, .. } = alice.next_news().await {
            assert_eq!(number, 1);
            break;
        }
    }
    alice.play(&reply).await.unwrap();
    assert_eq!(computers_turn(&mut alice, Color::White).await, before);
}
