//! Moderation through the real server, on the database the suite runs on: roles granted
//! by the operator and refused to players, reports and the queue, each action's effect
//! on the accounts and rooms, and the audit log that records them.

use punct_protocol::{ErrorCode, ServerMessage};
use punct_rules::{Color, DrawReason, Outcome, WinReason};
use punct_server::{Config, Console};
use punct_testing::{Client, Database, Endpoint, TestServer, api_error};
use serde_json::{Value, json};

use crate::blocks::server_on;

const PASSWORD: &str = "a fine password";
/// Two legal turns of the standard game, White's then Black's.
const OPENING: [&str; 2] = ["B2:B1,B3", "A3:A2,A4"];

/// The operator's `action` on `username`, as `punct-server admin` does it.
pub(crate) async fn operator(database: &Database, username: &str, action: Console) -> String {
    let config = Config {
        database: Some(database.url()),
        ..Config::default()
    };
    punct_server::admin(&config, username, action, "by the operator")
        .await
        .unwrap()
}

/// `who` does a moderator's action: the status, and the error code if refused.
pub(crate) async fn act(who: &Endpoint, action: Value) -> (u16, Option<ErrorCode>) {
    let (status, body) = who
        .http("POST", "/api/mod/actions", &action.to_string())
        .await;
    (status, (status != 204).then(|| api_error(&body)))
}

/// The audit log as a moderator reads it, newest first.
async fn log(moderator: &Endpoint) -> Vec<Value> {
    let log: Value = moderator.get("/api/mod/log").await;
    log["entries"].as_array().unwrap().clone()
}

/// Black's win when White is banned mid-game.
const BLACK_BY_ABANDONMENT: Outcome = Outcome::Win {
    winner: Color::Black,
    reason: WinReason::Abandonment,
};

/// White (signed in through `white`) and Black (through `black`) enter `room`, where
/// both hold seats, and play one turn each; answers their connections.
async fn one_turn_each(white: &Endpoint, black: &Endpoint, room: &str) -> (Client, Client) {
    let (mut white, mut black) = (white.client().await, black.client().await);
    white.join_as(room, None).await;
    black.join_as(room, None).await;
    white.play(OPENING[0]).await.unwrap();
    black.play(OPENING[1]).await.unwrap();
    (white, black)
}

/// How the game `player` plays ends, as the room tells it.
async fn game_over(player: &mut Client) -> Outcome {
    loop {
        if let ServerMessage::GameOver { outcome, .. } = player.next_news().await {
            return outcome;
        }
    }
}

/// A server with a moderator (`mona`) and two players (`anna`, `bert`), signed in.
struct Cast {
    database: Database,
    server: TestServer,
    mona: Endpoint,
    anna: Endpoint,
    bert: Endpoint,
}

async fn cast() -> Cast {
    let database = Database::new();
    let server = server_on(&database).await;
    let mona = server.signed_in(&server.register("mona", PASSWORD).await);
    let anna = server.signed_in(&server.register("anna", PASSWORD).await);
    let bert = server.signed_in(&server.register("bert", PASSWORD).await);
    operator(&database, "mona", Console::Grant("moderator".into())).await;
    Cast {
        database,
        server,
        mona,
        anna,
        bert,
    }
}

#[tokio::test]
async fn only_those_the_operator_made_moderators_reach_the_pages_and_actions() {
    let Cast {
        database,
        server,
        mona,
        anna,
        ..
    } = cast().await;
    let warn = json!({"action": "warn", "username": "bert", "reason": "be nice"});
    for who in [&anna, &*server] {
        for path in ["/mod", "/mod/log", "/mod/players/bert"] {
            let (status, body) = who.http("GET", path, "").await;
            assert_eq!(status, 403, "{path}: {body}");
        }
        let (status, _) = who.http("GET", "/api/mod/reports", "").await;
        assert!(status == 403 || status == 401, "{status}");
    }
    let (status, body) = anna.http("GET", "/api/mod/reports", "").await;
    assert_eq!((status, api_error(&body)), (403, ErrorCode::NotAModerator));
    assert_eq!(
        act(&anna, warn.clone()).await,
        (403, Some(ErrorCode::NotAModerator))
    );
    for path in ["/api/mod/log", "/api/mod/players/bert"] {
        let (status, _) = anna.http("GET", path, "").await;
        assert_eq!(status, 403, "{path}");
    }

    let (status, page) = mona.http("GET", "/mod/players/bert", "").await;
    assert_eq!(status, 200);
    assert!(page.contains("moderation.js"), "the moderators' page");
    assert_eq!(act(&mona, warn.clone()).await, (204, None));

    // Revoked, the role is gone at once.
    operator(&database, "mona", Console::Revoke).await;
    assert_eq!(
        act(&mona, warn).await,
        (403, Some(ErrorCode::NotAModerator))
    );
    operator(&database, "anna", Console::Grant("admin".into())).await;
    let entries = log(&anna).await;
    let actions: Vec<(&str, Option<&str>, Option<&str>)> = entries
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["account"].as_str(),
                e["moderator"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [
            ("grant", Some("anna"), None),
            ("revoke", Some("mona"), None),
            ("warn", Some("bert"), Some("mona")),
            ("grant", Some("mona"), None),
        ],
        "the console's actions have no moderator"
    );
    assert_eq!(entries[0]["role"], "admin");
    assert!(
        punct_server::admin(
            &Config {
                database: Some(database.url()),
                ..Config::default()
            },
            "anna",
            Console::Grant("king".into()),
            "no such role",
        )
        .await
        .is_err()
    );
}

