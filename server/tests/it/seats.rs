//! Seats belong to whoever holds their token: taking a seat, coming back, taking over.

use punct_protocol::{ErrorCode, Role, SeatGranted, ServerMessage};
use punct_rules::Color;
use punct_testing::{TestServer, refused};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test]
async fn a_second_connection_with_the_token_takes_over_the_seat() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let (mut carol, _) = server.spectator(&table.room).await;

    // Alice opens the game on her laptop, then again on her phone.
    let mut phone = server.client().await;
    let snapshot = phone.join(&table.room, &table.white).await;
    assert!(snapshot.players.white.connected);
    assert!(
        snapshot.legal_turns.is_some(),
        "the phone may play White's turn"
    );

    // The laptop is told, then closed.
    let close = alice.closed().await;
    assert!(matches!(
        alice.kept().last(),
        Some(ServerMessage::Bye {
            code: ErrorCode::SeatTakenOver,
            ..
        })
    ));
    assert_eq!(close.map(|frame| frame.code), Some(CloseCode::Normal));
    // Carol sees White come back rather than leave.
    assert!(matches!(
        carol.next_uncounted().await,
        ServerMessage::PlayerReconnected {
            color: Color::White,
            ..
        }
    ));

    // The phone plays; everyone sees it.
    let seq = phone.play("C4:C5,D5").await.unwrap();
    assert_eq!(carol.next_turn().await, (seq, "C4:C5,D5".parse().unwrap()));
    let summary = server.summary(&table.room).await;
    assert!(summary.players.white.connected);
}

#[tokio::test]
async fn a_player_who_left_comes_back_with_the_token() {
    let server = TestServer::start().await;
    let table = server.table("basic").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    let (mut carol, _) = server.spectator(&table.room).await;
    alice.play("C4:C5,D5").await.unwrap();
    assert_eq!(carol.next_turn().await.1.to_string(), "C4:C5,D5");

    drop(bob);
    assert!(matches!(
        carol.next_uncounted().await,
        ServerMessage::PlayerLeft {
            color: Color::Black,
            ..
        }
    ));
    assert!(!server.summary(&table.room).await.players.black.connected);

    bob = server.client().await;
    let snapshot = bob.join(&table.room, &table.black).await;
    assert_eq!(snapshot.turns.len(), 1);
    assert_eq!(snapshot.to_move, Color::Black);
    assert!(matches!(
        carol.next_uncounted().await,
        ServerMessage::PlayerReconnected {
            color: Color::Black,
            ..
        }
    ));
    let seq = bob.play("J14:J15,K15").await.unwrap();
    assert_eq!(
        carol.next_turn().await,
        (seq, "J14:J15,K15".parse().unwrap())
    );
}

#[tokio::test]
async fn the_creator_chooses_a_colour_and_the_other_seat_goes_to_the_next_comer() {
    let server = TestServer::start().await;
    let creator = server
        .create_room(r#"{"color":"black","visibility":"private"}"#)
        .await;
    assert_eq!(creator.color, Color::Black);
    assert_eq!(creator.token.len(), 32, "128 bits, hex-encoded");
    let guest = server.take_seat(&creator.room).await;
    assert_eq!(guest.color, Color::White);
    assert_ne!(guest.token, creator.token);

    // No third seat.
    let (status, body) = server
        .http("POST", &format!("/api/rooms/{}/seat", creator.room), "")
        .await;
    assert_eq!(status, 409);
    assert!(body.contains(r#""code":"room-full""#), "{body}");

    // Each token seats its own colour.
    let mut white = server.client().await;
    let reply = white
        .request(|id| punct_protocol::ClientMessage::Join {
            id,
            room: guest.room.clone(),
            token: Some(guest.token.clone()),
            since: None,
        })
        .await;
    assert!(
        matches!(
            reply,
            ServerMessage::Snapshot {
                you: Role::White,
                ..
            }
        ),
        "{reply:?}"
    );
    // A random colour is one of the two.
    let random: SeatGranted = server.create_room("").await;
    assert!(Color::ALL.contains(&random.color));
    // A token of one room does not open another.
    let mut stranger = server.client().await;
    let reply = stranger
        .request(|id| punct_protocol::ClientMessage::Join {
            id,
            room: random.room.clone(),
            token: Some(creator.token.clone()),
            since: None,
        })
        .await;
    assert!(matches!(
        reply,
        ServerMessage::Error {
            code: ErrorCode::BadToken,
            ..
        }
    ));
    assert_eq!(
        stranger.play("C4:C5,D5").await,
        Err(refused(ErrorCode::NotJoined))
    );
}
