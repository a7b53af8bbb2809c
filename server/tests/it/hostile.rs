//! A hostile client against a live server: bad frames of every kind, floods, replays,
//! tokens for the wrong room, too many connections, rooms or origins. Each gets its
//! documented error or close code, the server stays up, and the game in progress is
//! exactly as it was.

use punct_protocol::{ErrorCode, Record, ServerMessage};
use punct_server::Config;
use punct_testing::{Client, TestServer, illegal};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};

/// The two turns played before the attack.
const TURNS: [&str; 2] = ["C4:C5,D5", "J14:J15,K15"];

/// A game two turns in: Alice (White) is to move, Bob waits, Carol watches.
struct Scene {
    server: TestServer,
    room: String,
    alice: Client,
    bob: Client,
    carol: Client,
}

async fn scene(config: Config) -> Scene {
    let server = TestServer::with(config).await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    let (mut carol, _) = server.spectator(&table.room).await;
    alice.play(TURNS[0]).await.unwrap();
    bob.play(TURNS[1]).await.unwrap();
    for client in [&mut alice, &mut bob, &mut carol] {
        for turn in TURNS {
            assert_eq!(client.next_turn().await.1.to_string(), turn);
        }
    }
    Scene {
        server,
        room: table.room,
        alice,
        bob,
        carol,
    }
}

impl Scene {
    /// The game holds the two turns and nothing else; it goes on, and everyone sees the
    /// next turn as the next event.
    async fn assert_unchanged(mut self) {
        assert_eq!(self.server.http("GET", "/healthz", "").await.0, 200);
        let record = self.server.record(&self.room).await;
        assert_eq!(record.turns, TURNS.map(|t| t.parse().unwrap()));
        let seq = self.alice.play("C7:C8,D8").await.unwrap();
        for client in [&mut self.alice, &mut self.bob, &mut self.carol] {
            assert_eq!(client.next_turn().await, (seq, "C7:C8,D8".parse().unwrap()));
        }
    }
}

/// The one reply to `frame` sent alone on a fresh connection that has said hello.
async fn answer_to(scene: &Scene, frame: Message) -> ServerMessage {
    let mut mallory = scene.server.client().await;
    mallory.send_raw(frame).await;
    mallory.recv().await
}

