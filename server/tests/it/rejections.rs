//! Every request the server refuses gets a typed error, to the sender only, and changes
//! nothing.

use punct_protocol::{ClientMessage, ErrorCode, ServerMessage};
use punct_testing::{Client, TestServer, illegal, refused};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// A room where Alice (White) and Bob (Black) sit and Carol watches; Alice has played
/// one turn, so it is Bob's turn.
struct Scene {
    server: TestServer,
    room: String,
    alice: Client,
    bob: Client,
    carol: Client,
}

async fn scene() -> Scene {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let bob = server.player(&table.room, &table.black).await;
    let (carol, _) = server.spectator(&table.room).await;
    alice.play("C4:C5,D5").await.unwrap();
    Scene {
        room: table.room,
        server,
        alice,
        bob,
        carol,
    }
}

impl Scene {
    /// The game still holds only Alice's turn, and everyone in the room saw that turn and
    /// nothing else.
    async fn assert_unchanged(mut self) {
        let record = self.server.record(&self.room).await;
        assert_eq!(record.turns, vec!["C4:C5,D5".parse().unwrap()]);
        let (_, snapshot) = self.server.spectator(&self.room).await;
        assert_eq!(snapshot.turns.len(), 1);
        assert_eq!(snapshot.board.len(), 3);
        // Bob can still play his turn, and everyone sees it as the next turn.
        let seq = self.bob.play("J14:J15,K15").await.unwrap();
        for client in [&mut self.alice, &mut self.bob, &mut self.carol] {
            assert_eq!(client.next_turn().await.1.to_string(), "C4:C5,D5");
            assert_eq!(
                client.next_turn().await,
                (seq, "J14:J15,K15".parse().unwrap())
            );
        }
    }
}

