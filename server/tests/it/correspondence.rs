//! Correspondence games through the real server: days per move, each player's list of
//! their games, and mail to the player to move (through an SMTP server the test starts). (The days running out, a restart in between, is tested with paused
//! time in `registry/`.)

use std::time::Duration;

use punct_protocol::{
    ClientMessage, ErrorCode, Lobby, MyGames, Notifications, NotifyMode, SeatGranted,
    ServerMessage, TimeControl,
};
use punct_rules::Color;
use punct_server::Config;
use punct_testing::smtp::{Behaviour, Received, Sink};
use punct_testing::{Endpoint, TestServer, api_error};

const PASSWORD: &str = "a fine password";

const DAY_MS: u64 = 24 * 3600 * 1000;

pub(crate) async fn register(server: &Endpoint, username: &str) -> Endpoint {
    server.signed_in(&server.register(username, PASSWORD).await)
}

#[tokio::test]
async fn days_per_move_come_from_the_list_and_show_in_the_lobby() {
    let server = TestServer::start().await;
    for bad in [
        r#"{"clock":{"days":4}}"#,
        r#"{"clock":{"days":0}}"#,
        r#"{"clock":{"days":3,"base":60}}"#,
        r#"{"clock":{"days":3,"increment":5}}"#,
    ] {
        let (status, body) = server.http("POST", "/api/rooms", bad).await;
        assert_eq!(
            (status, api_error(&body)),
            (400, ErrorCode::BadRequest),
            "{bad}"
        );
    }
    let granted = server.create_room(r#"{"clock":{"days":3}}"#).await;
    let three_days = Some(TimeControl::days(3));
    assert_eq!(server.summary(&granted.room).await.clock, three_days);
    let lobby: Lobby = server.get("/api/rooms").await;
    let listed = lobby.rooms.iter().find(|r| r.room == granted.room).unwrap();
    assert_eq!(listed.clock, three_days);
    // A player's snapshot shows the days, and the clock does not run before White's
    // first turn.
    let mut white = server.client().await;
    let snapshot = white.join(&granted.room, &granted.token).await;
    let clock = snapshot.clock.unwrap();
    assert_eq!((clock.days, clock.running), (Some(3), None));
    assert_eq!((clock.white_ms, clock.black_ms), (3 * DAY_MS, 3 * DAY_MS));
}

#[tokio::test]
async fn my_games_list_those_waiting_for_my_move_first() {
    // A short grace period: absence must still give no claim.
    let server = TestServer::with(Config {
        grace_period: Duration::from_millis(200),
        ..Config::default()
    })
    .await;
    let anna = register(&server, "anna").await;
    let bert = register(&server, "bert").await;
    let (status, body) = server.http("GET", "/api/me/games", "").await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));

    // Anna (White) has played: the game waits three days for Bert.
    let (mut anna_white, waits_for_bert, bert_black) = seated(&anna, &bert, 3).await;
    anna_white.play("C4:C5,D5").await.unwrap();
    // Bert (White) has played: the game waits a day for Anna.
    let (mut bert_white, waits_for_anna, anna_black) = seated(&bert, &anna, 1).await;
    bert_white.play("C4:C5,D5").await.unwrap();
    // Anna's open challenge, and a game without accounts: neither waits for her.
    let open = anna
        .create_room(r#"{"color":"black","clock":{"days":7}}"#)
        .await;
    server.create_room(r#"{"clock":{"days":2}}"#).await;

    let games: MyGames = anna.get("/api/me/games").await;
    let listed: Vec<(&str, Color, bool)> = games
        .games
        .iter()
        .map(|g| (g.summary.room.as_str(), g.color, g.your_move))
        .collect();
    assert_eq!(
        listed,
        [
            (waits_for_anna.room.as_str(), Color::Black, true),
            (waits_for_bert.room.as_str(), Color::White, false),
            (open.room.as_str(), Color::Black, false),
        ]
    );
    let left = games.games[0].time_left_ms.unwrap();
    assert!(left <= DAY_MS && left > DAY_MS - 60_000, "{left} ms");
    assert!(games.games[1].time_left_ms.unwrap() > 2 * DAY_MS);
    assert_eq!(games.games[2].time_left_ms, None, "nothing runs yet");

    // Bert went away from the game that waits for Anna: in a correspondence game that
    // is no abandonment.
    drop(bert_white);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let mut anna_black = anna.player(&waits_for_anna.room, &anna_black.token).await;
    let claimed = anna_black
        .request(|id| ClientMessage::ClaimWin { id })
        .await;
    let ServerMessage::Error { code, message, .. } = claimed else {
        panic!("{claimed:?}");
    };
    assert_eq!(code, ErrorCode::NotClaimable);
    assert!(message.contains("won on time"), "{message}");

    // Bert's list is the other way round; a finished game leaves both lists.
    let games: MyGames = bert.get("/api/me/games").await;
    let first = &games.games[0];
    assert_eq!(
        (first.summary.room.as_str(), first.your_move),
        (waits_for_bert.room.as_str(), true)
    );
    let mut bert_black = bert.player(&waits_for_bert.room, &bert_black.token).await;
    let resigned = bert_black.request(|id| ClientMessage::Resign { id }).await;
    assert!(
        matches!(resigned, ServerMessage::Ack { .. }),
        "{resigned:?}"
    );
    let games: MyGames = anna.get("/api/me/games").await;
    assert!(
        games
            .games
            .iter()
            .all(|g| g.summary.room != waits_for_bert.room)
    );
    assert_eq!(games.games.len(), 2);
}

/// A correspondence game of `days` a move between the accounts of `white` and `black`,
/// White at the board: White's connection, and White's and Black's seats.
pub(crate) async fn seated(
    white: &Endpoint,
    black: &Endpoint,
    days: u8,
) -> (punct_testing::Client, SeatGranted, SeatGranted) {
    let request = format!(r#"{{"color":"white","clock":{{"days":{days}}}}}"#);
    let white_seat = white.create_room(&request).await;
    let black_seat = black.take_seat(&white_seat.room).await;
    let at_board = white.player(&white_seat.room, &white_seat.token).await;
    (at_board, white_seat, black_seat)
}

/// A server that mails through `sink`, looking for digests every `digest_check`.
pub(crate) async fn mailing(sink: &Sink, digest_check: Duration) -> TestServer {
    TestServer::with(Config {
        smtp_url: Some(sink.url()),
        public_url: Some("http://punct.test".into()),
        digest_check,
        ..Config::default()
    })
    .await
}

/// Registers `username` with mail to `username@example.org`, `mode` (each or digest).
pub(crate) async fn player_with_mail(server: &Endpoint, username: &str, mode: &str) -> Endpoint {
    let player = register(server, username).await;
    let body = format!(r#"{{"email":"{username}@example.org","mode":"{mode}"}}"#);
    let (status, answer) = player.http("PUT", "/api/me/notifications", &body).await;
    assert_eq!(status, 200, "{answer}");
    player
}

/// The messages `sink` has once `count` arrived, after a moment in which any more would
/// have arrived too.
pub(crate) async fn exactly(sink: &Sink, count: usize) -> Vec<Received> {
    exactly_within(sink, count, Duration::from_secs(10)).await
}

/// The messages `sink` has once `count` arrived, or `patience` passed, after a moment in
/// which any more would have arrived too.
pub(crate) async fn exactly_within(sink: &Sink, count: usize, patience: Duration) -> Vec<Received> {
    let sink = sink.clone();
    tokio::task::spawn_blocking(move || {
        sink.await_messages(count, patience);
        std::thread::sleep(Duration::from_millis(400));
        sink.received()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_move_is_mailed_to_a_player_who_does_not_have_the_game_open() {
    let sink = Sink::start(Behaviour::Accept);
    let server = mailing(&sink, Duration::from_secs(3600)).await;
    let anna = player_with_mail(&server, "anna", "each").await;
    let bert = player_with_mail(&server, "bert", "each").await;
    let (mut anna_at_board, white, black) = seated(&anna, &bert, 2).await;

    // Bert is away: Anna's first turn is mailed to him.
    anna_at_board.play("C4:C5,D5").await.unwrap();
    let mail = exactly(&sink, 1).await;
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].to, ["bert@example.org"]);
    let body = mail[0].body();
    assert_eq!(mail[0].header("Subject"), Some("Your move against anna"));
    assert!(body.contains("anna played C4:C5,D5 (turn 1)"), "{body}");
    assert!(
        body.contains("PÜNCT. It is your move: you have 2 days"),
        "{body}"
    );
    assert!(
        body.contains(&format!("http://punct.test/room/{}", white.room)),
        "{body}"
    );
    assert_eq!(
        mail[0].header("List-Unsubscribe-Post"),
        Some("List-Unsubscribe=One-Click")
    );

    // Both at the board: nothing is mailed.
    let mut bert_at_board = bert.player(&white.room, &black.token).await;
    bert_at_board.play("F5:F6,G6").await.unwrap();
    anna_at_board.play("C6:C7,D7").await.unwrap();
    assert_eq!(exactly(&sink, 1).await.len(), 1);

    // Bert leaves; Anna's next turn is mailed.
    drop(bert_at_board);
    bert_at_board = bert.player(&white.room, &black.token).await;
    bert_at_board.play("H5:H6,I6").await.unwrap();
    drop(bert_at_board);
    tokio::time::sleep(Duration::from_millis(200)).await;
    anna_at_board.play("C8:C9,D9").await.unwrap();
    let mail = exactly(&sink, 2).await;
    assert_eq!(mail.len(), 2);
    assert_eq!(mail[1].to, ["bert@example.org"]);

    // The link in the mail turns it off, without signing in.
    let link = mail[1]
        .header("List-Unsubscribe")
        .expect("an unsubscribe link");
    assert!(
        mail[1].body().contains(&link[1..link.len() - 1]),
        "the body has it too"
    );
    let path = link
        .trim_start_matches("<http://punct.test")
        .trim_end_matches('>');
    let (status, page) = server.http("POST", path, "").await;
    assert_eq!(status, 200, "{page}");
    let settings: Notifications = bert.get("/api/me/notifications").await;
    assert_eq!(settings.mode, NotifyMode::Off);
    let (status, _) = server
        .http("GET", "/unsubscribe?token=not-a-token", "")
        .await;
    assert_eq!(status, 404);
    bert_at_board = bert.player(&white.room, &black.token).await;
    bert_at_board.play("J5:J6,K6").await.unwrap();
    drop(bert_at_board);
    tokio::time::sleep(Duration::from_millis(200)).await;
    anna_at_board.play("C10:C11,D11").await.unwrap();
    assert_eq!(exactly(&sink, 3).await.len(), 2, "Bert unsubscribed");
}

#[tokio::test]
async fn mail_settings_are_checked() {
    let sink = Sink::start(Behaviour::Accept);
    let server = mailing(&sink, Duration::from_secs(3600)).await;
    let (status, _) = server.http("GET", "/api/me/notifications", "").await;
    assert_eq!(status, 401);
    let anna = register(&server, "anna").await;
    let settings: Notifications = anna.get("/api/me/notifications").await;
    assert_eq!((settings.email, settings.mode), (None, NotifyMode::Off));
    for bad in [
        r#"{"email":"not an address","mode":"each"}"#,
        r#"{"mode":"each"}"#,
        r#"{"email":"anna@example.org","mode":"hourly"}"#,
    ] {
        let (status, body) = anna.http("PUT", "/api/me/notifications", bad).await;
        assert_eq!(
            (status, api_error(&body)),
            (400, ErrorCode::BadRequest),
            "{bad}"
        );
    }
    let (status, _) = anna
        .http(
            "PUT",
            "/api/me/notifications",
            r#"{"email":"anna@example.org","mode":"digest"}"#,
        )
        .await;
    assert_eq!(status, 200);
    let settings: Notifications = anna.get("/api/me/notifications").await;
    assert_eq!(settings.email.as_deref(), Some("anna@example.org"));
    assert_eq!(settings.mode, NotifyMode::Digest);
}

#[tokio::test]
async fn a_digest_lists_the_games_waiting_at_most_once_a_day() {
    let sink = Sink::start(Behaviour::Accept);
    let server = mailing(&sink, Duration::from_millis(100)).await;
    let anna = register(&server, "anna").await;
    let bert = player_with_mail(&server, "bert", "digest").await;
    let (mut anna_at_board, white, _) = seated(&anna, &bert, 7).await;
    anna_at_board.play("C4:C5,D5").await.unwrap();
    // No message for the move itself; one digest, which checks every 100 ms do not repeat.
    let mail = exactly(&sink, 1).await;
    assert_eq!(mail.len(), 1);
    assert_eq!(
        mail[0].header("Subject"),
        Some("A game waits for your move")
    );
    let body = mail[0].body();
    // Seven days less the moments since Anna's turn (168 h in the same millisecond).
    let line = |hours| {
        format!(
            "against anna, {hours} h left: http://punct.test/room/{}",
            white.room
        )
    };
    assert!(
        body.contains(&line(167)) || body.contains(&line(168)),
        "{body}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(sink.received().len(), 1);
}

#[tokio::test]
async fn a_mail_server_that_refuses_or_hangs_slows_no_turn_and_loses_none() {
    for behaviour in [Behaviour::Refuse, Behaviour::Hang] {
        let sink = Sink::start(behaviour);
        let server = mailing(&sink, Duration::from_secs(3600)).await;
        let anna = player_with_mail(&server, "anna", "each").await;
        let bert = player_with_mail(&server, "bert", "each").await;
        let (mut anna_at_board, white, black) = seated(&anna, &bert, 1).await;
        let turns = [
            ("anna", "C4:C5,D5"),
            ("bert", "F5:F6,G6"),
            ("anna", "C6:C7,D7"),
            ("bert", "H5:H6,I6"),
            ("anna", "C8:C9,D9"),
        ];
        for (who, turn) in turns {
            // Each of Anna's turns is mailed to Bert, who is away: the server is stuck
            // on the first message (hanging) or refused (refusing).
            let started = std::time::Instant::now();
            if who == "anna" {
                anna_at_board.play(turn).await.unwrap();
            } else {
                let mut bert_at_board = bert.player(&white.room, &black.token).await;
                bert_at_board.play(turn).await.unwrap();
            }
            let took = started.elapsed();
            assert!(
                took < Duration::from_secs(2),
                "{behaviour:?}: {turn} took {took:?}"
            );
        }
        let record = server.record(&white.room).await;
        assert_eq!(record.turns.len(), turns.len(), "{behaviour:?}");
        assert!(sink.received().is_empty());
    }
}
