//! Clocks on the wire: a timed room shows both clocks in every snapshot and turn, and in
//! its summary. (How
//! they run, fall and survive a restart is tested with paused time in `clock.rs` and
//! `room.rs`.)

use punct_protocol::ServerMessage;
use punct_rules::Color;
use punct_testing::TestServer;

#[tokio::test]
async fn a_timed_room_shows_both_clocks_in_snapshots_turns_and_its_summary() {
    let server = TestServer::start().await;
    let white = server
        .create_room(r#"{"color":"white","clock":{"base":60,"increment":5}}"#)
        .await;
    let black = server.take_seat(&white.room).await;
    let mut alice = server.player(&white.room, &white.token).await;
    let (_, snapshot) = server.spectator(&white.room).await;
    let clock = snapshot.clock.expect("a timed room has clocks");
    assert_eq!(
        (
            clock.white_ms,
            clock.black_ms,
            clock.running,
            clock.increment_ms
        ),
        (60_000, 60_000, None, 5_000),
        "nothing runs before the first turn"
    );
    let mut bob = server.player(&white.room, &black.token).await;
    // White's first turn is not timed; then Black's clock runs.
    alice.play("C4:C5,D5").await.unwrap();
    let clock = loop {
        if let ServerMessage::TurnPlayed { clock, .. } = bob.next_news().await {
            break clock.expect("turns carry the clocks");
        }
    };
    assert_eq!(
        (clock.white_ms, clock.running),
        (60_000, Some(Color::Black))
    );
    assert!(clock.black_ms <= 60_000, "{clock:?}");
    // Black's turn stops Black's clock and adds the increment.
    bob.play("J14:J15,K15").await.unwrap();
    let clock = loop {
        if let ServerMessage::TurnPlayed {
            by: Color::Black,
            clock,
            ..
        } = alice.next_news().await
        {
            break clock.unwrap();
        }
    };
    assert_eq!(clock.running, Some(Color::White));
    assert!(
        clock.black_ms > 60_000 && clock.black_ms <= 65_000,
        "{clock:?}"
    );
    // The room's summary tells its last turn and the clocks as they stand.
    let summary = server.summary(&white.room).await;
    assert_eq!(
        summary.last_turn.map(|t| t.to_string()).as_deref(),
        Some("J14:J15,K15")
    );
    let clocks = summary
        .clocks
        .expect("a running timed room's summary has its clocks");
    assert_eq!(
        (clocks.running, clocks.black_ms),
        (Some(Color::White), clock.black_ms)
    );
    assert!(clocks.white_ms <= 60_000, "{clocks:?}");
    // An untimed room has none.
    let untimed = server.create_room("").await;
    let (_, snapshot) = server.spectator(&untimed.room).await;
    assert_eq!(snapshot.clock, None);
    assert_eq!(server.summary(&untimed.room).await.clocks, None);
}