#[tokio::test]
async fn an_illegal_turn_is_refused_with_the_rule_it_breaks() {
    let mut s = scene().await;
    // A drop into the central hexagon in the standard game.
    assert_eq!(
        s.bob.play("I9:I10,J10").await,
        Err(illegal("drop-in-centre"))
    );
    // A drop onto Alice's piece.
    assert_eq!(
        s.bob.play("C5:C6,D6").await,
        Err(illegal("drop-on-occupied-cell"))
    );
    // A pass while turns are possible.
    assert_eq!(s.bob.play("pass").await, Err(illegal("pass-not-allowed")));
    // Moving Alice's piece.
    assert_eq!(
        s.bob.play("C4-C6:C7,D7").await,
        Err(illegal("not-your-piece"))
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_turn_out_of_turn_is_refused() {
    let mut s = scene().await;
    assert_eq!(
        s.alice.play("J14:J15,K15").await,
        Err(refused(ErrorCode::NotYourTurn))
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_spectator_cannot_play() {
    let mut s = scene().await;
    assert_eq!(
        s.carol.play("J14:J15,K15").await,
        Err(refused(ErrorCode::NotAPlayer))
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn a_wrong_token_takes_no_seat() {
    let s = scene().await;
    let mut mallory = s.server.client().await;
    let wrong = "0".repeat(32);
    assert_eq!(
        mallory.join_refused(&s.room, &wrong).await,
        ErrorCode::BadToken
    );
    // Without a seat Mallory cannot play either.
    assert_eq!(
        mallory.play("J14:J15,K15").await,
        Err(refused(ErrorCode::NotJoined))
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn an_unknown_room_cannot_be_joined() {
    let s = scene().await;
    let mut mallory = s.server.client().await;
    let reply = mallory
        .request(|id| ClientMessage::Watch {
            id,
            room: "nowhere".into(),
            since: None,
        })
        .await;
    assert!(
        matches!(
            reply,
            ServerMessage::Error {
                code: ErrorCode::NoSuchRoom,
                ..
            }
        ),
        "{reply:?}"
    );
    s.assert_unchanged().await;
}

#[tokio::test]
async fn malformed_messages_are_refused_with_their_id_when_it_can_be_read() {
    let mut s = scene().await;
    let mut mallory = s.server.client().await;
    mallory.send_text("{not json").await;
    assert!(matches!(
        mallory.recv().await,
        ServerMessage::Error {
            id: None,
            code: ErrorCode::Malformed,
            ..
        }
    ));
    // A play without a turn.
    s.bob.send_text(r#"{"type":"play","id":41}"#).await;
    assert!(matches!(
        s.bob.reply_to(41).await,
        ServerMessage::Error {
            code: ErrorCode::Malformed,
            ..
        }
    ));
    // A turn that is not notation.
    s.bob
        .send_text(r#"{"type":"play","id":42,"turn":"Z99:A1,A2"}"#)
        .await;
    assert!(matches!(
        s.bob.reply_to(42).await,
        ServerMessage::Error {
            code: ErrorCode::BadNotation,
            ..
        }
    ));
    // A message type nobody knows.
    s.bob.send_text(r#"{"type":"dance","id":43}"#).await;
    assert!(matches!(
        s.bob.reply_to(43).await,
        ServerMessage::Error {
            code: ErrorCode::Malformed,
            ..
        }
    ));
    // A second hello, and a second join on the same connection.
    s.bob
        .send_text(r#"{"type":"hello","id":44,"version":1}"#)
        .await;
    assert!(matches!(
        s.bob.reply_to(44).await,
        ServerMessage::Error {
            code: ErrorCode::DuplicateHello,
            ..
        }
    ));
    let room = s.room.clone();
    let reply = s
        .bob
        .request(|id| ClientMessage::Watch {
            id,
            room,
            since: None,
        })
        .await;
    assert!(matches!(
        reply,
        ServerMessage::Error {
            code: ErrorCode::AlreadyJoined,
            ..
        }
    ));
    s.assert_unchanged().await;
}

#[tokio::test]
async fn an_oversized_frame_closes_the_connection() {
    let mut s = scene().await;
    let padding = "x".repeat(8 * 1024);
    s.bob
        .send_text(&format!(
            r#"{{"type":"play","id":50,"turn":"J14:J15,K15","padding":"{padding}"}}"#
        ))
        .await;
    let close = s.bob.closed().await;
    assert!(matches!(
        s.bob.kept().last(),
        Some(ServerMessage::Error {
            code: ErrorCode::MessageTooLarge,
            ..
        })
    ));
    // The server reads no further than its limit, so the rest of the frame is still
    // unread when it closes: the close frame then races a TCP reset, and a client may see
    // either. The typed error above always arrives first.
    assert!(
        close
            .as_ref()
            .is_none_or(|frame| frame.code == CloseCode::Size),
        "{close:?}"
    );
    // The turn inside was not played, and Bob's seat is empty until he comes back.
    let record = s.server.record(&s.room).await;
    assert_eq!(record.turns.len(), 1);
    let summary = s.server.summary(&s.room).await;
    assert!(summary.players.black.taken && !summary.players.black.connected);
}

#[tokio::test]
async fn a_client_of_another_protocol_version_is_told_and_closed() {
    let s = scene().await;
    let mut old = s.server.connect().await;
    old.send_text(r#"{"type":"hello","id":1,"version":0}"#)
        .await;
    let close = old.closed().await;
    assert!(matches!(
        old.kept().as_slice(),
        [ServerMessage::Error {
            id: Some(1),
            code: ErrorCode::UnsupportedVersion,
            ..
        }]
    ));
    assert_eq!(close.map(|frame| frame.code), Some(CloseCode::Protocol));
    s.assert_unchanged().await;
}

#[tokio::test]
async fn nothing_is_heard_before_hello() {
    let s = scene().await;
    let mut rude = s.server.connect().await;
    let room = s.room.clone();
    let reply = rude
        .request(|id| ClientMessage::Watch {
            id,
            room,
            since: None,
        })
        .await;
    assert!(matches!(
        reply,
        ServerMessage::Error {
            code: ErrorCode::HelloRequired,
            ..
        }
    ));
    // Binary frames are not the protocol either.
    rude.hello().await;
    let mut ws_binary = s.server.client().await;
    ws_binary.send_binary(b"\x00\x01").await;
    assert!(matches!(
        ws_binary.recv().await,
        ServerMessage::Error {
            code: ErrorCode::Malformed,
            ..
        }
    ));
    s.assert_unchanged().await;
}
