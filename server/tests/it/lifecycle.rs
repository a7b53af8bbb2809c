//! Coming back after a dropped connection, resigning, and draw offers, as conversations
//! between players, spectators and the server.

use punct_protocol::{ClientMessage, ErrorCode, Role, ServerMessage};
use punct_rules::{Color, DrawReason, Outcome, Variant, WinReason};
use punct_server::Config;
use punct_testing::{TestServer, error_code};

use crate::games;

#[tokio::test]
async fn a_player_who_comes_back_gets_exactly_the_events_missed() {
    let turns = games::white_connects(Variant::Standard);
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    let (mut carol, _) = server.spectator(&table.room).await;
    alice.play(&turns[0].to_string()).await.unwrap();
    let seq = bob.play(&turns[1].to_string()).await.unwrap();
    // Bob has seen everything up to his own turn; then his connection drops.
    while bob.next_turn().await.0 != seq {}
    let since = bob.last_seq().unwrap();
    drop(bob);

    // Alice plays on and offers a draw; Carol sees it all, Bob's departure included.
    alice.play(&turns[2].to_string()).await.unwrap();
    alice.request(|id| ClientMessage::OfferDraw { id }).await;
    let mut seen = Vec::new();
    let mut bob_left = false;
    loop {
        let message = carol.recv().await;
        bob_left |= matches!(
            message,
            ServerMessage::PlayerLeft {
                color: Color::Black,
                ..
            }
        );
        if message.seq().is_some_and(|s| s > since) {
            seen.push(message.clone());
        }
        if matches!(message, ServerMessage::DrawOffered { .. }) {
            break;
        }
    }
    assert!(bob_left, "Carol was told Bob left");

    // Bob comes back, saying where he was: he is told who is there now, then gets the
    // game's events he missed, each once, in order; presence is not replayed.
    let mut bob = server.client().await;
    let reply = bob
        .request(|id| ClientMessage::Join {
            id,
            room: table.room.clone(),
            token: Some(table.black.clone()),
            since: Some(since),
        })
        .await;
    let ServerMessage::Resumed {
        you: Role::Black,
        since: resumed_since,
        players,
        spectators: 1,
        ..
    } = reply
    else {
        panic!("{reply:?}");
    };
    assert_eq!(resumed_since, since);
    assert!(players.white.connected && players.black.connected);
    let mut replayed = Vec::new();
    for _ in 0..seen.len() {
        replayed.push(bob.recv().await);
    }
    assert_eq!(replayed, seen, "the missed events, each once, in order");
    assert!(matches!(
        replayed[..],
        [
            ServerMessage::TurnPlayed {
                by: Color::White,
                ..
            },
            ServerMessage::DrawOffered {
                by: Color::White,
                ..
            }
        ]
    ));
    // The list was not made while Bob was away: it comes after the missed events.
    let ServerMessage::YourTurn { legal_turns, .. } = bob.recv().await else {
        panic!("Bob learns what he may play");
    };
    assert!(!legal_turns.is_empty());
    // Carol hears that Bob is back, as a notice without a sequence number.
    let back = carol.recv().await;
    assert_eq!(
        back,
        ServerMessage::PlayerReconnected {
            color: Color::Black
        }
    );
    // And the game goes on without a gap.
    let seq = bob.play(&turns[3].to_string()).await.unwrap();
    assert_eq!(carol.next_turn().await, (seq, turns[3]));
}

#[tokio::test]
async fn a_member_too_far_behind_gets_a_snapshot_instead() {
    let turns = games::white_connects(Variant::Standard);
    let server = TestServer::with(Config {
        room_event_buffer: 2,
        ..Config::default()
    })
    .await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    let (mut carol, snapshot) = server.spectator(&table.room).await;
    let since = snapshot.seq;
    for (n, turn) in turns[..4].iter().enumerate() {
        let player = if n % 2 == 0 { &mut alice } else { &mut bob };
        player.play(&turn.to_string()).await.unwrap();
    }
    drop(carol.kept());
    let mut dave = server.client().await;
    let reply = dave
        .request(|id| ClientMessage::Watch {
            id,
            room: table.room.clone(),
            since: Some(since),
        })
        .await;
    match reply {
        ServerMessage::Snapshot { room, .. } => assert_eq!(room.turns, &turns[..4]),
        other => panic!("four turns are more than the two events kept: {other:?}"),
    }
}

