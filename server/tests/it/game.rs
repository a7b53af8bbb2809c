//! Whole games over the WebSocket protocol, watched by spectators.

use punct_protocol::{Role, ServerMessage};
use punct_rules::{Color, Game, Outcome, Variant, WinReason};
use punct_testing::TestServer;

use crate::games;

#[tokio::test]
async fn two_players_play_to_a_connection_while_two_spectators_watch_every_turn() {
    let turns = games::white_connects(Variant::Standard);
    assert!(
        turns.len() >= 11,
        "a connection takes at least six drops by White"
    );
    let server = TestServer::start().await;
    let table = server.table("standard").await;

    // Alice sits down as White; it is her turn, so her snapshot lists her legal turns.
    let mut alice = server.client().await;
    let snapshot = alice.join(&table.room, &table.white).await;
    assert_eq!(snapshot.to_move, Color::White);
    assert_eq!(snapshot.legal_turns.as_ref().map(Vec::len), Some(4986));
    assert!(snapshot.board.is_empty() && snapshot.turns.is_empty());
    assert_eq!(snapshot.reserves.white.triangle, 6);
    // Bob sits down as Black: not his turn, no list.
    let mut bob = server.client().await;
    let snapshot = bob.join(&table.room, &table.black).await;
    assert!(snapshot.players.white.connected && snapshot.players.black.connected);
    assert_eq!(snapshot.legal_turns, None);
    // Carol and Dave watch.
    let (mut carol, _) = server.spectator(&table.room).await;
    let (mut dave, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.spectators, 2);

    for (number, &turn) in turns.iter().enumerate() {
        let (player, opponent) = match number % 2 {
            0 => (&mut alice, &mut bob),
            _ => (&mut bob, &mut alice),
        };
        let seq = player
            .play(&turn.to_string())
            .await
            .expect("the prepared turn is legal");
        // Everyone sees the turn with the sequence number the player was told.
        assert_eq!(player.next_turn().await, (seq, turn));
        assert_eq!(carol.next_turn().await, (seq, turn));
        assert_eq!(dave.next_turn().await, (seq, turn));
        assert_eq!(opponent.next_turn().await, (seq, turn));
        // The opponent, now to move, is told what it may play.
        if number + 1 < turns.len() {
            match opponent.recv().await {
                ServerMessage::YourTurn {
                    seq: after,
                    legal_turns,
                } => {
                    assert_eq!(after, seq);
                    let mut game = Game::new(Variant::Standard);
                    for &t in &turns[..=number] {
                        game.play(t).unwrap();
                    }
                    assert_eq!(legal_turns, game.legal_turns());
                }
                other => panic!("expected the legal turns, got {other:?}"),
            }
        }
    }

    let won = Outcome::Win {
        winner: Color::White,
        reason: WinReason::Connection,
    };
    for client in [&mut alice, &mut bob, &mut carol, &mut dave] {
        assert!(
            matches!(client.next_news().await, ServerMessage::GameOver { outcome, .. } if outcome == won)
        );
    }
    // No turn follows the end.
    assert_eq!(
        bob.play("pass").await,
        Err(punct_testing::illegal("game-over"))
    );

    let record = server.record(&table.room).await;
    assert_eq!(record.turns, turns);
    assert_eq!(record.outcome, Some(won));
    let (status, text) = server
        .http("GET", &format!("/api/rooms/{}/record.txt", table.room), "")
        .await;
    assert_eq!(status, 200);
    let replayed = Game::from_record(Variant::Standard, &text).unwrap();
    assert_eq!(replayed.turns(), &turns[..]);
    assert_eq!(replayed.outcome(), Some(won));
}

