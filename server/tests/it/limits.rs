//! Limits and time: slow and silent clients, too many connections or rooms, shutdown.

use std::time::{Duration, Instant};

use punct_protocol::{ErrorCode, ServerMessage};
use punct_rules::Turn;
use punct_server::Config;
use punct_testing::TestServer;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// Picks the `n`th turn of a pseudo-random sequence from `legal`, preferring moves so the
/// game lasts.
fn pick(legal: &[Turn], n: usize) -> Turn {
    let moves: Vec<Turn> = legal.iter().copied().filter(|t| !t.is_drop()).collect();
    let from = if moves.is_empty() || n.is_multiple_of(5) {
        legal
    } else {
        &moves
    };
    from[(n * 7919 + 13) % from.len()]
}

#[tokio::test]
async fn a_spectator_that_never_reads_does_not_slow_the_players() {
    // The players play as fast as the server answers: no rate limits.
    let server = TestServer::with(Config {
        message_rate_scale: 0.0,
        ..Config::default()
    })
    .await;
    let table = server.table("basic").await;
    let mut alice = server.client().await;
    let mut legal = alice
        .join(&table.room, &table.white)
        .await
        .legal_turns
        .unwrap();
    let mut bob = server.player(&table.room, &table.black).await;
    // Sam watches, then stops reading altogether.
    let (mut sam, _) = server.spectator(&table.room).await;

    let started = Instant::now();
    let mut played = Vec::new();
    for n in 0..150 {
        let (player, opponent) = if n % 2 == 0 {
            (&mut alice, &mut bob)
        } else {
            (&mut bob, &mut alice)
        };
        let turn = pick(&legal, n);
        let seq = player.play(&turn.to_string()).await.unwrap();
        played.push((seq, turn));
        assert_eq!(player.next_turn().await, (seq, turn));
        // The opponent learns the turn and what it may answer.
        assert_eq!(opponent.next_turn().await, (seq, turn));
        match opponent.next_news().await {
            ServerMessage::YourTurn { legal_turns, .. } => legal = legal_turns,
            ServerMessage::GameOver { .. } => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    let elapsed = started.elapsed();
    assert!(played.len() >= 36, "a long game: {} turns", played.len());
    assert!(
        elapsed < Duration::from_secs(30),
        "{} turns took {elapsed:?}",
        played.len()
    );

    // When Sam reads at last, everything is there, in order.
    for &(seq, turn) in &played {
        assert_eq!(sam.next_turn().await, (seq, turn));
    }
}

#[tokio::test]
async fn a_silent_connection_is_dropped_and_a_listening_one_kept() {
    let config = Config {
        ping_interval: Duration::from_millis(100),
        idle_timeout: Duration::from_millis(400),
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    let room = server.create_room("").await.room;
    let (mut silent, _) = server.spectator(&room).await;
    let mut listening = server.client().await;
    assert_eq!(server.summary(&room).await.spectators, 1);

    // The listener reads (and so answers pings) for a second; the silent spectator does
    // not, and is dropped from the room.
    let heard = tokio::time::timeout(Duration::from_secs(1), listening.recv()).await;
    assert!(heard.is_err(), "nothing but pings was sent");
    assert_eq!(server.summary(&room).await.spectators, 0);
    let close = silent.closed().await;
    assert!(matches!(
        close.map(|frame| frame.code),
        Some(CloseCode::Away) | None
    ));
    // The listener is still served.
    listening
        .send_text(r#"{"type":"hello","id":9,"version":1}"#)
        .await;
    assert!(matches!(
        listening.reply_to(9).await,
        ServerMessage::Error {
            code: ErrorCode::DuplicateHello,
            ..
        }
    ));
}

#[tokio::test]
async fn connections_beyond_the_limit_are_refused() {
    let config = Config {
        max_connections: 1,
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    let first = server.client().await;
    assert_eq!(server.upgrade_status(None).await, 503);
    // Once the first has gone, there is room again.
    drop(first);
    server.await_free_slot().await;
}

#[tokio::test]
async fn rooms_beyond_the_limit_are_refused() {
    let config = Config {
        max_rooms: 1,
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    server.create_room("").await;
    let (status, body) = server.http("POST", "/api/rooms", "").await;
    assert_eq!(status, 503);
    assert!(body.contains(r#""code":"too-many-rooms""#), "{body}");
}

#[tokio::test]
async fn shutdown_says_goodbye_to_every_connection_and_waits_for_them() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let (mut carol, _) = server.spectator(&table.room).await;
    let addr = server.addr;

    server.shutdown().await.unwrap();
    for client in [&mut alice, &mut carol] {
        let close = client.closed().await;
        assert!(matches!(
            client.kept().last(),
            Some(ServerMessage::Bye {
                code: ErrorCode::ShuttingDown,
                ..
            })
        ));
        assert_eq!(close.map(|frame| frame.code), Some(CloseCode::Away));
    }
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "nobody listens any more"
    );
}
