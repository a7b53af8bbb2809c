//! The mail outbox through the real server: mail queued with the turn that causes it is
//! sent after a restart, tried again while the mail server fails, sent over one SMTP
//! session, and carries a `Message-ID`; the unsubscribe link that a scanner's GET leaves
//! alone; the mail that a game is over, and that time is running out; the backlog and the
//! mail given up on `/metrics`; a digest through the outbox; the mail a dead node of a
//! cluster claimed.
//! (Mail for each move and digests: `correspondence.rs`.)

use std::collections::HashSet;
use std::time::Duration;

use punct_protocol::{
    ClientMessage, NodeView, Notifications, NotifyMode, SeatGranted, ServerMessage,
};
use punct_testing::smtp::{Behaviour, Received, Sink};
use punct_testing::{Client, Database, Endpoint, Nats, Process, TestServer, on_postgres};

use crate::cluster::LEASE;
use crate::correspondence::{exactly, exactly_within, mailing, player_with_mail, seated};

/// A server process on `database` that mails through `sink`.
fn mailing_process(database: &Database, sink: &Sink) -> Process {
    let url = sink.url();
    Process::with(
        database,
        &["--smtp-url", &url, "--public-url", "http://punct.test"],
    )
}

/// `count` rooms of one day a move where Anna (White, at the board) played her first
/// turn and Bert is away: `count` mails queued for Bert.
async fn turns_for_bert(server: &Endpoint, count: usize) -> Vec<String> {
    let anna = player_with_mail(server, "anna", "each").await;
    let bert = player_with_mail(server, "bert", "each").await;
    let mut rooms = Vec::new();
    for _ in 0..count {
        let (mut at_board, white, _) = seated(&anna, &bert, 1).await;
        at_board.play("C4:C5,D5").await.unwrap();
        rooms.push(white.room);
    }
    rooms
}

/// The `Message-ID` of `mail`, checked to be `<UUID@punct.test>`.
fn message_id(mail: &Received) -> String {
    let id = mail.header("Message-ID").expect("a Message-ID").to_owned();
    let uuid = id
        .strip_prefix('<')
        .and_then(|id| id.strip_suffix("@punct.test>"))
        .unwrap_or_else(|| panic!("{id}"));
    uuid::Uuid::parse_str(uuid).unwrap_or_else(|e| panic!("{id}: {e}"));
    id
}

#[tokio::test]
async fn mail_queued_before_a_sigterm_is_all_sent_after_the_restart_over_one_session() {
    let database = Database::new();
    // A mail server that hangs: nothing can go out before the server is stopped.
    let hanging = Sink::start(Behaviour::Hang);
    let server = mailing_process(&database, &hanging);
    let rooms = turns_for_bert(&server, 8).await;
    server.terminate();
    assert!(server.wait().success());

    let sink = Sink::start(Behaviour::Accept);
    let _server = mailing_process(&database, &sink);
    let mail = exactly(&sink, 8).await;
    assert_eq!(mail.len(), 8, "8 of 8 mails delivered after the restart");
    assert_eq!(sink.sessions(), 1, "the batch shares its SMTP session");
    let ids: HashSet<String> = mail.iter().map(message_id).collect();
    assert_eq!(ids.len(), 8, "each mail its own Message-ID");
    for (mail, room) in mail.iter().zip(&rooms) {
        assert_eq!(mail.to, ["bert@example.org"]);
        assert!(mail.body().contains(&format!("/room/{room}")), "in order");
    }
}

#[tokio::test]
async fn mail_queued_before_a_kill_is_sent_after_the_restart() {
    let database = Database::new();
    let hanging = Sink::start(Behaviour::Hang);
    let server = mailing_process(&database, &hanging);
    turns_for_bert(&server, 8).await;
    server.kill();

    // A SQLite server's claims die with it. On PostgreSQL, where another node may be
    // sending, they lapse after 5 minutes: the mail claimed waits until then.
    let claimed = database
        .query("SELECT COUNT(*) FROM mail_outbox WHERE claimed_by IS NOT NULL")
        .await;
    let claimed: usize = claimed[0][0].as_deref().unwrap().parse().unwrap();
    let waiting = if on_postgres() { claimed } else { 0 };
    let sink = Sink::start(Behaviour::Accept);
    let _server = mailing_process(&database, &sink);
    assert_eq!(exactly(&sink, 8).await.len(), 8 - waiting);
}