#[tokio::test]
async fn a_spectator_joining_mid_game_gets_the_snapshot_then_the_live_turns() {
    let turns = games::white_connects(Variant::Basic);
    let half = turns.len() / 2;
    let server = TestServer::start().await;
    let table = server.table("basic").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    for (number, turn) in turns[..half].iter().enumerate() {
        let player = if number % 2 == 0 {
            &mut alice
        } else {
            &mut bob
        };
        player.play(&turn.to_string()).await.unwrap();
    }

    // Erin arrives: her snapshot holds the game so far.
    let (mut erin, snapshot) = server.spectator(&table.room).await;
    let mut game = Game::new(Variant::Basic);
    for &turn in &turns[..half] {
        game.play(turn).unwrap();
    }
    assert_eq!(snapshot.turns, &turns[..half]);
    assert_eq!(snapshot.variant, Variant::Basic);
    assert_eq!(snapshot.to_move, game.to_move());
    assert_eq!(
        snapshot.board,
        punct_protocol::StackView::all(game.position())
    );
    assert_eq!(
        snapshot.reserves,
        punct_protocol::Reserves::of(game.position())
    );
    assert_eq!(snapshot.legal_turns, None, "spectators get no legal turns");
    assert_eq!(snapshot.outcome, None);

    // Then every later turn, live.
    for (number, &turn) in turns.iter().enumerate().skip(half) {
        let player = if number % 2 == 0 {
            &mut alice
        } else {
            &mut bob
        };
        let seq = player.play(&turn.to_string()).await.unwrap();
        assert_eq!(erin.next_turn().await, (seq, turn));
    }
    assert!(matches!(
        erin.next_news().await,
        ServerMessage::GameOver { .. }
    ));

    // A spectator arriving after the end sees the result.
    let (_, snapshot) = server.spectator(&table.room).await;
    assert!(matches!(
        snapshot.outcome,
        Some(Outcome::Win {
            winner: Color::White,
            ..
        })
    ));
    assert_eq!(snapshot.turns, turns);
}

#[tokio::test]
async fn a_player_rejoining_gets_the_snapshot_of_their_seat() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    alice.play("C4:C5,D5").await.unwrap();
    let reply = {
        let mut bob = server.client().await;
        bob.request(|id| punct_protocol::ClientMessage::Join {
            id,
            room: table.room.clone(),
            token: Some(table.black.clone()),
            since: None,
        })
        .await
    };
    match reply {
        ServerMessage::Snapshot { you, room, .. } => {
            assert_eq!(you, Role::Black);
            assert_eq!(room.to_move, Color::Black);
            assert_eq!(room.turns.len(), 1);
            assert!(room.legal_turns.is_some_and(|turns| !turns.is_empty()));
        }
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

#[tokio::test]
async fn a_player_who_finds_the_turns_itself_is_sent_no_lists() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut alice = server.connect().await;
    alice
        .send_text(r#"{"type":"hello","id":1,"version":1,"legal_turns":false}"#)
        .await;
    assert!(matches!(
        alice.reply_to(1).await,
        ServerMessage::Welcome { .. }
    ));
    let snapshot = alice.join(&table.room, &table.white).await;
    assert_eq!(
        snapshot.legal_turns, None,
        "White is to move but asked for none"
    );
    let mut bob = server.player(&table.room, &table.black).await;

    // Bob asked for lists (the default) and gets his.
    alice.play("C4:C5,D5").await.unwrap();
    loop {
        if let ServerMessage::YourTurn { legal_turns, .. } = bob.recv().await {
            assert!(!legal_turns.is_empty());
            break;
        }
    }
    // Alice gets Bob's turn and nothing more: the reply to a later request comes next.
    bob.play("J14:J15,K15").await.unwrap();
    alice.send_text(r#"{"type":"dance","id":77}"#).await;
    let mut turns = 0;
    loop {
        match alice.recv().await {
            ServerMessage::Error { id: Some(77), .. } => break,
            ServerMessage::YourTurn { .. } => panic!("Alice asked for no lists"),
            ServerMessage::TurnPlayed { .. } => turns += 1,
            _ => {}
        }
    }
    assert_eq!(turns, 2);
    // She plays all the same.
    alice.play("C7:C8,D8").await.unwrap();
}
