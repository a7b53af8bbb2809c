//! What ends at once when a session or an account does, through the real server on the
//! suite's database: every WebSocket the session opened closes with `bye`
//! `session-ended` (signing out, signing out everywhere, a new password, a ban, a
//! deletion), on whichever node holds it; a banned or deleted account's seat tokens no
//! longer act, nor does a muted account's seat speak; and a deleted account's name
//! leaves the rooms held in memory, and its reported lines keep their room.

use punct_protocol::{ErrorCode, ServerMessage};
use punct_server::Console;
use punct_testing::{Client, Database, Endpoint, Nats, TestServer, api_error};
use serde_json::{Value, json};

use crate::blocks::server_on;
use crate::moderation::{act, operator};

const PASSWORD: &str = "a fine password";
/// Two legal turns of the standard game, White's then Black's.
const OPENING: [&str; 2] = ["B2:B1,B3", "A3:A2,A4"];

/// Reads until the server closes `client`'s connection: it must have said `bye`
/// `session-ended` first, and closed normally.
pub(crate) async fn session_ended(client: &mut Client) {
    let frame = client.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 1000, "{frame:?}");
    let kept = client.kept();
    assert!(
        kept.iter().any(|message| matches!(
            message,
            ServerMessage::Bye {
                code: ErrorCode::SessionEnded,
                ..
            }
        )),
        "bye session-ended before the close: {kept:?}"
    );
}

