//! A rematch, as a conversation: both players ask after the game, and everyone in the room
//! is told where the rematch is played, colours swapped, with the seats the players hold.

use punct_protocol::{ClientMessage, ErrorCode, RoomStatus, ServerMessage};
use punct_rules::Color;
use punct_testing::{Client, TestServer, error_code};

/// Asks for a rematch; answers the reply.
async fn rematch(client: &mut Client) -> ServerMessage {
    client.request(|id| ClientMessage::Rematch { id }).await
}

/// The next news that is not the end of the game being played out.
async fn next_after_the_game(client: &mut Client) -> ServerMessage {
    loop {
        match client.next_news().await {
            ServerMessage::TurnPlayed { .. }
            | ServerMessage::YourTurn { .. }
            | ServerMessage::GameOver { .. } => continue,
            other => return other,
        }
    }
}

#[tokio::test]
async fn a_rematch_swaps_colours_in_a_new_room_everyone_is_told_about() {
    let server = TestServer::start().await;
    let table = server.table("basic").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    let (mut carol, _) = server.spectator(&table.room).await;
    alice.play("C4:C5,D5").await.unwrap();
    // No rematch while the game goes on.
    assert_eq!(
        error_code(rematch(&mut bob).await),
        ErrorCode::RematchUnavailable
    );
    let reply = bob.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }), "{reply:?}");

    // Alice asks; everyone hears it.
    let ServerMessage::Ack { seq, .. } = rematch(&mut alice).await else {
        panic!("alice's request is acknowledged");
    };
    for client in [&mut alice, &mut bob, &mut carol] {
        assert_eq!(
            next_after_the_game(client).await,
            ServerMessage::RematchOffered {
                seq,
                by: Color::White
            }
        );
    }
    // Asking twice changes nothing; a spectator may not ask.
    assert_eq!(
        error_code(rematch(&mut alice).await),
        ErrorCode::RematchUnavailable
    );
    assert_eq!(error_code(rematch(&mut carol).await), ErrorCode::NotAPlayer);

    // Bob asks too: the rematch is made, and everyone is told where.
    let ServerMessage::Ack { seq, .. } = rematch(&mut bob).await else {
        panic!("bob's request is acknowledged");
    };
    let mut rooms = Vec::new();
    for client in [&mut alice, &mut bob, &mut carol] {
        match client.next_news().await {
            ServerMessage::Rematch { seq: told, room } => {
                assert_eq!(told, seq);
                rooms.push(room);
            }
            other => panic!("expected the rematch, got {other:?}"),
        }
    }
    let room = rooms.pop().unwrap();
    assert_eq!(rooms, [room.clone(), room.clone()]);
    assert_ne!(room, table.room);
    assert_eq!(
        error_code(rematch(&mut bob).await),
        ErrorCode::RematchUnavailable,
        "the rematch is made already"
    );
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.rematch.as_ref(), Some(&room));

    // Each player's token holds the other colour there: Bob opens as White.
    let summary = server.summary(&room).await;
    assert_eq!(summary.status, RoomStatus::Live);
    assert_eq!(summary.turns, 0);
    let mut alice = server.player(&room, &table.white).await;
    let mut bob = server.player(&room, &table.black).await;
    assert_eq!(
        alice.play("C4:C5,D5").await,
        Err(punct_testing::refused(ErrorCode::NotYourTurn))
    );
    bob.play("C4:C5,D5").await.unwrap();
    alice.play("J14:J15,K15").await.unwrap();
    let record = server.record(&room).await;
    assert_eq!(record.turns.len(), 2);
    assert_eq!(record.outcome, None);
    // The first game stands as it ended.
    assert_eq!(server.record(&table.room).await.turns.len(), 1);
}
