//! Moving a server from its SQLite file to PostgreSQL with `punct-server migrate`, as an
//! operator does (docs/CLUSTER.md): stop the server, migrate, start it on PostgreSQL;
//! its players find every game, account, rating, chat line and mail where they were.
//! A source it cannot copy whole (a server has it open, its latest data is in a WAL left
//! behind) is refused, and nothing is made in the target. Most need PostgreSQL, and are
//! ignored unless asked for.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use punct_server::Config;
use punct_testing::smtp::{Behaviour, Sink};
use punct_testing::{Database, Endpoint, Postgres, Process, TestServer};
use serde_json::Value;

use crate::correspondence::seated;
use crate::ratings::{End, play};
use crate::tournament::{LEAD_MS, create, post, swiss, until};

const PASSWORD: &str = "a fine password";

/// Runs `punct-server migrate` from `from` to `to`.
fn migrate(from: &Database, to: &Database) -> Output {
    migrate_urls(&from.url(), &to.url())
}

/// Runs `punct-server migrate` from the file `from` to the database `to`.
fn migrate_urls(from: &str, to: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args(["migrate", "--from", from, "--to", to])
        .output()
        .unwrap()
}

/// What a refused migration said, having checked that it exited with a failure and said
/// nothing on stdout.
fn refusal(refused: &Output) -> String {
    let said = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(!refused.status.success(), "{said}");
    assert!(refused.stdout.is_empty(), "{said}");
    said
}

/// How many tables `database` (PostgreSQL) holds: none, if a migration never reached it.
async fn tables(database: &Database) -> String {
    let sql = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'";
    database.query(sql).await[0][0].clone().unwrap()
}

/// A copy of the SQLite `file` (and its WAL, if `with_wal`) in a new directory.
fn copied(file: &Path, with_wal: bool) -> Database {
    let copy = Database::sqlite();
    std::fs::copy(file, copy.url()).unwrap();
    if with_wal {
        let wal = |path: &Path| PathBuf::from(format!("{}-wal", path.display()));
        std::fs::copy(wal(file), wal(Path::new(&copy.url()))).unwrap();
    }
    copy
}

/// A server on `database` that mails through `sink`.
async fn server(database: &Database, sink: &Sink) -> TestServer {
    TestServer::with(Config {
        database: Some(database.url()),
        smtp_url: Some(sink.url()),
        public_url: Some("http://punct.test".into()),
        ..Config::default()
    })
    .await
}