#[tokio::test]
async fn every_bad_frame_gets_its_error_and_changes_nothing() {
    let s = scene(Config::default()).await;
    let deep = format!(
        r#"{{"type":"watch","id":7,"room":{}{}}}"#,
        "[".repeat(1900),
        "]".repeat(1900)
    );
    let corpus: Vec<(&str, String, Option<u64>, ErrorCode)> = vec![
        ("empty", String::new(), None, ErrorCode::Malformed),
        ("not JSON", "{oops".into(), None, ErrorCode::Malformed),
        ("JSON null", "null".into(), None, ErrorCode::Malformed),
        ("a JSON array", "[1,2]".into(), None, ErrorCode::Malformed),
        (
            "a JSON string",
            r#""hello""#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "trailing bytes",
            r#"{"type":"watch","id":7,"room":"x"} x"#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "no type",
            r#"{"id":7}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        (
            "no id",
            r#"{"type":"watch","room":"x"}"#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "unknown type",
            r#"{"type":"dance","id":7}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        (
            "type in capitals",
            r#"{"type":"WATCH","id":7,"room":"x"}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        (
            "id as a string",
            r#"{"type":"watch","id":"7","room":"x"}"#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "room as a number",
            r#"{"type":"watch","id":7,"room":12}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        (
            "unknown field",
            r#"{"type":"watch","id":7,"room":"x","colour":"red"}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        (
            "id past u64",
            r#"{"type":"watch","id":18446744073709551616,"room":"x"}"#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "id out of f64",
            r#"{"type":"watch","id":1e400,"room":"x"}"#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "negative id",
            r#"{"type":"watch","id":-1,"room":"x"}"#.into(),
            None,
            ErrorCode::Malformed,
        ),
        (
            "huge since",
            r#"{"type":"watch","id":7,"room":"x","since":1e30}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        ("deep nesting", deep, None, ErrorCode::Malformed),
        (
            "turn not notation",
            r#"{"type":"play","id":7,"turn":"C4:C5"}"#.into(),
            Some(7),
            ErrorCode::BadNotation,
        ),
        (
            "turn as a number",
            r#"{"type":"play","id":7,"turn":44}"#.into(),
            Some(7),
            ErrorCode::Malformed,
        ),
        (
            "play before join",
            r#"{"type":"play","id":7,"turn":"C7:C8,D8"}"#.into(),
            Some(7),
            ErrorCode::NotJoined,
        ),
        (
            "resign before join",
            r#"{"type":"resign","id":7}"#.into(),
            Some(7),
            ErrorCode::NotJoined,
        ),
        (
            "unknown room",
            r#"{"type":"watch","id":7,"room":"0000000000"}"#.into(),
            Some(7),
            ErrorCode::NoSuchRoom,
        ),
        (
            "second hello",
            r#"{"type":"hello","id":7,"version":1}"#.into(),
            Some(7),
            ErrorCode::DuplicateHello,
        ),
    ];
    for (what, frame, id, code) in corpus {
        let reply = answer_to(&s, Message::text(frame)).await;
        assert!(
            matches!(&reply, ServerMessage::Error { id: got, code: c, .. } if *got == id && *c == code),
            "{what}: expected {code} for id {id:?}, got {reply:?}"
        );
    }
    let binary = answer_to(&s, Message::binary(b"\x00\x01{}".to_vec())).await;
    assert!(
        matches!(
            binary,
            ServerMessage::Error {
                id: None,
                code: ErrorCode::Malformed,
                ..
            }
        ),
        "binary: {binary:?}"
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_play_that_is_not_one_json_object_is_refused_and_plays_nothing() {
    let mut s = scene(Config::default()).await;
    // Alice is to move, and sends her next turn in shapes serde alone would accept: an
    // array (the tag, then the fields in order), and an object with a key twice.
    for frame in [
        r#"["play",3,"C7:C8,D8"]"#,
        r#"{"type":"play","id":3,"turn":"A3:A2,A4","turn":"C7:C8,D8"}"#,
        r#"{"type":"play","id":3,"id":4,"turn":"C7:C8,D8"}"#,
    ] {
        s.alice.send_text(frame).await;
        let reply = loop {
            match s.alice.next_news().await {
                ServerMessage::YourTurn { .. } => continue,
                other => break other,
            }
        };
        assert!(
            matches!(
                reply,
                ServerMessage::Error {
                    id: None,
                    code: ErrorCode::Malformed,
                    ..
                }
            ),
            "{frame}: {reply:?}"
        );
    }
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_text_frame_that_is_not_utf8_is_refused_and_closed() {
    let s = scene(Config::default()).await;
    let mut mallory = s.server.client().await;
    let bytes = b"{\"type\":\"watch\",\"id\":7,\"room\":\"\xff\xfe\"}".to_vec();
    mallory
        .send_raw(Message::Frame(Frame::message(
            bytes,
            OpCode::Data(Data::Text),
            true,
        )))
        .await;
    let close = mallory.closed().await;
    assert!(
        matches!(
            mallory.kept().as_slice(),
            [ServerMessage::Error {
                code: ErrorCode::Malformed,
                ..
            }]
        ),
        "a typed error before the close"
    );
    assert_eq!(close.map(|frame| frame.code), Some(CloseCode::Invalid));
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_token_of_another_room_and_replayed_requests_change_nothing() {
    let mut s = scene(Config::default()).await;
    let other = s.server.table("standard").await;
    let before: Record = s.server.record(&other.room).await;

    // The second room's White token presented to the first room.
    let wrong_room = other.white.clone();
    let mut intruder = s.server.client().await;
    assert_eq!(
        intruder.join_refused(&s.room, &wrong_room).await,
        ErrorCode::BadToken
    );
    // …and, now in no room, cannot play there.
    assert!(matches!(
        intruder
            .request(|id| punct_protocol::ClientMessage::Play {
                id,
                turn: "C7:C8,D8".parse().unwrap(),
                number: None,
            })
            .await,
        ServerMessage::Error {
            code: ErrorCode::NotJoined,
            ..
        }
    ));
    assert_eq!(s.server.record(&other.room).await, before);

    // Bob sends his earlier turn again, word for word, with the same request id: it is
    // not his turn. Alice replays White's first turn: the cell is taken.
    s.bob
        .send_text(r#"{"type":"play","id":2,"turn":"J14:J15,K15"}"#)
        .await;
    assert!(matches!(
        s.bob.reply_to(2).await,
        ServerMessage::Error {
            code: ErrorCode::NotYourTurn,
            ..
        }
    ));
    assert_eq!(
        s.alice.play(TURNS[0]).await,
        Err(illegal("drop-on-occupied-cell"))
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_flooding_client_is_told_then_closed_and_the_game_goes_on() {
    let s = scene(Config::default()).await;
    let mut mallory = s.server.client().await;
    for _ in 0..60 {
        mallory.send_text(r#"{"type":"dance","id":1}"#).await;
    }
    let close = mallory.closed().await;
    let replies = mallory.kept();
    let codes: Vec<ErrorCode> = replies
        .iter()
        .map(|m| match m {
            ServerMessage::Error { code, .. } | ServerMessage::Bye { code, .. } => *code,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    // First the errors the frames deserve, then `rate-limited` ones, then a `bye`.
    let malformed = codes
        .iter()
        .take_while(|&&c| c == ErrorCode::Malformed)
        .count();
    assert!(malformed >= 10, "{codes:?}");
    assert!(
        codes[malformed..]
            .iter()
            .all(|&c| c == ErrorCode::RateLimited),
        "{codes:?}"
    );
    assert!(
        codes.len() > malformed + 1,
        "told before being closed: {codes:?}"
    );
    assert!(matches!(
        replies.last(),
        Some(ServerMessage::Bye {
            code: ErrorCode::RateLimited,
            ..
        })
    ));
    assert_eq!(close.map(|frame| frame.code), Some(CloseCode::Policy));
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_player_flooding_turns_is_closed_and_comes_back_with_the_token() {
    let config = Config::default();
    let server = TestServer::with(config).await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    // Bob hammers out-of-turn plays without reading.
    for _ in 0..200 {
        bob.send_text(r#"{"type":"play","id":1,"turn":"J14:J15,K15"}"#)
            .await;
    }
    // The server reads and drops what is still in flight before it closes, so the
    // close frame arrives rather than a TCP reset.
    let close = bob.closed().await;
    assert_eq!(close.map(|frame| frame.code), Some(CloseCode::Policy));
    let codes: Vec<ErrorCode> = bob
        .kept()
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Error { code, .. } | ServerMessage::Bye { code, .. } => Some(*code),
            _ => None,
        })
        .collect();
    assert!(
        codes.starts_with(&[ErrorCode::NotYourTurn; 40]),
        "{codes:?}"
    );
    assert!(codes.contains(&ErrorCode::RateLimited));

    // The server dropped Bob for flooding and nothing was played.
    let (_, page) = server.http("GET", "/metrics", "").await;
    assert!(
        page.contains(r#"punct_disconnects_total{reason="flood"} 1"#),
        "{page}"
    );
    assert!(!server.summary(&table.room).await.players.black.connected);

    // Alice plays, Bob joins again and answers.
    assert!(server.record(&table.room).await.turns.is_empty());
    alice.play(TURNS[0]).await.unwrap();
    let mut bob = server.player(&table.room, &table.black).await;
    bob.play(TURNS[1]).await.unwrap();
    let record = server.record(&table.room).await;
    assert_eq!(record.turns, TURNS.map(|t| t.parse().unwrap()));
}

#[tokio::test]
async fn http_limits_refuse_with_their_codes() {
    let config = Config {
        rooms_per_minute: 3,
        max_connections_per_ip: 2,
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    for _ in 0..3 {
        server.create_room("").await;
    }
    let (status, body) = server.http("POST", "/api/rooms", "").await;
    assert_eq!(status, 429, "{body}");
    assert!(body.contains(r#""code":"rate-limited""#), "{body}");

    // Bodies are small JSON objects.
    let big = format!(r#"{{"variant":"standard","pad":"{}"}}"#, "x".repeat(5000));
    assert_eq!(server.http("POST", "/api/rooms", &big).await.0, 413);

    // Two connections from this address, not three.
    let first = server.client().await;
    let _second = server.client().await;
    assert_eq!(server.upgrade_status(None).await, 429);
    drop(first);
    server.await_free_slot().await;

    // The metrics page counts what was turned away, and shows the cap on connections
    // (and the lease a single server always holds) to alert on.
    let (status, page) = server.http("GET", "/metrics", "").await;
    assert_eq!(status, 200);
    let cap = format!("punct_max_connections {}", Config::DEFAULT.max_connections);
    for line in [
        r#"punct_refused_total{reason="rooms-per-minute"} 1"#,
        r#"punct_rooms{state="open"} 3"#,
        "punct_lease_held 1",
        cap.as_str(),
    ] {
        assert!(page.lines().any(|l| l == line), "no {line:?} in\n{page}");
    }
    assert!(page.contains(r#"punct_refused_total{reason="connections-per-ip"}"#));
}

#[tokio::test]
async fn only_allowed_origins_open_websockets_when_a_list_is_set() {
    let open = TestServer::start().await;
    assert_eq!(
        open.upgrade_status(Some("https://anywhere.example")).await,
        101
    );

    let config = Config {
        allowed_origins: vec!["https://punct.example".into()],
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    let own = format!("http://{}", server.addr);
    assert_eq!(
        server.upgrade_status(Some("https://punct.example")).await,
        101
    );
    assert_eq!(
        server.upgrade_status(Some(&own)).await,
        101,
        "its own pages"
    );
    assert_eq!(
        server.upgrade_status(None).await,
        101,
        "programs send no Origin"
    );
    assert_eq!(
        server.upgrade_status(Some("https://evil.example")).await,
        403
    );
    assert_eq!(server.upgrade_status(Some("null")).await, 403);
}

#[tokio::test]
async fn metrics_count_turns_messages_and_connections() {
    let mut s = scene(Config::default()).await;
    assert_eq!(
        s.bob.play("C7:C8,D8").await.unwrap_err().code,
        ErrorCode::NotYourTurn
    );
    let (status, page) = s.server.http("GET", "/metrics", "").await;
    assert_eq!(status, 200);
    for line in [
        "punct_connections 3",
        r#"punct_rooms{state="live"} 1"#,
        "punct_turns_accepted_total 2",
        r#"punct_turns_rejected_total{reason="not-your-turn"} 1"#,
        r#"punct_messages_total{type="hello"} 3"#,
        r#"punct_messages_total{type="play"} 3"#,
    ] {
        assert!(page.lines().any(|l| l == line), "no {line:?} in\n{page}");
    }
    let commits = page
        .lines()
        .find_map(|l| l.strip_prefix("punct_db_commit_seconds_count "))
        .expect("the commit histogram");
    assert!(commits.parse::<u64>().unwrap() >= 2, "{commits}");
    s.assert_unchanged().await;
}
