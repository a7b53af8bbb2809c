//! Limits and time: slow and silent clients, too many connections or rooms, shutdown.

use std::time::{Duration, Instant};

use punct_protocol::{ErrorCode, ServerMessage};
use punct_rules::Turn;
use punct_server::Config;
use punct_testing::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
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

/// Checks that the server still answers `client`, which said hello: a second hello is
/// refused.
async fn assert_served(client: &mut punct_testing::Client) {
    client
        .send_text(r#"{"type":"hello","id":9,"version":1}"#)
        .await;
    assert!(matches!(
        client.reply_to(9).await,
        ServerMessage::Error {
            code: ErrorCode::DuplicateHello,
            ..
        }
    ));
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
    assert_served(&mut listening).await;
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
        TcpStream::connect(addr).await.is_err(),
        "nobody listens any more"
    );
}

/// Reads from `stream` until it closes; answers what came, or `None` if it stayed open
/// for `patience`.
async fn until_closed(stream: &mut TcpStream, patience: Duration) -> Option<String> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(patience, stream.read_to_end(&mut got)).await;
    read.ok()
        .map(|_| String::from_utf8_lossy(&got).into_owned())
}

/// `GET /healthz` on `stream`, kept alive: the answer's status line and body.
async fn healthz(stream: &mut TcpStream) -> String {
    let request = b"GET /healthz HTTP/1.1\r\nHost: punct\r\n\r\n";
    stream.write_all(request).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(stream.read_u8().await.unwrap());
    }
    let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
    let length = head
        .split("content-length: ")
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next()?.parse().ok())
        .expect("a length");
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.unwrap();
    let status = head.lines().next().unwrap_or_default().to_owned();
    format!("{status} {}", String::from_utf8(body).unwrap())
}

#[tokio::test]
async fn a_connection_slow_with_its_request_or_idle_after_one_is_closed() {
    let config = Config {
        header_timeout: Duration::from_millis(300),
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    let connect = || TcpStream::connect(server.addr);

    // Nothing sent: closed once the time is up.
    let mut silent = connect().await.unwrap();
    let opened = Instant::now();
    let said = until_closed(&mut silent, Duration::from_secs(5)).await;
    assert_eq!(said.as_deref(), Some(""));
    assert!(opened.elapsed() >= Duration::from_millis(300));
    // Half a head, and never the rest: closed unanswered.
    let mut slow = connect().await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: punct\r\n")
        .await
        .unwrap();
    let said = until_closed(&mut slow, Duration::from_secs(5)).await;
    assert!(
        said.is_some_and(|s| !s.contains("200")),
        "half a head answered"
    );
    // A request answered, kept alive, and nothing more: closed.
    let mut idle = connect().await.unwrap();
    assert_eq!(healthz(&mut idle).await, "http/1.1 200 ok ok\n");
    assert_eq!(
        until_closed(&mut idle, Duration::from_secs(5))
            .await
            .as_deref(),
        Some("")
    );

    // Requests that come in time are answered on one connection, past the limit in all.
    let mut prompt = connect().await.unwrap();
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(healthz(&mut prompt).await, "http/1.1 200 ok ok\n");
    }
    // A WebSocket lives past the limit: it is no longer HTTP.
    let mut client = server.client().await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_served(&mut client).await;
}
