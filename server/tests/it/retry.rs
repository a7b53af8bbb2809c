//! A turn sent again after its answer was lost: with its number it is acknowledged once
//! and never played twice; a number that another turn holds, or that is not due yet,
//! changes nothing.

use punct_protocol::{ClientMessage, ErrorCode, ServerMessage};
use punct_rules::Turn;
use punct_testing::{Client, TestServer, error_code};

/// Plays `turn` as number `number` (or unnumbered): the reply.
async fn play(client: &mut Client, turn: &str, number: Option<u32>) -> ServerMessage {
    let turn: Turn = turn.parse().unwrap();
    client
        .request(|id| ClientMessage::Play { id, turn, number })
        .await
}

#[tokio::test]
async fn a_numbered_turn_sent_again_after_its_answer_was_lost_is_acknowledged_once() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut white = server.player(&table.room, &table.white).await;
    let mut black = server.player(&table.room, &table.black).await;
    // White's first turn leaves, and White's connection goes before the answer comes.
    let first: Turn = "C4:C5,D5".parse().unwrap();
    white
        .send(&ClientMessage::Play {
            id: 7,
            turn: first,
            number: Some(1),
        })
        .await;
    drop(white);
    // It was played: Black hears it.
    assert_eq!(black.next_turn().await.1, first);
    // White comes back, not knowing, and sends it again, numbered: acknowledged.
    let mut white = server.player(&table.room, &table.white).await;
    let again = play(&mut white, "C4:C5,D5", Some(1)).await;
    assert!(matches!(again, ServerMessage::Ack { .. }), "{again:?}");
    assert_eq!(server.record(&table.room).await.turns, [first]);
    // Unnumbered, the same turn is what it always was: out of turn.
    let unnumbered = play(&mut white, "C4:C5,D5", None).await;
    assert_eq!(error_code(unnumbered), ErrorCode::NotYourTurn);
    // Black's turn 2, then sent again: one turn 2.
    let second = play(&mut black, "F5:F6,G6", Some(2)).await;
    assert!(matches!(second, ServerMessage::Ack { .. }), "{second:?}");
    let again = play(&mut black, "F5:F6,G6", Some(2)).await;
    assert!(matches!(again, ServerMessage::Ack { .. }), "{again:?}");
    // White's turn 2 does not exist: number 2 was Black's, and another turn.
    let taken = play(&mut white, "C6:C7,D7", Some(2)).await;
    assert_eq!(error_code(taken), ErrorCode::NotYourTurn);
    // Nor may White play ahead of the game, or as turn 0.
    for number in [4, 0] {
        let not_due = play(&mut white, "C6:C7,D7", Some(number)).await;
        assert_eq!(
            error_code(not_due),
            ErrorCode::NotYourTurn,
            "number {number}"
        );
    }
    // Black's turn 2 again, but another turn: refused, as Black has played turn 2.
    let other = play(&mut black, "J14:J15,K15", Some(2)).await;
    assert_eq!(error_code(other), ErrorCode::NotYourTurn);
    // The game goes on as numbered.
    let third = play(&mut white, "C6:C7,D7", Some(3)).await;
    assert!(matches!(third, ServerMessage::Ack { .. }), "{third:?}");
    let turns: Vec<String> = server
        .record(&table.room)
        .await
        .turns
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(turns, ["C4:C5,D5", "F5:F6,G6", "C6:C7,D7"]);
}
