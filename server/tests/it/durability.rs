//! A real `punct-server` process, killed (SIGKILL) in the middle of games and started
//! again on the same database file: no acknowledged turn is lost, the seats are the same.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use punct_protocol::{RoomStatus, ServerMessage};
use punct_rules::{Color, Game, Turn, Variant};
use punct_testing::{Client, Database, Process};

use crate::games;

#[tokio::test]
async fn a_killed_server_comes_back_with_the_game_and_the_same_seats() {
    let database = Database::new();
    let turns = games::white_connects(Variant::Standard);
    let half = turns.len() / 2;

    let server = Process::start(&database);
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    for (n, turn) in turns[..half].iter().enumerate() {
        let player = if n % 2 == 0 { &mut alice } else { &mut bob };
        player.play(&turn.to_string()).await.unwrap();
    }
    server.kill();
    assert_eq!(alice.closed().await, None, "the socket just breaks");

    let server = Process::start(&database);
    let summary = server.summary(&table.room).await;
    assert_eq!(summary.turns, half);
    assert_eq!(summary.status, RoomStatus::Live);
    // The same tokens take the same seats; the snapshot is the game so far.
    let mut alice = server.client().await;
    let mut bob = server.client().await;
    let white = alice.join(&table.room, &table.white).await;
    let black = bob.join(&table.room, &table.black).await;
    assert_eq!(white.turns, &turns[..half]);
    assert_eq!(black.turns, &turns[..half]);
    let (mut carol, _) = server.spectator(&table.room).await;
    for (n, &turn) in turns.iter().enumerate().skip(half) {
        let player = if n % 2 == 0 { &mut alice } else { &mut bob };
        let seq = player.play(&turn.to_string()).await.unwrap();
        assert_eq!(carol.next_turn().await, (seq, turn));
    }
    assert!(matches!(
        carol.next_news().await,
        ServerMessage::GameOver { .. }
    ));
    server.kill();

    // Finished, and still there after another restart: every turn exactly once.
    let server = Process::start(&database);
    let record = server.record(&table.room).await;
    assert_eq!(record.turns, turns);
    assert_eq!(record.outcome, Some(games::WHITE_CONNECTED));
}

/// Plays random legal turns (mostly moves, so the game lasts) for both players as fast
/// as the server acknowledges them; answers the acknowledged turns when the connection
/// breaks or the game ends.
async fn play_until_cut(mut alice: Client, mut bob: Client, played: Arc<AtomicUsize>) -> Vec<Turn> {
    let mut game = Game::new(Variant::Standard);
    let mut acknowledged = Vec::new();
    let mut n: usize = 0;
    while !game.is_over() {
        let legal = game.legal_turns();
        let moves: Vec<Turn> = legal.iter().copied().filter(|t| !t.is_drop()).collect();
        let from = if moves.is_empty() || n.is_multiple_of(7) {
            &legal
        } else {
            &moves
        };
        let turn = from[(n * 7919 + 17) % from.len()];
        n += 1;
        let player = match game.to_move() {
            Color::White => &mut alice,
            Color::Black => &mut bob,
        };
        match player.try_play(turn).await {
            Some(true) => {
                game.play(turn).unwrap();
                acknowledged.push(turn);
                played.fetch_add(1, Ordering::Relaxed);
            }
            Some(false) => panic!("{turn} refused"),
            None => break,
        }
    }
    acknowledged
}

#[tokio::test]
async fn no_acknowledged_turn_is_lost_when_the_server_is_killed_mid_stream() {
    let database = Database::new();
    let server = Process::start(&database);
    let mut rooms = Vec::new();
    let mut players = Vec::new();
    for _ in 0..3 {
        let table = server.table("standard").await;
        let alice = server.player(&table.room, &table.white).await;
        let bob = server.player(&table.room, &table.black).await;
        let played = Arc::new(AtomicUsize::new(0));
        players.push(tokio::spawn(play_until_cut(alice, bob, played.clone())));
        rooms.push((table.room, played));
    }
    // Let the games run, then kill the server in the middle of them: once each has a
    // few turns (a busy machine may take a while to start them).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while rooms
        .iter()
        .any(|(_, played)| played.load(Ordering::Relaxed) < 5)
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the games did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.kill();
    let mut acknowledged = Vec::new();
    for player in players {
        acknowledged.push(player.await.unwrap());
    }

    let server = Process::start(&database);
    for ((room, _), acked) in rooms.iter().zip(&acknowledged) {
        assert!(!acked.is_empty(), "turns were played before the kill");
        eprintln!("{room}: {} acknowledged before the kill", acked.len());
        let record = server.record(room).await;
        // Every acknowledged turn is there, in order; at most the one turn in flight
        // (committed, its ack lost with the process) follows them.
        assert_eq!(&record.turns[..acked.len()], &acked[..]);
        assert!(record.turns.len() <= acked.len() + 1, "{room}: {record:?}");
    }
}
