//! Blocks through the real server: a blocked account cannot take a seat in a room the
//! blocker created, and its chat does not reach the blocker while it reaches everyone
//! else; a block outlasts a restart, holds on every node of a cluster, and lifting it
//! restores both.

use punct_protocol::{ErrorCode, ServerMessage};
use punct_server::Config;
use punct_testing::{Database, Endpoint, Nats, TestServer, api_error};

use crate::cluster::cluster;

const PASSWORD: &str = "a fine password";

/// A server on `database` that does not limit the rate of chat.
pub(crate) async fn server_on(database: &Database) -> TestServer {
    TestServer::with(Config {
        database: Some(database.url()),
        message_rate_scale: 0.0,
        ..Config::default()
    })
    .await
}

/// `method` of `/api/me/blocks/{username}` as `who`: the status.
async fn blocks(who: &Endpoint, method: &str, username: &str) -> u16 {
    let path = format!("/api/me/blocks/{username}");
    let (status, body) = who.http(method, &path, "").await;
    assert!(status == 204 || body.contains("code"), "{body}");
    status
}

/// The usernames `who` blocks, as `GET /api/me/blocks` lists them.
async fn blocked_by(who: &Endpoint) -> Vec<String> {
    let list: serde_json::Value = who.get("/api/me/blocks").await;
    list["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| {
            assert!(block["since"].as_i64().unwrap() > 0);
            block["username"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// `POST /api/rooms/{room}/seat` as `who`: the status and the error code if refused.
async fn take_seat(who: &Endpoint, room: &str) -> (u16, Option<ErrorCode>) {
    let (status, body) = who
        .http("POST", &format!("/api/rooms/{room}/seat"), "")
        .await;
    (status, (status != 200).then(|| api_error(&body)))
}

#[tokio::test]
async fn a_blocked_account_cannot_take_a_seat_in_the_blockers_room() {
    let database = Database::new();
    let server = server_on(&database).await;
    let anna = server.signed_in(&server.register("anna", PASSWORD).await);
    let bert_token = server.register("bert", PASSWORD).await;
    let bert = server.signed_in(&bert_token);

    assert_eq!(blocks(&anna, "PUT", "Bert").await, 204, "any case");
    assert_eq!(
        blocks(&anna, "PUT", "bert").await,
        204,
        "again: nothing changes"
    );
    assert_eq!(blocks(&anna, "PUT", "anna").await, 400, "not oneself");
    assert_eq!(blocks(&anna, "PUT", "nobody").await, 404);
    assert_eq!(blocks(&server, "PUT", "bert").await, 401, "signed in only");
    assert_eq!(blocked_by(&anna).await, ["bert"]);
    assert!(blocked_by(&bert).await.is_empty(), "a block goes one way");
    let export: serde_json::Value = anna.get("/api/me/export").await;
    assert_eq!(export["blocks"][0]["username"], "bert");

    let room = anna.create_room(r#"{"color":"white"}"#).await.room;
    assert_eq!(
        take_seat(&bert, &room).await,
        (403, Some(ErrorCode::Blocked))
    );
    // Bert's own room is open to Anna: only the blocker's rooms are closed.
    let his = bert.create_room(r#"{"color":"white"}"#).await.room;
    assert_eq!(take_seat(&anna, &his).await, (200, None));

    // The block is stored: it outlasts the server.
    server.shutdown().await.unwrap();
    let server = server_on(&database).await;
    let anna = server.signed_in(&server.sign_in("anna", PASSWORD).await);
    let bert = server.signed_in(&bert_token);
    assert_eq!(
        take_seat(&bert, &room).await,
        (403, Some(ErrorCode::Blocked))
    );

    assert_eq!(blocks(&anna, "DELETE", "bert").await, 204);
    assert_eq!(
        blocks(&anna, "DELETE", "bert").await,
        204,
        "none stands: fine"
    );
    assert!(blocked_by(&anna).await.is_empty());
    assert_eq!(take_seat(&bert, &room).await, (200, None), "lifted");

    // A deleted account's blocks go with it.
    assert_eq!(blocks(&anna, "PUT", "bert").await, 204);
    let password = format!(r#"{{"password":"{PASSWORD}"}}"#);
    let (status, body) = bert.http("DELETE", "/api/me", &password).await;
    assert_eq!(status, 200, "{body}");
    assert!(blocked_by(&anna).await.is_empty());
    assert_eq!(
        blocks(&anna, "PUT", "bert").await,
        404,
        "nobody to block now"
    );
}

#[tokio::test]
async fn a_blocked_accounts_chat_does_not_reach_the_blocker() {
    let database = Database::new();
    let server = server_on(&database).await;
    let anna = server.signed_in(&server.register("anna", PASSWORD).await);
    let bert = server.signed_in(&server.register("bert", PASSWORD).await);
    // Both players' seats are anonymous; Anna, Bert and Carl (not signed in) watch.
    let table = server.table("basic").await;
    let (mut bert_watching, _) = bert.spectator(&table.room).await;
    assert_eq!(bert_watching.say("before the block").await, None);
    assert_eq!(blocks(&anna, "PUT", "bert").await, 204);
    let (mut anna_watching, snapshot) = anna.spectator(&table.room).await;
    assert!(snapshot.chat.is_empty(), "nor what he said before");
    let (mut carl, snapshot) = server.spectator(&table.room).await;
    assert_eq!(snapshot.chat.len(), 1);

    assert_eq!(bert_watching.say("hello all").await, None);
    assert_eq!(carl.heard().await.text, "hello all", "others hear him");
    assert_eq!(anna_watching.say("anyone here?").await, None);
    assert_eq!(
        anna_watching.heard().await.text,
        "anyone here?",
        "her own line is the first she hears: his never came"
    );
    assert_eq!(carl.heard().await.text, "anyone here?");
    assert_eq!(bert_watching.heard().await.text, "before the block");
    assert_eq!(bert_watching.heard().await.text, "hello all");
    assert_eq!(
        bert_watching.heard().await.text,
        "anyone here?",
        "he hears her"
    );
    let (_, snapshot) = anna.spectator(&table.room).await;
    let texts: Vec<&str> = snapshot.chat.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["anyone here?"],
        "the lines kept leave his out for her"
    );

    // Lifted, the block no longer counts from her next entry on.
    assert_eq!(blocks(&anna, "DELETE", "bert").await, 204);
    let (mut anna_again, snapshot) = anna.spectator(&table.room).await;
    let texts: Vec<&str> = snapshot.chat.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["before the block", "hello all", "anyone here?"]);
    assert_eq!(bert_watching.say("welcome back").await, None);
    assert_eq!(anna_again.heard().await.text, "welcome back");
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_block_holds_on_every_node_of_a_cluster() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let nodes = cluster(&database, &nats);
    let anna = nodes[0].register("anna", PASSWORD).await;
    let bert = nodes[1].register("bert", PASSWORD).await;
    // Anna's room runs on node 0; she blocks Bert through node 1, and he is refused
    // her seat through node 2.
    let room = nodes[0]
        .signed_in(&anna)
        .create_room(r#"{"color":"white"}"#)
        .await
        .room;
    assert_eq!(blocks(&nodes[1].signed_in(&anna), "PUT", "bert").await, 204);
    assert_eq!(
        take_seat(&nodes[2].signed_in(&bert), &room).await,
        (403, Some(ErrorCode::Blocked))
    );

    // A room on node 0 that all three watch from other nodes: Bert's chat reaches Carl,
    // not Anna.
    let table = nodes[0].table("basic").await;
    let (mut anna_watching, _) = nodes[1].signed_in(&anna).spectator(&table.room).await;
    let (mut bert_watching, _) = nodes[2].signed_in(&bert).spectator(&table.room).await;
    let (mut carl, _) = nodes[2].spectator(&table.room).await;
    assert_eq!(bert_watching.say("hello all").await, None);
    assert_eq!(carl.heard().await.text, "hello all");
    assert_eq!(anna_watching.say("anyone here?").await, None);
    assert_eq!(anna_watching.heard().await.text, "anyone here?");
    assert_eq!(carl.heard().await.text, "anyone here?");

    // Lifted through node 2: Anna hears him again once she enters again, and may be his
    // opponent.
    assert_eq!(
        blocks(&nodes[2].signed_in(&anna), "DELETE", "bert").await,
        204
    );
    let (mut anna_again, _) = nodes[1].signed_in(&anna).spectator(&table.room).await;
    assert_eq!(bert_watching.say("welcome back").await, None);
    assert_eq!(anna_again.heard().await.text, "welcome back");
    assert_eq!(
        take_seat(&nodes[1].signed_in(&bert), &room).await,
        (200, None)
    );
}

#[tokio::test]
async fn a_blocked_opponents_lines_do_not_reach_the_blocker_at_the_board() {
    let database = Database::new();
    let server = server_on(&database).await;
    let anna = server.signed_in(&server.register("anna", PASSWORD).await);
    let bert = server.signed_in(&server.register("bert", PASSWORD).await);
    // Bert took his seat before Anna blocked him: the game goes on, without his chat.
    let room = anna.create_room(r#"{"color":"white"}"#).await.room;
    assert_eq!(take_seat(&bert, &room).await, (200, None));
    assert_eq!(blocks(&anna, "PUT", "bert").await, 204);
    let mut white = anna.client().await;
    let mut black = bert.client().await;
    for player in [&mut white, &mut black] {
        let joined = player.join_as(&room, None).await;
        assert!(
            matches!(joined, ServerMessage::Snapshot { .. }),
            "{joined:?}"
        );
    }
    assert_eq!(black.say("you will lose").await, None);
    assert_eq!(white.say("good luck").await, None);
    assert_eq!(white.heard().await.text, "good luck", "his line never came");
    assert_eq!(black.heard().await.text, "you will lose");
    assert_eq!(black.heard().await.text, "good luck", "hers reach him");
}