#[tokio::test]
async fn a_resignation_ends_the_game_for_everyone() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    let (mut carol, _) = server.spectator(&table.room).await;
    alice.play("C4:C5,D5").await.unwrap();
    // Carol may not resign for anyone.
    let reply = carol.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(
        reply,
        ServerMessage::Error {
            code: ErrorCode::NotAPlayer,
            ..
        }
    ));

    let reply = bob.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }), "{reply:?}");
    let won = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Resignation,
    };
    for client in [&mut alice, &mut bob, &mut carol] {
        loop {
            match client.next_news().await {
                ServerMessage::GameOver { outcome, .. } => {
                    assert_eq!(outcome, won);
                    break;
                }
                ServerMessage::TurnPlayed { .. } | ServerMessage::YourTurn { .. } => continue,
                other => panic!("expected the end, got {other:?}"),
            }
        }
    }
    // Nothing more happens in the game.
    assert_eq!(
        bob.play("F5:F6,G6").await,
        Err(punct_testing::illegal("game-over"))
    );
    let reply = alice.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(
        reply,
        ServerMessage::Error {
            code: ErrorCode::GameOver,
            ..
        }
    ));
    assert_eq!(server.record(&table.room).await.outcome, Some(won));
    assert_eq!(server.summary(&table.room).await.outcome, Some(won));
}

#[tokio::test]
async fn a_draw_offered_and_accepted_ends_the_game() {
    let server = TestServer::start().await;
    let table = server.table("basic").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    // Nothing to accept yet.
    assert_eq!(
        error_code(bob.request(|id| ClientMessage::AcceptDraw { id }).await),
        ErrorCode::NoDrawOffer
    );
    let reply = alice.request(|id| ClientMessage::OfferDraw { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }));
    assert!(matches!(
        bob.next_news().await,
        ServerMessage::DrawOffered {
            by: Color::White,
            ..
        }
    ));
    // One offer at a time, and nobody accepts their own.
    assert_eq!(
        error_code(alice.request(|id| ClientMessage::OfferDraw { id }).await),
        ErrorCode::NoDrawOffer
    );
    assert_eq!(
        error_code(alice.request(|id| ClientMessage::AcceptDraw { id }).await),
        ErrorCode::NoDrawOffer
    );
    // A spectator arriving now sees the offer standing.
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.draw_offer, Some(Color::White));

    let reply = bob.request(|id| ClientMessage::AcceptDraw { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }));
    let drawn = Outcome::Draw {
        reason: DrawReason::Agreement,
    };
    assert!(matches!(
        alice.next_news().await,
        ServerMessage::DrawOffered {
            by: Color::White,
            ..
        }
    ));
    assert!(
        matches!(alice.next_news().await, ServerMessage::GameOver { outcome, .. } if outcome == drawn)
    );
    assert_eq!(server.record(&table.room).await.outcome, Some(drawn));
}

#[tokio::test]
async fn a_declined_draw_offer_is_gone() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.request(|id| ClientMessage::OfferDraw { id }).await;
    let reply = bob.request(|id| ClientMessage::DeclineDraw { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }));
    assert!(matches!(
        alice.next_news().await,
        ServerMessage::DrawOffered {
            by: Color::White,
            ..
        }
    ));
    assert!(matches!(
        alice.next_news().await,
        ServerMessage::DrawDeclined {
            by: Color::Black,
            ..
        }
    ));
    assert_eq!(
        error_code(bob.request(|id| ClientMessage::AcceptDraw { id }).await),
        ErrorCode::NoDrawOffer
    );
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.draw_offer, None);
    assert_eq!(snapshot.outcome, None);
}

#[tokio::test]
async fn a_draw_offer_lapses_when_its_maker_plays() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.request(|id| ClientMessage::OfferDraw { id }).await;
    alice.play("C4:C5,D5").await.unwrap();
    assert_eq!(
        error_code(bob.request(|id| ClientMessage::AcceptDraw { id }).await),
        ErrorCode::NoDrawOffer
    );
    let (_, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.draw_offer, None);
    // Bob may offer one of his own.
    let reply = bob.request(|id| ClientMessage::OfferDraw { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }));
}