#[tokio::test]
async fn reports_wait_in_the_queue_until_a_moderator_answers_them() {
    let Cast {
        server,
        mona,
        anna,
        bert,
        ..
    } = cast().await;
    let table = server.table("standard").await;
    let (mut bert_watching, _) = bert.spectator(&table.room).await;
    assert_eq!(bert_watching.say("you are all fools").await, None);
    let line = bert_watching.heard().await;
    let id = line.line.expect("a line has its number");

    let report = |body: Value| {
        let anna = &anna;
        async move {
            let (status, answer) = anna.http("POST", "/api/reports", &body.to_string()).await;
            (status, answer)
        }
    };
    let (status, answer) =
        report(json!({"line": id, "reason": "insults <script>alert(1)</script>"})).await;
    assert_eq!(status, 201, "{answer}");
    let (status, _) = report(json!({"username": "bert", "reason": "cheats, I think"})).await;
    assert_eq!(status, 201);
    for (bad, code) in [
        (
            json!({"username": "anna", "reason": "me"}),
            ErrorCode::BadRequest,
        ),
        (
            json!({"username": "bert", "reason": "  "}),
            ErrorCode::BadRequest,
        ),
        (json!({"reason": "nobody"}), ErrorCode::BadRequest),
        (
            json!({"line": id + 1000, "reason": "gone"}),
            ErrorCode::NotFound,
        ),
        (
            json!({"username": "nobody", "reason": "who"}),
            ErrorCode::NoSuchPlayer,
        ),
    ] {
        let (status, answer) = report(bad.clone()).await;
        assert_eq!(api_error(&answer), code, "{bad}: {status}");
    }
    let (status, _) = server
        .http(
            "POST",
            "/api/reports",
            r#"{"username":"bert","reason":"x"}"#,
        )
        .await;
    assert_eq!(status, 401, "only a signed-in player reports");

    let queue: Value = mona.get("/api/mod/reports").await;
    let reports = queue["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["reporter"], "anna");
    assert_eq!(reports[0]["reported"], "bert", "a line's speaker");
    assert_eq!(reports[0]["text"], "you are all fools");
    assert_eq!(reports[0]["room"], table.room.as_str());
    assert_eq!(
        reports[0]["reason"], "insults <script>alert(1)</script>",
        "kept as written: the page shows it as text"
    );
    let (first, second) = (
        reports[0]["id"].as_str().unwrap().to_owned(),
        reports[1]["id"].as_str().unwrap().to_owned(),
    );

    let warn =
        json!({"action": "warn", "username": "bert", "reason": "mind your words", "report": first});
    assert_eq!(act(&mona, warn).await, (204, None));
    let dismiss = json!({"action": "dismiss", "reason": "no sign of it", "report": second});
    assert_eq!(act(&mona, dismiss).await, (204, None));
    let nothing = json!({"action": "dismiss", "reason": "?", "report": "no-such-report"});
    assert_eq!(act(&mona, nothing).await, (404, Some(ErrorCode::NotFound)));
    let queue: Value = mona.get("/api/mod/reports").await;
    assert_eq!(queue["reports"], json!([]), "both answered");

    let warnings: Value = bert.get("/api/me/warnings").await;
    assert_eq!(warnings["warnings"][0]["reason"], "mind your words");
    let warnings: Value = anna.get("/api/me/warnings").await;
    assert_eq!(warnings["warnings"], json!([]));
    // Each export holds what is stored of its player: warnings, addresses, reports made.
    let bert_export: Value = bert.get("/api/me/export").await;
    assert_eq!(bert_export["warnings"][0]["reason"], "mind your words");
    assert_eq!(
        bert_export["reports"],
        json!([]),
        "who reported him is not told"
    );
    assert_eq!(bert_export["addresses"].as_array().unwrap().len(), 1);
    let anna_export: Value = anna.get("/api/me/export").await;
    let made: Vec<&str> = anna_export["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        made,
        ["cheats, I think", "insults <script>alert(1)</script>"]
    );

    let record: Value = mona.get("/api/mod/players/bert").await;
    assert_eq!(record["reports"].as_array().unwrap().len(), 2);
    assert_eq!(record["reports"][0]["resolved_by"], "mona");
    assert_eq!(record["chat"][0]["text"], "you are all fools");
    assert_eq!(record["actions"][0]["action"], "warn");
    let hash = record["addresses"][0]["hash"].as_str().unwrap();
    assert_eq!(hash.len(), 16, "an address is shown only as its hash");
    assert!(!hash.contains('.') && !hash.contains(':'));
    let anna_record: Value = mona.get("/api/mod/players/anna").await;
    assert_eq!(
        anna_record["addresses"][0]["hash"], hash,
        "the same address, the same hash"
    );
}

#[tokio::test]
async fn a_mute_silences_an_account_in_every_room_until_lifted() {
    let Cast {
        server, mona, anna, ..
    } = cast().await;
    let first = server.table("basic").await;
    let second = server.table("basic").await;
    let mute = json!({"action": "mute", "username": "anna", "minutes": 30, "reason": "spam"});
    assert_eq!(act(&mona, mute).await, (204, None));
    for room in [&first.room, &second.room] {
        let (mut watching, _) = anna.spectator(room).await;
        assert_eq!(watching.say("buy my stuff").await, Some(ErrorCode::Muted));
    }
    let too_long = json!({"action": "mute", "username": "anna", "minutes": 0, "reason": "x"});
    assert_eq!(
        act(&mona, too_long).await,
        (400, Some(ErrorCode::BadRequest))
    );
    let record: Value = mona.get("/api/mod/players/anna").await;
    assert!(record["muted_until"].as_i64().unwrap() > 0);

    let unmute = json!({"action": "unmute", "username": "anna", "reason": "served"});
    assert_eq!(act(&mona, unmute).await, (204, None));
    let (mut watching, _) = anna.spectator(&first.room).await;
    assert_eq!(watching.say("sorry").await, None);
}

#[tokio::test]
async fn a_bar_keeps_an_account_out_of_rated_games_only() {
    let Cast {
        server: _server,
        mona,
        anna,
        bert,
        ..
    } = cast().await;
    let rated = bert
        .create_room(r#"{"rated":true,"color":"white"}"#)
        .await
        .room;
    let bar = json!({"action": "bar", "username": "anna", "reason": "sandbagging"});
    assert_eq!(act(&mona, bar).await, (204, None));
    let (status, body) = anna.http("POST", "/api/rooms", r#"{"rated":true}"#).await;
    assert_eq!(
        (status, api_error(&body)),
        (403, ErrorCode::BarredFromRated)
    );
    let (status, body) = anna
        .http("POST", &format!("/api/rooms/{rated}/seat"), "")
        .await;
    assert_eq!(
        (status, api_error(&body)),
        (403, ErrorCode::BarredFromRated)
    );
    anna.create_room("").await;
    let unbar = json!({"action": "unbar", "username": "anna", "reason": "cleared"});
    assert_eq!(act(&mona, unbar).await, (204, None));
    let (status, body) = anna
        .http("POST", &format!("/api/rooms/{rated}/seat"), "")
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_ban_signs_out_forfeits_the_running_games_and_keeps_the_name() {
    let Cast {
        server,
        mona,
        anna,
        bert,
        ..
    } = cast().await;
    // Anna plays White against Bert, one turn each; she also waits in a room of her own.
    let room = anna.create_room(r#"{"color":"white"}"#).await.room;
    bert.take_seat(&room).await;
    let waiting = anna.create_room(r#"{"color":"white"}"#).await.room;
    let (_white, mut black) = one_turn_each(&anna, &bert, &room).await;

    let ban = json!({"action": "ban", "username": "anna", "reason": "threats"});
    assert_eq!(act(&mona, ban).await, (204, None));
    assert_eq!(game_over(&mut black).await, BLACK_BY_ABANDONMENT);
    let (status, _) = server
        .http("GET", &format!("/api/rooms/{waiting}"), "")
        .await;
    assert_eq!(status, 404, "her room without an opponent is gone");
    let (status, _) = anna.http("GET", "/api/me/sessions", "").await;
    assert_eq!(status, 401, "signed out");
    let (status, body) = server
        .http(
            "POST",
            "/api/session",
            &json!({"username": "anna", "password": PASSWORD}).to_string(),
        )
        .await;
    assert_eq!((status, api_error(&body)), (403, ErrorCode::Banned));
    let (status, body) = server
        .http(
            "POST",
            "/api/accounts",
            &json!({"username": "Anna", "password": PASSWORD}).to_string(),
        )
        .await;
    assert_eq!(
        (status, api_error(&body)),
        (409, ErrorCode::UsernameTaken),
        "the name stays hers"
    );

    let unban = json!({"action": "unban", "username": "anna", "reason": "appeal granted"});
    assert_eq!(act(&mona, unban).await, (204, None));
    server.sign_in("anna", PASSWORD).await;
    let actions: Vec<Value> = log(&mona).await;
    assert_eq!(actions[0]["action"], "unban");
    assert_eq!(actions[1]["action"], "ban");
    assert_eq!(actions[1]["reason"], "threats");
}

#[tokio::test]
async fn a_removed_line_is_shown_removed_to_everyone_now_and_later() {
    let Cast {
        server, mona, bert, ..
    } = cast().await;
    let table = server.table("basic").await;
    let (mut carl, _) = server.spectator(&table.room).await;
    let (mut bert_watching, _) = bert.spectator(&table.room).await;
    assert_eq!(bert_watching.say("a rude line").await, None);
    let line = carl.heard().await.line.unwrap();
    let remove = json!({"action": "remove_line", "line": line, "reason": "rude"});
    assert_eq!(act(&mona, remove.clone()).await, (204, None));
    for client in [&mut carl, &mut bert_watching] {
        let removed = loop {
            if let ServerMessage::ChatRemoved { line } = client.recv().await {
                break line;
            }
        };
        assert_eq!(removed, line);
    }
    let (_, snapshot) = server.spectator(&table.room).await;
    assert!(snapshot.chat[0].removed);
    assert_eq!(snapshot.chat[0].text, "", "its words are gone");
    let record: Value = mona.get("/api/mod/players/bert").await;
    assert_eq!(record["chat"][0]["removed"], true);
    let entries = log(&mona).await;
    assert_eq!(entries[0]["line"], line);
    assert_eq!(entries[0]["room"], table.room.as_str());
}

#[tokio::test]
async fn a_closed_room_ends_its_game_drawn_and_unrated() {
    let Cast {
        server,
        mona,
        anna,
        bert,
        ..
    } = cast().await;
    let room = anna
        .create_room(r#"{"rated":true,"color":"white"}"#)
        .await
        .room;
    bert.take_seat(&room).await;
    let (mut white, _black) = one_turn_each(&anna, &bert, &room).await;
    let close = json!({"action": "close_room", "room": room, "reason": "abusive names"});
    assert_eq!(act(&mona, close.clone()).await, (204, None));
    assert_eq!(
        game_over(&mut white).await,
        Outcome::Draw {
            reason: DrawReason::Closed
        }
    );
    let summary = server.summary(&room).await;
    assert!(!summary.rated, "a closed game is never rated");
    let player: Value = anna.get("/api/players/anna").await;
    assert!(
        player["ratings"].as_array().is_none_or(Vec::is_empty),
        "no rating came of it: {player}"
    );
    assert_eq!(
        act(&mona, close).await,
        (400, Some(ErrorCode::GameOver)),
        "nothing left to close, and nothing logged"
    );
    assert_eq!(log(&mona).await.len(), 2, "the grant and one close");

    // A room still waiting for an opponent is deleted.
    let waiting = anna.create_room("").await.room;
    let close = json!({"action": "close_room", "room": waiting, "reason": "spam rooms"});
    assert_eq!(act(&mona, close).await, (204, None));
    let (status, _) = server
        .http("GET", &format!("/api/rooms/{waiting}"), "")
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn only_an_admin_acts_on_a_moderator_and_nobody_on_themselves() {
    let Cast {
        database,
        server: _server,
        mona,
        anna,
        ..
    } = cast().await;
    operator(&database, "anna", Console::Grant("admin".into())).await;
    let ban_anna = json!({"action": "ban", "username": "anna", "reason": "coup"});
    assert_eq!(
        act(&mona, ban_anna).await,
        (403, Some(ErrorCode::NotAModerator))
    );
    let self_warn = json!({"action": "warn", "username": "mona", "reason": "me"});
    assert_eq!(
        act(&mona, self_warn).await,
        (400, Some(ErrorCode::BadRequest))
    );
    let warn_mona = json!({"action": "warn", "username": "mona", "reason": "overreach"});
    assert_eq!(act(&anna, warn_mona).await, (204, None));
}

#[tokio::test]
async fn the_operator_acts_from_the_command_line() {
    let database = Database::new();
    let server = server_on(&database).await;
    server.register("olga", PASSWORD).await;
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_punct-server"))
            .args(args)
            .args(["--database", &database.url()])
            .output()
            .unwrap()
    };
    let granted = run(&["admin", "grant", "olga", "admin"]);
    assert!(granted.status.success(), "{granted:?}");
    assert!(String::from_utf8_lossy(&granted.stdout).contains("olga is now admin"));
    let banned = run(&["admin", "ban", "nobody", "--reason", "x"]);
    assert!(!banned.status.success(), "no such account");
    let olga = server.signed_in(&server.sign_in("olga", PASSWORD).await);
    assert_eq!(log(&olga).await[0]["action"], "grant");
    let reset = run(&["admin", "reset-link", "olga"]);
    assert!(
        !reset.status.success()
            && String::from_utf8_lossy(&reset.stderr).contains("no confirmed mail address"),
        "{reset:?}"
    );
    let banned = run(&["admin", "ban", "olga", "--reason", "test"]);
    assert!(banned.status.success(), "{banned:?}");
    let (status, _) = olga.http("GET", "/api/mod/log", "").await;
    assert_eq!(status, 401, "her sessions ended");
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_moderator_on_one_node_acts_on_rooms_and_players_on_the_others() {
    let (database, nats) = (Database::postgres(), punct_testing::Nats::start());
    let nodes = crate::cluster::cluster(&database, &nats);
    let mona = nodes[2].signed_in(&nodes[2].register("mona", PASSWORD).await);
    let anna_token = nodes[1].register("anna", PASSWORD).await;
    let bert_token = nodes[1].register("bert", PASSWORD).await;
    operator(&database, "mona", Console::Grant("moderator".into())).await;

    // Anna's room runs on node 0; she plays from node 1, Bert from node 2.
    let room = nodes[0]
        .signed_in(&anna_token)
        .create_room(r#"{"color":"white"}"#)
        .await
        .room;
    nodes[0].signed_in(&bert_token).take_seat(&room).await;
    let white = nodes[1].signed_in(&anna_token);
    let (_white, mut black) = one_turn_each(&white, &nodes[2].signed_in(&bert_token), &room).await;

    // A line said on node 1 in the room on node 0, removed through node 2.
    let (mut carl, _) = nodes[1].spectator(&room).await;
    let mut anna_watching = nodes[1].signed_in(&anna_token).spectator(&room).await.0;
    assert_eq!(anna_watching.say("rude words").await, None);
    let line = carl.heard().await.line.unwrap();
    let remove = json!({"action": "remove_line", "line": line, "reason": "rude"});
    assert_eq!(act(&mona, remove).await, (204, None));
    let removed = loop {
        if let ServerMessage::ChatRemoved { line } = carl.recv().await {
            break line;
        }
    };
    assert_eq!(removed, line);

    // Muted through node 2: refused on node 1.
    let mute = json!({"action": "mute", "username": "anna", "minutes": 5, "reason": "rude"});
    assert_eq!(act(&mona, mute).await, (204, None));
    assert_eq!(anna_watching.say("more").await, Some(ErrorCode::Muted));

    // Banned through node 2: the game on node 0 is forfeited, Bert on node 2 told.
    let ban = json!({"action": "ban", "username": "anna", "reason": "again"});
    assert_eq!(act(&mona, ban).await, (204, None));
    assert_eq!(game_over(&mut black).await, BLACK_BY_ABANDONMENT);
    let (status, _) = nodes[0]
        .signed_in(&anna_token)
        .http("GET", "/api/me/sessions", "")
        .await;
    assert_eq!(status, 401, "signed out on every node");
}