/// Registers `username` on `server`, with mail to `username@example.org` in `mode` if
/// given; answers the session's token.
async fn account(server: &Endpoint, username: &str, mode: Option<&str>) -> String {
    let token = server.register(username, PASSWORD).await;
    if let Some(mode) = mode {
        let body = format!(r#"{{"email":"{username}@example.org","mode":"{mode}"}}"#);
        let (status, answer) = server
            .signed_in(&token)
            .http("PUT", "/api/me/notifications", &body)
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    token
}

/// What players read, through the HTTP API, of the archive, of `rooms`, and of the
/// accounts `players` (username, session token) sign in to.
async fn what_players_see(
    server: &Endpoint,
    rooms: &[String],
    players: &[(&str, String)],
) -> Vec<Value> {
    let mut seen = vec![server.get("/api/games").await];
    for room in rooms {
        seen.push(server.get(&format!("/api/rooms/{room}/record")).await);
    }
    for (username, token) in players {
        let player = server.signed_in(token);
        seen.push(server.get(&format!("/api/players/{username}")).await);
        seen.push(player.get("/api/me/notifications").await);
        // The time left runs on: as long as the game's clock was kept, it is the same.
        seen.push(without("time_left_ms", player.get("/api/me/games").await));
    }
    seen
}

/// `value` without the fields named `key`, at any depth.
fn without(key: &str, value: Value) -> Value {
    match value {
        Value::Object(fields) => fields
            .into_iter()
            .filter(|(name, _)| name != key)
            .map(|(name, field)| (name, without(key, field)))
            .collect(),
        Value::Array(items) => items.into_iter().map(|item| without(key, item)).collect(),
        other => other,
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_sqlite_server_moves_to_postgresql_with_its_games_accounts_ratings_chat_and_mail() {
    let sqlite = Database::sqlite();
    let sink = Sink::start(Behaviour::Accept);
    let old = server(&sqlite, &sink).await;
    let players = [
        ("anna", account(&old, "anna", Some("digest")).await),
        ("bert", account(&old, "bert", Some("each")).await),
        ("carl", account(&old, "carl", None).await),
    ];
    let [anna, bert, carl] = players.each_ref().map(|(_, token)| old.signed_in(token));
    // Finished rated games (ratings and their history), and an aborted one.
    let mut rooms = vec![
        play(&anna, &bert, End::BlackResigns).await.0,
        play(&bert, &carl, End::Drawn).await.0,
        play(&carl, &anna, End::Aborted).await.0,
    ];
    // A correspondence game under way, a mail queued to Bert, a line of chat.
    let (mut anna_at_board, white, correspondence) = seated(&anna, &bert, 2).await;
    anna_at_board.play("C4:C5,D5").await.unwrap();
    assert_eq!(anna_at_board.say("your move, Bert").await, None);
    rooms.push(white.room.clone());
    // A timed game between guests under way, with chat.
    let timed = old
        .create_room(r#"{"color":"white","clock":{"base":600,"increment":5}}"#)
        .await;
    let guest_seat = old.take_seat(&timed.room).await;
    let mut host = old.player(&timed.room, &timed.token).await;
    host.play("B2:B1,B3").await.unwrap();
    assert_eq!(host.say("good luck").await, None);
    rooms.push(timed.room.clone());
    drop((anna_at_board, host));
    // A Swiss under way: its first round paired, a game and a bye.
    let tournament = create(&anna, &swiss(2, LEAD_MS, 8)).await;
    for player in [&anna, &bert, &carl] {
        assert_eq!(post(player, &tournament, "join").await, (200, None));
    }
    let paired = until(&old, &tournament, |v| v.summary.round == 1).await;
    rooms.extend(
        paired.pairings[0]
            .games
            .iter()
            .filter_map(|g| g.room.clone()),
    );
    let tournament_path = format!("/api/tournaments/{tournament}");
    let tournament_before: Value = old.get(&tournament_path).await;
    let before = what_players_see(&old, &rooms, &players).await;
    old.shutdown().await.unwrap();

    let postgres = Database::postgres();
    let migrated = migrate(&sqlite, &postgres);
    let said = String::from_utf8_lossy(&migrated.stdout);
    assert!(
        migrated.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    assert!(said.starts_with("copied "), "{said}");
    assert!(said.contains(" rows of 22 tables (6 games) in "), "{said}");

    // Values that read the same as text in both: ids, times, counts, ratings.
    for sql in [
        "SELECT id, account, room, notice, queued_at, attempts, due_at, claimed_by, done_at, error
         FROM mail_outbox ORDER BY id",
        "SELECT account, variant, rating, deviation, volatility, games, last_rated_at
         FROM ratings ORDER BY account, variant",
        "SELECT seq, room, rated_at FROM rated_games ORDER BY seq",
        "SELECT id, room, channel, color, name, text, at FROM chat ORDER BY id",
        "SELECT account, created_at, expires_at FROM sessions ORDER BY account, created_at",
        "SELECT id, username, username_key, username_lookalike, password, created_at, email,
                notify, unsubscribe, last_digest_at FROM accounts ORDER BY id",
        "SELECT id, incarnation, created_at, finished_at, clock_base_ms, clock_days, outcome
         FROM rooms ORDER BY id",
        "SELECT room, number, turn, played_at, white_ms, black_ms FROM turns
         ORDER BY room, number",
    ] {
        let copied = postgres.query(sql).await;
        assert!(!copied.is_empty(), "{sql}");
        assert_eq!(copied, sqlite.query(sql).await, "{sql}");
    }

    let new = server(&postgres, &sink).await;
    assert_eq!(what_players_see(&new, &rooms, &players).await, before);
    let tournament_after: Value = new.get(&tournament_path).await;
    assert_eq!(
        tournament_after, tournament_before,
        "the tournament goes on from its round"
    );
    // Passwords and seats: the same ones let their owners back in.
    let mut signed_in = Vec::new();
    for (username, _) in &players {
        signed_in.push(new.signed_in(&new.sign_in(username, PASSWORD).await));
    }
    let mut guest = new.client().await;
    let snapshot = guest.join(&timed.room, &guest_seat.token).await;
    let chat: Vec<&str> = snapshot
        .chat
        .iter()
        .map(|line| line.text.as_str())
        .collect();
    assert_eq!(chat, ["good luck"]);
    guest.play("A3:A2,A4").await.unwrap();
    // New rows are numbered after the copied ones (chat lines, rated games).
    assert_eq!(guest.say("thanks").await, None);
    play(&signed_in[0], &signed_in[1], End::WhiteResigns).await;
    let mut bert_at_board = new.client().await;
    let snapshot = bert_at_board.join(&white.room, &correspondence.token).await;
    assert_eq!(snapshot.turns.len(), 1);
    let chat: Vec<&str> = snapshot
        .chat
        .iter()
        .map(|line| line.text.as_str())
        .collect();
    assert_eq!(chat, ["your move, Bert"]);
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_database_that_holds_data_is_not_migrated_into() {
    let sqlite = Database::sqlite();
    let old = TestServer::on(&sqlite).await;
    old.register("anna", PASSWORD).await;
    old.shutdown().await.unwrap();
    let postgres = Database::postgres();
    let new = TestServer::on(&postgres).await;
    new.register("bert", PASSWORD).await;
    new.shutdown().await.unwrap();

    let refused = migrate(&sqlite, &postgres);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains(
            "already holds data: server_keys (1 rows), accounts (1 rows), sign_ins (1 rows), \
             sessions (1 rows)"
        ),
        "{said}"
    );
    let usernames = postgres.query("SELECT username FROM accounts").await;
    assert_eq!(usernames, [[Some("bert".to_owned())]], "nothing copied");
}

#[test]
fn a_source_that_does_not_exist_is_said_so_and_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("punct.db");
    let elsewhere = dir.path().join("no-such-directory/punct.db");
    // The target is never reached: the source is refused first.
    let to = "postgres://punct@127.0.0.1:9/punct";
    for path in [&missing, &elsewhere] {
        let from = path.display().to_string();
        let said = refusal(&migrate_urls(&from, to));
        assert!(
            said.contains(&format!("--from {from}: no such file")),
            "{said}"
        );
        assert!(!path.exists(), "{from} is not made");
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn a_file_a_running_server_has_open_is_not_migrated() {
    let sqlite = Database::sqlite();
    let server = Process::start(&sqlite);
    server.register("anna", PASSWORD).await;
    let postgres = Database::postgres();

    let said = refusal(&migrate(&sqlite, &postgres));
    assert!(said.contains("a server has it open"), "{said}");
    assert_eq!(tables(&postgres).await, "0", "the target is left as it was");
    // The server goes on, its file untouched.
    server.sign_in("anna", PASSWORD).await;
    server.register("bert", PASSWORD).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn a_file_copied_without_the_wal_that_holds_its_data_is_refused_and_with_it_is_whole() {
    let sqlite = Database::sqlite();
    let server = Process::start(&sqlite);
    server.register("anna", PASSWORD).await;
    // Killed, the server leaves what it committed in the WAL beside the file.
    server.kill();
    let file = PathBuf::from(sqlite.url());
    let postgres = Database::postgres();

    let alone = copied(&file, false);
    let said = refusal(&migrate(&alone, &postgres));
    assert!(
        said.contains("no punct database") && said.contains("punct.db-wal"),
        "{said}"
    );
    assert_eq!(tables(&postgres).await, "0", "the target is left as it was");

    // With its WAL the copy is whole: the WAL is folded into the file, which is copied.
    let whole = copied(&file, true);
    let migrated = migrate(&whole, &postgres);
    let said = String::from_utf8_lossy(&migrated.stdout);
    assert!(
        migrated.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    let usernames = postgres.query("SELECT username FROM accounts").await;
    assert_eq!(usernames, [[Some("anna".to_owned())]]);
    let wal = PathBuf::from(format!("{}-wal", whole.url()));
    assert_eq!(std::fs::metadata(&wal).map_or(0, |wal| wal.len()), 0);
    assert_eq!(
        whole.query("SELECT username FROM accounts").await,
        usernames
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn a_postgresql_database_that_does_not_exist_is_named_in_postgresql_s_words() {
    let sqlite = Database::sqlite();
    let server = Process::start(&sqlite);
    server.register("anna", PASSWORD).await;
    server.terminate();
    assert!(server.wait().success());
    let missing = Postgres::shared().url("no_such_database");
    let said = refusal(&migrate_urls(&sqlite.url(), &missing));
    assert!(
        said.contains(r#"database "no_such_database" does not exist"#),
        "{said}"
    );
    // A role that does not exist, the same.
    let stranger = missing.replace("postgres@", "no_such_role@");
    let said = refusal(&migrate_urls(&sqlite.url(), &stranger));
    assert!(
        said.contains(r#"role "no_such_role" does not exist"#),
        "{said}"
    );

    // And the server, asked to serve from it.
    let served = Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args(["--listen", "127.0.0.1:0", "--database", &missing])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&served.stderr);
    assert!(!served.status.success(), "{said}");
    assert!(
        said.contains(r#"database "no_such_database" does not exist"#),
        "{said}"
    );
}