/// Deletes the account `who` is signed in to; answers the name its games show now.
async fn delete_account(who: &Endpoint) -> String {
    let password = json!({"password": PASSWORD}).to_string();
    let (status, body) = who.http("DELETE", "/api/me", &password).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<Value>(&body).unwrap()["name"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Whether `client`'s connection is still served: it is answered a request.
async fn still_open(client: &mut Client, room: &str) {
    let _ = client.watch(room).await;
}

/// A server with a moderator (`mona`) and the sessions of `anna` and `bert`.
async fn cast() -> (Database, TestServer, Endpoint, String, String) {
    let database = Database::new();
    let server = server_on(&database).await;
    let mona = server.signed_in(&server.register("mona", PASSWORD).await);
    let anna = server.register("anna", PASSWORD).await;
    let bert = server.register("bert", PASSWORD).await;
    operator(&database, "mona", Console::Grant("moderator".into())).await;
    (database, server, mona, anna, bert)
}

/// A room Anna (White) made and Bert took the other seat of: its id and Bert's token.
async fn anna_against_bert(server: &Endpoint, anna: &str, bert: &str) -> (String, String) {
    let room = server
        .signed_in(anna)
        .create_room(r#"{"color":"white"}"#)
        .await
        .room;
    let seat = server.signed_in(bert).take_seat(&room).await;
    (room, seat.token)
}

#[tokio::test]
async fn a_mute_holds_in_the_seat_an_account_plays_by_its_token() {
    let (_database, server, mona, anna, bert) = cast().await;
    let (room, token) = anna_against_bert(&server, &anna, &bert).await;
    let mute = json!({"action": "mute", "username": "bert", "minutes": 10, "reason": "rude"});
    assert_eq!(act(&mona, mute).await, (204, None));
    // No cookie, no bearer: only the seat's token says who speaks.
    let mut bert = server.player(&room, &token).await;
    assert_eq!(
        bert.say("I am not muted here").await,
        Some(ErrorCode::Muted)
    );
}

#[tokio::test]
async fn a_ban_closes_every_socket_of_the_account_and_its_seat_tokens_no_longer_act() {
    let (_database, server, mona, anna, bert) = cast().await;
    let (first, _) = anna_against_bert(&server, &anna, &bert).await;
    let (second, token) = anna_against_bert(&server, &anna, &bert).await;
    let bert_signed_in = server.signed_in(&bert);
    let mut seated = bert_signed_in.client().await;
    seated.join_as(&first, None).await;
    let mut idle = bert_signed_in.client().await;
    let mut by_token = server.player(&second, &token).await;
    let mut anna_watching = server.signed_in(&anna).client().await;

    let ban = json!({"action": "ban", "username": "bert", "reason": "threats"});
    assert_eq!(act(&mona, ban).await, (204, None));
    for socket in [&mut seated, &mut idle, &mut by_token] {
        session_ended(socket).await;
    }
    still_open(&mut anna_watching, &first).await;
    let mut again = server.client().await;
    assert_eq!(
        again.join_refused(&second, &token).await,
        ErrorCode::Banned,
        "his seat's token no longer acts"
    );
}

#[tokio::test]
async fn signing_out_and_a_new_password_close_the_sockets_of_the_sessions_they_end() {
    let database = Database::new();
    let server = server_on(&database).await;
    let table = server.table("standard").await;
    let first = server.register("anna", PASSWORD).await;
    let second = server.sign_in("anna", PASSWORD).await;
    let third = server.sign_in("anna", PASSWORD).await;
    let sockets = [&first, &second, &third].map(|token| server.signed_in(token));
    let mut one = sockets[0].client().await;
    let mut two = sockets[1].client().await;
    let mut three = sockets[2].client().await;

    let (status, _) = sockets[0].http("DELETE", "/api/session", "").await;
    assert_eq!(status, 204);
    session_ended(&mut one).await;
    still_open(&mut two, &table.room).await;

    let body = json!({"password": PASSWORD, "new_password": "another fine password"});
    let (status, _) = sockets[1]
        .http("POST", "/api/me/password", &body.to_string())
        .await;
    assert_eq!(status, 204);
    session_ended(&mut three).await;
    let mut two_again = server.client().await;
    still_open(&mut two_again, &table.room).await;
    assert_eq!(
        two.say("still here").await,
        None,
        "the session that asked stays"
    );

    let (status, _) = sockets[1].http("DELETE", "/api/me/sessions", "").await;
    assert_eq!(status, 204);
    session_ended(&mut two).await;
}

#[tokio::test]
async fn a_deleted_account_closes_its_sockets_and_its_name_leaves_the_room_in_memory() {
    let database = Database::new();
    let server = server_on(&database).await;
    let fred_token = server.register("fred", PASSWORD).await;
    let anna_token = server.register("anna", PASSWORD).await;
    let (fred, anna) = (server.signed_in(&fred_token), server.signed_in(&anna_token));
    let seat = fred.create_room(r#"{"color":"white"}"#).await;
    let room = seat.room.clone();
    anna.take_seat(&room).await;
    let mut white = fred.client().await;
    white.join_as(&room, None).await;
    let mut black = anna.client().await;
    black.join_as(&room, None).await;
    white.play(OPENING[0]).await.unwrap();
    black.play(OPENING[1]).await.unwrap();
    assert_eq!(white.say("remember me").await, None);

    let name = delete_account(&fred).await;
    session_ended(&mut white).await;
    let mut again = server.client().await;
    assert_eq!(
        again.join_refused(&room, &seat.token).await,
        ErrorCode::BadToken,
        "a deleted account's seat token no longer acts"
    );

    // Anna is still in the room: it is held in memory, and shows the name it has now.
    let record = server.record(&room).await;
    assert_eq!(record.white.name.as_deref(), Some(name.as_str()));
    assert_eq!(record.white.account.as_deref(), Some(name.as_str()));
    let (_, summary) = server.http("GET", &format!("/api/rooms/{room}"), "").await;
    assert!(
        summary.contains(&name) && !summary.contains("fred"),
        "{summary}"
    );
    let response = record_text(&server, &room).await;
    assert!(
        response.0.contains(&format!("# White: {name}")) && !response.0.contains("fred"),
        "{}",
        response.0
    );
    assert!(
        response.1.contains("deletedplayer") && !response.1.contains("fred"),
        "{}",
        response.1
    );
    let export: Value = anna.get("/api/me/export").await;
    let games = export["games"].to_string();
    assert!(games.contains(&name) && !games.contains("fred"), "{games}");
    let (_, snapshot) = server.spectator(&room).await;
    assert!(
        snapshot.chat.iter().all(|line| line.text != "remember me"),
        "his lines leave the chat kept: {:?}",
        snapshot.chat
    );
}

/// `GET /api/rooms/{room}/record.txt`: the text and its `Content-Disposition`.
async fn record_text(server: &Endpoint, room: &str) -> (String, String) {
    let url = format!("{}/api/rooms/{room}/record.txt", server.url);
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), 200);
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.text().await.unwrap(), disposition)
}

#[tokio::test]
async fn a_report_of_a_deleted_speakers_line_keeps_its_room() {
    let (_database, server, mona, anna, bert) = cast().await;
    let table = server.table("basic").await;
    let bert = server.signed_in(&bert);
    let (mut bert_watching, _) = bert.spectator(&table.room).await;
    assert_eq!(bert_watching.say("you are all fools").await, None);
    let line = bert_watching.heard().await.line.unwrap();
    let report = json!({"line": line, "reason": "insults"});
    let (status, _) = server
        .signed_in(&anna)
        .http("POST", "/api/reports", &report.to_string())
        .await;
    assert_eq!(status, 201);
    let (status, _) = bert
        .http(
            "DELETE",
            "/api/me",
            &json!({"password": PASSWORD}).to_string(),
        )
        .await;
    assert_eq!(status, 200);

    let queue: Value = mona.get("/api/mod/reports").await;
    let report = &queue["reports"][0];
    assert_eq!(report["line"], line);
    assert_eq!(report["room"], table.room.as_str(), "{report}");
    assert_eq!(
        report["text"], "",
        "its words went with the account: {report}"
    );
    assert!(
        report["reported"]
            .as_str()
            .unwrap()
            .starts_with("deleted player")
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_ban_on_one_node_closes_the_players_sockets_on_the_others() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let nodes = crate::cluster::cluster(&database, &nats);
    let mona = nodes[0].signed_in(&nodes[0].register("mona", PASSWORD).await);
    let anna = nodes[0].register("anna", PASSWORD).await;
    let bert = nodes[0].register("bert", PASSWORD).await;
    operator(&database, "mona", Console::Grant("moderator".into())).await;
    let (first, _) = anna_against_bert(&nodes[0], &anna, &bert).await;
    let (second, token) = anna_against_bert(&nodes[0], &anna, &bert).await;

    // Bert is signed in on node 1, and plays by his seat's token alone on node 2.
    let mut signed_in = nodes[1].signed_in(&bert).client().await;
    signed_in.join_as(&first, None).await;
    let mut by_token = nodes[2].player(&second, &token).await;

    let ban = json!({"action": "ban", "username": "bert", "reason": "threats"});
    assert_eq!(act(&mona, ban).await, (204, None));
    session_ended(&mut signed_in).await;
    session_ended(&mut by_token).await;
    let mut again = nodes[1].client().await;
    assert_eq!(again.join_refused(&second, &token).await, ErrorCode::Banned);
}

#[tokio::test]
async fn a_deleted_account_s_seat_token_cancels_no_room_over_http() {
    let database = Database::new();
    let server = server_on(&database).await;
    let fred = server.signed_in(&server.register("fred", PASSWORD).await);
    let seat = fred.create_room(r#"{"color":"white"}"#).await;
    delete_account(&fred).await;

    let cancel = json!({"token": seat.token}).to_string();
    let (status, body) = server
        .http("POST", &format!("/api/rooms/{}/cancel", seat.room), &cancel)
        .await;
    assert_eq!(
        (status, api_error(&body)),
        (403, ErrorCode::BadToken),
        "{body}"
    );
    let (status, _) = server
        .http("GET", &format!("/api/rooms/{}", seat.room), "")
        .await;
    assert_eq!(status, 200, "the room is still there");
}

#[tokio::test]
async fn a_ban_from_the_console_closes_the_account_s_sockets_too() {
    let (database, server, _mona, anna, bert) = cast().await;
    let (room, token) = anna_against_bert(&server, &anna, &bert).await;
    let mut signed_in = server.signed_in(&bert).client().await;
    let mut by_token = server.player(&room, &token).await;
    // The console writes to the database alone: the server finds the ban itself, within
    // a few seconds.
    operator(&database, "bert", Console::Ban).await;
    for socket in [&mut signed_in, &mut by_token] {
        session_ended(socket).await;
    }
}
