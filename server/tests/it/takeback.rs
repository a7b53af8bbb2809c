//! Takebacks (PROTOCOL.md, `takeback`): a player asks the opponent to undo their last
//! turn, and the opponent's reply to it if one was made; the opponent accepts or declines.

use punct_protocol::{ClientMessage, ErrorCode, ServerMessage};
use punct_rules::Color;
use punct_testing::{TestServer, error_code};

fn acked(reply: &ServerMessage) -> bool {
    matches!(reply, ServerMessage::Ack { .. })
}

fn takeback(id: u64) -> ClientMessage {
    ClientMessage::Takeback { id }
}

fn accept(id: u64) -> ClientMessage {
    ClientMessage::AcceptTakeback { id }
}

fn decline(id: u64) -> ClientMessage {
    ClientMessage::DeclineTakeback { id }
}

#[tokio::test]
async fn an_accepted_takeback_undoes_the_askers_last_turn() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    // Nothing to take back before one's first turn.
    assert_eq!(
        error_code(alice.request(takeback).await),
        ErrorCode::TakebackUnavailable
    );
    alice.play("C4:C5,D5").await.unwrap();
    assert_eq!(
        error_code(bob.request(takeback).await),
        ErrorCode::TakebackUnavailable
    );

    // Alice asks while Bob is to move: her turn alone is undone.
    assert!(acked(&alice.request(takeback).await));
    assert_eq!(
        error_code(alice.request(takeback).await),
        ErrorCode::TakebackUnavailable,
        "her request stands already"
    );
    assert_eq!(
        error_code(alice.request(accept).await),
        ErrorCode::NoTakebackOffer,
        "nobody answers their own request"
    );
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.takeback_offer, Some(Color::White));
    assert!(acked(&bob.request(accept).await));
    assert!(matches!(
        alice.next_news().await,
        ServerMessage::TurnPlayed { .. }
    ));
    assert!(matches!(
        alice.next_news().await,
        ServerMessage::TakebackOffered {
            by: Color::White,
            ..
        }
    ));
    assert!(matches!(
        alice.next_news().await,
        ServerMessage::TakenBack {
            by: Color::White,
            number: 0,
            to_move: Color::White,
            ..
        }
    ));
    // Alice, to move again, gets the legal turns of the first position.
    match alice.next_news().await {
        ServerMessage::YourTurn { legal_turns, .. } => assert_eq!(legal_turns.len(), 4986),
        other => panic!("expected the legal turns, got {other:?}"),
    }
    assert!(server.record(&table.room).await.turns.is_empty());
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.takeback_offer, None);
    assert!(snapshot.board.is_empty());
    alice.play("B2:B1,B3").await.unwrap();
    assert_eq!(
        server.record(&table.room).await.turns,
        ["B2:B1,B3".parse().unwrap()]
    );
}

#[tokio::test]
async fn a_player_to_move_takes_back_the_reply_too() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.play("C4:C5,D5").await.unwrap();
    bob.play("J14:J15,K15").await.unwrap();
    alice.play("B2:B1,B3").await.unwrap();
    bob.play("N15:M14,N14").await.unwrap();
    // Alice is to move: her last turn and Bob's reply go.
    assert!(acked(&alice.request(takeback).await));
    assert!(acked(&bob.request(accept).await));
    let turns = server.record(&table.room).await.turns;
    let turns: Vec<String> = turns.iter().map(ToString::to_string).collect();
    assert_eq!(turns, ["C4:C5,D5", "J14:J15,K15"]);
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.to_move, Color::White);
    assert_eq!(snapshot.turns.len(), 2);
    // The game goes on from there.
    alice.play("B2:B1,B3").await.unwrap();
}

#[tokio::test]
async fn a_declined_or_lapsed_request_is_gone() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.play("C4:C5,D5").await.unwrap();
    assert!(acked(&alice.request(takeback).await));
    assert!(acked(&bob.request(decline).await));
    assert_eq!(
        error_code(bob.request(decline).await),
        ErrorCode::NoTakebackOffer
    );
    assert_eq!(server.record(&table.room).await.turns.len(), 1);
    // A turn played makes a standing request lapse: it named the turns before.
    assert!(acked(&alice.request(takeback).await));
    bob.play("J14:J15,K15").await.unwrap();
    assert_eq!(
        error_code(bob.request(accept).await),
        ErrorCode::NoTakebackOffer
    );
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.takeback_offer, None);
    assert_eq!(snapshot.turns.len(), 2);
    // Spectators only watch.
    let (mut watcher, _) = server.spectator(&table.room).await;
    assert_eq!(
        error_code(watcher.request(takeback).await),
        ErrorCode::NotAPlayer
    );
}

#[tokio::test]
async fn nothing_is_taken_back_once_the_game_is_over() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.play("C4:C5,D5").await.unwrap();
    assert!(acked(&alice.request(takeback).await));
    assert!(acked(&bob.request(|id| ClientMessage::Resign { id }).await));
    assert_eq!(error_code(bob.request(accept).await), ErrorCode::GameOver);
    assert_eq!(
        error_code(alice.request(takeback).await),
        ErrorCode::GameOver
    );
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.takeback_offer, None);
    assert_eq!(snapshot.turns.len(), 1);
}

/// Alice's events up to the turn taken back, which must come.
async fn taken_back(alice: &mut punct_testing::Client) -> (Color, usize) {
    loop {
        match alice.next_news().await {
            ServerMessage::TakenBack { by, number, .. } => return (by, number),
            ServerMessage::TakebackDeclined { .. } => panic!("the computer declined"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn the_computer_accepts_takebacks_in_its_casual_games() {
    let server = TestServer::start().await;
    let granted = server
        .create_room(r#"{"color":"white","computer":1}"#)
        .await;
    let mut alice = server.player(&granted.room, &granted.token).await;
    alice.play("C4:C5,D5").await.unwrap();
    // The computer answers with a turn; then Alice asks, and both turns are undone.
    loop {
        if let ServerMessage::TurnPlayed {
            by: Color::Black, ..
        } = alice.next_news().await
        {
            break;
        }
    }
    assert!(acked(&alice.request(takeback).await));
    assert_eq!(taken_back(&mut alice).await, (Color::White, 0));
    assert!(server.record(&granted.room).await.turns.is_empty());
    // Alice plays another turn, and asks at once: the computer, thinking, stops and
    // undoes her turn alone (or, if it answered first, both again).
    alice.play("P15:O14,Q16").await.unwrap();
    assert!(acked(&alice.request(takeback).await));
    assert_eq!(taken_back(&mut alice).await, (Color::White, 0));
    // And the game goes on: the computer answers her next turn.
    alice.play("C4:C5,D5").await.unwrap();
    loop {
        if let ServerMessage::TurnPlayed {
            by: Color::Black, ..
        } = alice.next_news().await
        {
            break;
        }
    }
    assert_eq!(server.record(&granted.room).await.turns.len(), 2);
}