#[tokio::test]
async fn a_mail_server_that_hangs_up_after_each_message_is_sent_every_mail_at_the_first_try() {
    let sink = Sink::start(Behaviour::AcceptOnce);
    let database = Database::new();
    let server = TestServer::with(punct_server::Config {
        database: Some(database.url()),
        smtp_url: Some(sink.url()),
        ..punct_server::Config::default()
    })
    .await;
    // Queued one by one as the turns are played, the mails go over sessions kept open:
    // each time the mail server has hung up on it, the next mail opens another.
    turns_for_bert(&server, 5).await;
    let mail = exactly(&sink, 5).await;
    assert_eq!(mail.len(), 5);
    assert_eq!(sink.sessions(), 5, "a session a message");
    let tries = database
        .query("SELECT MAX(attempts) FROM mail_outbox")
        .await;
    assert_eq!(tries[0][0].as_deref(), Some("0"), "no mail failed once");
}

/// A server mailing through `sink`, looking for digests every `digest_check`, where Anna
/// (at the board) played her first turn of a game of three days a move against Bert,
/// away, who takes a digest. Answers the server, Anna's connection and White's seat.
async fn anna_played_against_bert_on_digests(
    sink: &Sink,
    digest_check: Duration,
) -> (TestServer, Client, SeatGranted) {
    let server = mailing(sink, digest_check).await;
    let anna = player_with_mail(&server, "anna", "each").await;
    let bert = player_with_mail(&server, "bert", "digest").await;
    let (mut at_board, white, _) = seated(&anna, &bert, 3).await;
    at_board.play("C4:C5,D5").await.unwrap();
    (server, at_board, white)
}

#[tokio::test]
async fn a_digest_the_mail_server_defers_is_sent_once_it_takes_mail_not_the_next_day() {
    let sink = Sink::start(Behaviour::Defer);
    let (_server, _at_board, white) =
        anna_played_against_bert_on_digests(&sink, Duration::from_millis(100)).await;
    // The day's digest is queued, and refused for now.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(sink.received().is_empty());
    sink.set(Behaviour::Accept);
    let mail = exactly(&sink, 1).await;
    assert_eq!(mail.len(), 1, "sent once, as soon as the server takes it");
    assert_eq!(mail[0].to, ["bert@example.org"]);
    assert_eq!(
        mail[0].header("Subject"),
        Some("A game waits for your move")
    );
    assert!(mail[0].body().contains(&white.room));
    message_id(&mail[0]);
}

#[tokio::test]
async fn a_mail_the_mail_server_defers_is_tried_again_and_sent_once() {
    let sink = Sink::start(Behaviour::Defer);
    let server = mailing(&sink, Duration::from_secs(3600)).await;
    turns_for_bert(&server, 1).await;
    // The first tries fail (451: try again later), a second apart, then two.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(sink.received().is_empty());
    sink.set(Behaviour::Accept);
    let mail = exactly_within(&sink, 1, Duration::from_secs(15)).await;
    assert_eq!(mail.len(), 1, "sent once, once the server takes it");
    message_id(&mail[0]);
}

/// The value of metric `name` on `server`'s `/metrics`, once `until` holds of it (within
/// ten seconds: the mail task counts every two).
async fn metric_once(server: &Endpoint, name: &str, until: impl Fn(i64) -> bool) -> i64 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, page) = server.http("GET", "/metrics", "").await;
        let value = page
            .lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in\n{page}"));
        if until(value) {
            return value;
        }
        assert!(tokio::time::Instant::now() < deadline, "{name} {value}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_mail_backlog_and_the_mail_given_up_are_counted_on_the_metrics_page() {
    let sink = Sink::start(Behaviour::Defer);
    let server = mailing(&sink, Duration::from_secs(3600)).await;
    metric_once(&server, "punct_mail_queued", |n| n == 0).await;
    turns_for_bert(&server, 1).await;
    // Deferred: it waits in the outbox, growing older.
    metric_once(&server, "punct_mail_queued", |n| n == 1).await;
    metric_once(&server, "punct_mail_oldest_seconds", |s| s >= 1).await;
    assert_eq!(
        metric_once(&server, "punct_mail_given_up_total", |_| true).await,
        0
    );
    // Refused for good at its next try: given up, the outbox is empty.
    sink.set(Behaviour::Refuse);
    metric_once(&server, "punct_mail_given_up_total", |n| n == 1).await;
    metric_once(&server, "punct_mail_queued", |n| n == 0).await;
    assert_eq!(
        metric_once(&server, "punct_mail_oldest_seconds", |_| true).await,
        0
    );
    assert!(sink.received().is_empty());
}

