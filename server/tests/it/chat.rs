//! The room's chat through the real server: the players' and the spectators' channels,
//! muting, the limits, and lines kept with the game across a restart.

use punct_protocol::{Channel, ClientMessage, ErrorCode, ServerMessage};
use punct_rules::Color;
use punct_server::Config;
use punct_testing::{Database, Endpoint, TestServer};

#[tokio::test]
async fn players_and_spectators_each_have_their_own_chat() {
    let server = TestServer::with(Config {
        message_rate_scale: 0.0,
        ..Config::default()
    })
    .await;
    let endpoint: &Endpoint = &server;
    let granted = endpoint
        .create_room(r#"{"color":"white","name":"Anna"}"#)
        .await;
    let black = endpoint.take_seat(&granted.room).await;
    let mut white = endpoint.player(&granted.room, &granted.token).await;
    let mut black = endpoint.player(&granted.room, &black.token).await;
    let (mut watcher, _) = endpoint.spectator(&granted.room).await;

    assert_eq!(white.say("  good luck  ").await, None);
    let line = black.heard().await;
    assert_eq!(
        (
            line.channel,
            line.color,
            line.name.as_deref(),
            line.text.as_str()
        ),
        (
            Channel::Players,
            Some(Color::White),
            Some("Anna"),
            "good luck"
        )
    );
    assert!(
        !watcher.hears_next("good luck").await,
        "spectators never hear players"
    );

    assert_eq!(watcher.say("white is better").await, None);
    let line = watcher.heard().await;
    assert_eq!((line.channel, line.color), (Channel::Spectators, None));
    assert!(
        !black.hears_next("white is better").await,
        "players do not hear spectators during the game"
    );
    // A member entering gets the lines of its channels.
    let (_, snapshot) = endpoint.spectator(&granted.room).await;
    let texts: Vec<&str> = snapshot.chat.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["mark 9", "white is better"]);
    let mut again = endpoint.client().await;
    let snapshot = again.join(&granted.room, &granted.token).await;
    assert!(snapshot.chat.iter().all(|l| l.channel == Channel::Players));
    assert_eq!(snapshot.chat[0].text, "good luck");

    // Once the game is over, the players hear the spectators too.
    let resigned = black.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(resigned, ServerMessage::Ack { .. }));
    assert_eq!(watcher.say("well played").await, None);
    assert!(black.hears_next("well played").await);
    let mut after = endpoint.client().await;
    let snapshot = after.join(&granted.room, &granted.token).await;
    assert!(
        snapshot
            .chat
            .iter()
            .any(|l| l.channel == Channel::Spectators && l.text == "white is better")
    );
}

#[tokio::test]
async fn a_player_can_mute_the_opponent() {
    let server = TestServer::with(Config {
        message_rate_scale: 0.0,
        ..Config::default()
    })
    .await;
    let table = server.table("standard").await;
    let mut white = server.player(&table.room, &table.white).await;
    let mut black = server.player(&table.room, &table.black).await;
    let muted = black
        .request(|id| ClientMessage::Mute { id, muted: true })
        .await;
    assert!(matches!(muted, ServerMessage::Ack { .. }), "{muted:?}");
    assert_eq!(white.say("you will lose").await, None);
    assert!(!black.hears_next("you will lose").await);
    // White still hears Black, and its own lines.
    assert_eq!(black.say("we shall see").await, None);
    assert_eq!(white.heard().await.text, "you will lose");
    assert_eq!(white.heard().await.text, "mark 13");
    assert_eq!(white.heard().await.text, "we shall see");
    let mut again = server.client().await;
    let snapshot = again.join(&table.room, &table.black).await;
    assert!(snapshot.chat.iter().all(|l| l.color != Some(Color::White)));
    let unmuted = again
        .request(|id| ClientMessage::Mute { id, muted: false })
        .await;
    assert!(matches!(unmuted, ServerMessage::Ack { .. }));
    assert_eq!(white.say("sorry").await, None);
    assert!(again.hears_next("sorry").await);
    // A spectator has nobody to mute.
    let (mut watcher, _) = server.spectator(&table.room).await;
    match watcher
        .request(|id| ClientMessage::Mute { id, muted: true })
        .await
    {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::NotAPlayer),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn chat_is_limited_in_length_and_rate() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut white = server.player(&table.room, &table.white).await;
    for bad in ["", "   ", "a\u{7}b", "line\nbreak", &"x".repeat(301)] {
        assert_eq!(white.say(bad).await, Some(ErrorCode::BadChat), "{bad:?}");
    }
    // Five lines at once, then one every two seconds (per connection).
    let mut black = server.player(&table.room, &table.black).await;
    assert_eq!(black.say(&"é".repeat(300)).await, None);
    for n in 1..5 {
        assert_eq!(black.say(&format!("line {n}")).await, None);
    }
    assert_eq!(
        black.say("one too many").await,
        Some(ErrorCode::RateLimited)
    );
    let mut outsider = server.client().await;
    assert_eq!(outsider.say("hello?").await, Some(ErrorCode::NotJoined));
}

#[tokio::test]
async fn chat_is_kept_with_the_game() {
    let database = Database::new();
    let server = TestServer::on(&database).await;
    let table = server.table("standard").await;
    let mut white = server.player(&table.room, &table.white).await;
    assert_eq!(white.say("<b>hi</b> & 'bye'").await, None);
    let (mut watcher, _) = server.spectator(&table.room).await;
    assert_eq!(watcher.say("go white").await, None);
    let mut black = server.player(&table.room, &table.black).await;
    let muted = black
        .request(|id| ClientMessage::Mute { id, muted: true })
        .await;
    assert!(matches!(muted, ServerMessage::Ack { .. }));
    server.shutdown().await.unwrap();
    let stored = database
        .query("SELECT channel, color, text FROM chat ORDER BY id")
        .await;
    assert_eq!(
        stored,
        [
            vec![
                Some("players".into()),
                Some("white".into()),
                Some("<b>hi</b> & 'bye'".into())
            ],
            vec![Some("spectators".into()), None, Some("go white".into())],
        ]
    );

    let server = TestServer::on(&database).await;
    let mut white = server.client().await;
    let snapshot = white.join(&table.room, &table.white).await;
    let texts: Vec<&str> = snapshot.chat.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["<b>hi</b> & 'bye'"]);
    // Black's mute outlasted the restart.
    let mut black = server.client().await;
    assert_eq!(black.join(&table.room, &table.black).await.chat, []);
}