#[tokio::test]
async fn a_scanner_s_get_of_the_unsubscribe_link_keeps_the_mail_and_one_click_stops_it() {
    let sink = Sink::start(Behaviour::Accept);
    let server = mailing(&sink, Duration::from_secs(3600)).await;
    turns_for_bert(&server, 1).await;
    let mail = exactly(&sink, 1).await;
    let link = mail[0]
        .header("List-Unsubscribe")
        .expect("a link")
        .to_owned();
    assert_eq!(
        mail[0].header("List-Unsubscribe-Post"),
        Some("List-Unsubscribe=One-Click")
    );
    let path = link
        .trim_start_matches("<http://punct.test")
        .trim_end_matches('>')
        .to_owned();
    let bert = server.signed_in(&server.sign_in("bert", "a fine password").await);

    // A GET only shows the button that posts to the link.
    let (status, page) = server.http("GET", &path, "").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(&format!(r#"<form method=post action="{path}">"#)),
        "{page}"
    );
    let settings: Notifications = bert.get("/api/me/notifications").await;
    assert_eq!(settings.mode, NotifyMode::Each);

    // Settings changed back and forth keep the link.
    for mode in ["digest", "each"] {
        let body = format!(r#"{{"email":"bert@example.org","mode":"{mode}"}}"#);
        let (status, _) = bert.http("PUT", "/api/me/notifications", &body).await;
        assert_eq!(status, 200);
    }
    let (status, _) = server.http("GET", &path, "").await;
    assert_eq!(status, 200, "the old link still works");

    // RFC 8058's one-click POST unsubscribes.
    let (status, page) = server
        .http("POST", &path, "List-Unsubscribe=One-Click")
        .await;
    assert_eq!(status, 200, "{page}");
    let settings: Notifications = bert.get("/api/me/notifications").await;
    assert_eq!(settings.mode, NotifyMode::Off);
    let (status, _) = server.http("POST", "/unsubscribe?token=0123", "").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_game_over_is_mailed_to_a_player_away_not_to_one_at_the_board() {
    let sink = Sink::start(Behaviour::Accept);
    // Game-over mail goes to digest players too.
    let (_server, mut anna_at_board, white) =
        anna_played_against_bert_on_digests(&sink, Duration::from_secs(3600)).await;
    let resigned = anna_at_board
        .request(|id| ClientMessage::Resign { id })
        .await;
    assert!(
        matches!(resigned, ServerMessage::Ack { .. }),
        "{resigned:?}"
    );
    let mail = exactly(&sink, 1).await;
    assert_eq!(mail.len(), 1, "only Bert, who is away");
    assert_eq!(mail[0].to, ["bert@example.org"]);
    assert_eq!(
        mail[0].header("Subject"),
        Some("Your game against anna is over")
    );
    let body = mail[0].body();
    assert!(
        body.contains("against anna is over after 1 turn: you won (resignation)"),
        "{body}"
    );
    assert!(body.contains(&format!("http://punct.test/room/{}", white.room)));
    message_id(&mail[0]);
}

/// A correspondence game of one day a move, on a server that mails: Anna (White) played
/// her first turn and left, Bert is away and was mailed; the server is stopped. Answers
/// the database, the sink, the server's settings and White's seat.
async fn bert_away_after_annas_first_turn() -> (Database, Sink, punct_server::Config, SeatGranted) {
    let database = Database::new();
    let sink = Sink::start(Behaviour::Accept);
    let config = punct_server::Config {
        database: Some(database.url()),
        smtp_url: Some(sink.url()),
        public_url: Some("http://punct.test".into()),
        ..punct_server::Config::default()
    };
    let server = TestServer::with(config.clone()).await;
    let anna = player_with_mail(&server, "anna", "each").await;
    let bert = player_with_mail(&server, "bert", "each").await;
    let (mut anna_at_board, white, _) = seated(&anna, &bert, 1).await;
    anna_at_board.play("C4:C5,D5").await.unwrap();
    assert_eq!(exactly(&sink, 1).await.len(), 1, "Bert's move");
    drop(anna_at_board);
    server.shutdown().await.unwrap();
    (database, sink, config, white)
}

#[tokio::test]
async fn a_game_lost_on_time_while_both_are_away_is_mailed_to_both() {
    let (database, sink, config, white) = bert_away_after_annas_first_turn().await;

    // Two days later Bert has not played: the restart's sweep ends the game on time.
    database
        .query("UPDATE turns SET played_at = played_at - 172800000")
        .await;
    let _server = TestServer::with(config).await;
    let mail = exactly(&sink, 3).await;
    assert_eq!(mail.len(), 3);
    let over: Vec<(&str, String)> = mail[1..]
        .iter()
        .map(|m| (m.to[0].as_str(), m.body()))
        .collect();
    let to_anna = over.iter().find(|(to, _)| *to == "anna@example.org");
    let to_bert = over.iter().find(|(to, _)| *to == "bert@example.org");
    assert!(to_anna.unwrap().1.contains("you won (time)"), "{over:?}");
    assert!(to_bert.unwrap().1.contains("you lost (time)"), "{over:?}");
    assert!(to_bert.unwrap().1.contains(&white.room));
}

#[tokio::test]
async fn a_player_away_with_a_quarter_of_the_move_s_days_left_is_told_once() {
    let (database, sink, config, white) = bert_away_after_annas_first_turn().await;

    // Nineteen hours later Bert, away, has five of his day's 24 hours left: the sweeps
    // (one as the server starts, one after) tell him once.
    database
        .query("UPDATE turns SET played_at = played_at - 68400000")
        .await;
    let server = TestServer::with(config.clone()).await;
    let mail = exactly(&sink, 2).await;
    assert_eq!(mail.len(), 2);
    assert_eq!(mail[1].to, ["bert@example.org"]);
    let body = mail[1].body();
    assert!(body.contains("A quarter of your time for turn 2"), "{body}");
    assert!(body.contains(&white.room), "{body}");
    server.shutdown().await.unwrap();
    // Swept again after a restart: still once for this move.
    let _server = TestServer::with(config).await;
    assert_eq!(exactly(&sink, 3).await.len(), 2);
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests"]
async fn mail_a_dead_node_claimed_is_sent_by_the_others_without_waiting_for_its_claim() {
    let database = Database::postgres();
    let nats = Nats::start();
    let hanging = Sink::start(Behaviour::Hang);
    let (url, sink) = (nats.url(), hanging.url());
    let flags = [
        "--cluster",
        &url,
        "--cluster-lease",
        LEASE,
        "--smtp-url",
        &sink,
        "--public-url",
        "http://punct.test",
    ];
    let mut nodes: Vec<Process> = (0..3).map(|_| Process::with(&database, &flags)).collect();
    let first: NodeView = nodes[0].get("/api/node").await;
    // Quick turns on the first node: it is told at once of each mail queued, claims what
    // is due and is stuck sending it to a mail server that never answers.
    let rooms = turns_for_bert(&nodes[0], 8).await;
    let claimed = format!(
        "SELECT COUNT(*) FROM mail_outbox WHERE claimed_by LIKE '{}-%'",
        first.node
    );
    let held = database.query(&claimed).await;
    let held: usize = held[0][0].as_deref().unwrap().parse().unwrap();
    assert!(held > 0, "the first node holds mail when it dies");

    nodes.remove(0).kill();
    hanging.set(Behaviour::Accept);
    // Its claims would hold for 5 minutes; the living give them back once they see it
    // dead. (Sessions the others had hanging give up after 10 s, and their mail goes
    // again a second later.)
    let mail = exactly_within(&hanging, 8, Duration::from_secs(60)).await;
    assert_eq!(mail.len(), 8, "8 of 8 mails, each once");
    let ids: HashSet<String> = mail.iter().map(message_id).collect();
    assert_eq!(ids.len(), 8);
    for room in &rooms {
        let about = mail
            .iter()
            .filter(|m| m.body().contains(&format!("/room/{room}")));
        assert_eq!(about.count(), 1, "{room}");
    }
}
