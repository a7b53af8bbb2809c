//! Quick pairing through the real server: two connections that seek the same game are
//! paired at once into a room whose seats their tokens hold, and play in it; seeks of
//! other games, of one person's two tabs, of players who block each other, or rated
//! without an account, do not meet; a seek ends with its connection and is listed
//! while it waits.

use std::time::Duration;

use punct_protocol::{
    ClientMessage, ErrorCode, NodeView, Role, SeekList, SeekPoolNode, ServerMessage, TimeControl,
};
use punct_rules::{Color, Variant};
use punct_testing::{Client, Database, Nats, Process, TestServer};

/// A `seek` of a 5+3 standard game, casual, with `guest`'s key.
fn blitz(id: u64, guest: Option<&str>) -> ClientMessage {
    ClientMessage::Seek {
        id,
        variant: Variant::Standard,
        clock: TimeControl::clock(300, 3),
        rated: false,
        range: None,
        name: None,
        guest: guest.map(str::to_owned),
    }
}

/// Seeks on `client` and answers the seek's id, expecting it to wait.
async fn seeks(client: &mut Client, seek: impl FnOnce(u64) -> ClientMessage) -> String {
    match client.request(seek).await {
        ServerMessage::Seeking {
            seek, expires_at, ..
        } => {
            assert!(expires_at > 0);
            seek
        }
        other => panic!("expected seeking, got {other:?}"),
    }
}

/// The `paired` a client gets: room, token and colour.
fn paired(message: ServerMessage) -> (String, String, Color) {
    match message {
        ServerMessage::Paired {
            room, token, color, ..
        } => (room, token, color),
        other => panic!("expected paired, got {other:?}"),
    }
}

#[tokio::test]
async fn two_players_seeking_the_same_game_meet_in_one_room_and_play() {
    let server = TestServer::start().await;
    let mut anna = server.client().await;
    let seek = seeks(&mut anna, |id| blitz(id, Some("anna-browser"))).await;
    let list: SeekList = server.get("/api/seeks").await;
    assert_eq!(list.seeks.len(), 1);
    assert_eq!(list.seeks[0].seek, seek);
    assert_eq!(list.seeks[0].game.clock, TimeControl::clock(300, 3));

    let mut bert = server.client().await;
    let (room, bert_token, bert_color) =
        paired(bert.request(|id| blitz(id, Some("bert-browser"))).await);
    let (anna_room, anna_token, anna_color) = paired(anna.recv().await);
    assert_eq!(room, anna_room);
    assert_ne!(anna_color, bert_color);
    assert_ne!(anna_token, bert_token);
    let list: SeekList = server.get("/api/seeks").await;
    assert!(list.seeks.is_empty(), "{list:?}");

    // Both sit at their board on the same connections, in the colours they were told,
    // and White plays.
    let ServerMessage::Snapshot {
        you,
        room: snapshot,
        ..
    } = anna.join_as(&room, Some(&anna_token)).await
    else {
        panic!("anna's snapshot")
    };
    let told = if anna_color == Color::White {
        Role::White
    } else {
        Role::Black
    };
    assert_eq!(
        you, told,
        "the seat of anna's token is the colour she was told"
    );
    assert!(snapshot.players.white.taken && snapshot.players.black.taken);
    assert_eq!(snapshot.clock.map(|c| c.white_ms), Some(300_000));
    bert.join(&room, &bert_token).await;
    let (white, black) = if anna_color == Color::White {
        (&mut anna, &mut bert)
    } else {
        (&mut bert, &mut anna)
    };
    white.play("C4:C5,D5").await.unwrap();
    let (_, turn) = black.next_turn().await;
    assert_eq!(turn.to_string(), "C4:C5,D5");
}

#[tokio::test]
async fn seeks_that_must_not_meet_wait_side_by_side() {
    let server = TestServer::start().await;
    let mut tab1 = server.client().await;
    seeks(&mut tab1, |id| blitz(id, Some("same-browser"))).await;
    let mut tab2 = server.client().await;
    seeks(&mut tab2, |id| blitz(id, Some("same-browser"))).await;
    let mut other_game = server.client().await;
    seeks(&mut other_game, |id| ClientMessage::Seek {
        id,
        variant: Variant::Standard,
        clock: TimeControl::days(3),
        rated: false,
        range: None,
        name: Some("Corra".to_owned()),
        guest: None,
    })
    .await;
    let list: SeekList = server.get("/api/seeks").await;
    assert_eq!(
        list.seeks.len(),
        3,
        "one browser's two tabs and another game"
    );
    assert!(
        list.seeks
            .iter()
            .any(|s| s.player.name.as_deref() == Some("Corra"))
    );

    // Two accounts, one blocking the other, never meet.
    let cleo = server.signed_in(&server.register("cleo", "a fine password").await);
    let dora = server.signed_in(&server.register("dora", "a fine password").await);
    let (status, answer) = cleo.http("PUT", "/api/me/blocks/dora", "").await;
    assert!(status < 300, "{status} {answer}");
    let mut cleo_ws = cleo.client().await;
    let basic = |id| ClientMessage::Seek {
        id,
        variant: Variant::Basic,
        clock: TimeControl::clock(600, 5),
        rated: false,
        range: None,
        name: None,
        guest: None,
    };
    seeks(&mut cleo_ws, basic).await;
    let mut dora_ws = dora.client().await;
    seeks(&mut dora_ws, basic).await;

    // A third tab of the same browser closes: its seek goes with it.
    drop(tab2);
    let mut fresh = server.client().await;
    let (_, _, _) = paired(fresh.request(|id| blitz(id, Some("another-browser"))).await);
    paired(tab1.recv().await);
    let list: SeekList = server.get("/api/seeks").await;
    assert_eq!(list.seeks.len(), 3, "{list:?}");
}

#[tokio::test]
async fn a_seek_is_refused_when_it_cannot_be_a_game() {
    let server = TestServer::start().await;
    let mut guest = server.client().await;
    let rated = guest
        .request(|id| ClientMessage::Seek {
            id,
            variant: Variant::Standard,
            clock: TimeControl::clock(300, 3),
            rated: true,
            range: Some(200),
            name: None,
            guest: None,
        })
        .await;
    assert!(
        matches!(
            rated,
            ServerMessage::Error {
                code: ErrorCode::SignInRequired,
                ..
            }
        ),
        "{rated:?}"
    );
    let bad_days = guest
        .request(|id| ClientMessage::Seek {
            id,
            variant: Variant::Standard,
            clock: TimeControl::days(4),
            rated: false,
            range: None,
            name: None,
            guest: None,
        })
        .await;
    assert!(
        matches!(
            bad_days,
            ServerMessage::Error {
                code: ErrorCode::BadRequest,
                ..
            }
        ),
        "{bad_days:?}"
    );
    // Cancelling answers an ack, and the seek is gone.
    seeks(&mut guest, |id| blitz(id, None)).await;
    let ack = guest.request(|id| ClientMessage::CancelSeek { id }).await;
    assert!(matches!(ack, ServerMessage::Ack { seq: 0, .. }), "{ack:?}");
    let list: SeekList = server.get("/api/seeks").await;
    assert!(list.seeks.is_empty(), "{list:?}");
    // Nothing was listed as a room.
    let (status, lobby) = server.http("GET", "/api/rooms", "").await;
    assert_eq!(status, 200);
    assert!(lobby.contains("\"rooms\":[]"), "{lobby}");
}

/// The node of `nodes` that runs the seek pool, as the nodes say.
async fn pool_node(nodes: &[Process]) -> usize {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let pool: SeekPoolNode = nodes[0].get("/api/seeks/node").await;
        for (i, node) in nodes.iter().enumerate() {
            let view: NodeView = node.get("/api/node").await;
            if pool.alive && pool.node == Some(view.node) {
                return i;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no node runs the pool: {pool:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn seeks_on_two_nodes_meet_and_seekers_are_paired_after_the_pool_s_node_dies() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let mut nodes = crate::cluster::cluster(&database, &nats);
    let pool = pool_node(&nodes).await;
    let (one, two) = ((pool + 1) % 3, (pool + 2) % 3);

    // A seek through one node meets a seek through another, and both sit down.
    let mut anna = nodes[one].client().await;
    seeks(&mut anna, |id| blitz(id, Some("anna"))).await;
    let list: SeekList = nodes[two].get("/api/seeks").await;
    assert_eq!(list.seeks.len(), 1, "every node lists the pool's seeks");
    let mut bert = nodes[two].client().await;
    let (room, bert_token, _) = paired(bert.request(|id| blitz(id, Some("bert"))).await);
    let (anna_room, anna_token, _) = paired(anna.recv().await);
    assert_eq!(room, anna_room);
    anna.join(&room, &anna_token).await;
    bert.join(&room, &bert_token).await;

    // Cleo waits on one node; the pool's node dies; Dora seeks on the third. Cleo's
    // connection seeks again where the pool runs next, unasked, and they meet.
    let mut cleo = nodes[one].client().await;
    let cleo_seek = seeks(&mut cleo, |id| blitz(id, Some("cleo"))).await;
    nodes.remove(pool).kill();
    let two = if two > pool { two - 1 } else { two };
    let mut dora = nodes[two].client().await;
    let asked = ClientMessage::Seek {
        id: 7,
        variant: Variant::Standard,
        clock: TimeControl::clock(300, 3),
        rated: false,
        range: None,
        name: None,
        guest: Some("dora".to_owned()),
    };
    dora.send(&asked).await;
    let patience = Duration::from_secs(30);
    let dora_room = match dora.reply_within(7, patience).await {
        ServerMessage::Paired { room, .. } => room,
        ServerMessage::Seeking { .. } => paired(dora.recv_within(patience).await).0,
        other => panic!("dora: {other:?}"),
    };
    let told = cleo.recv_within(patience).await;
    let ServerMessage::Paired { seek, room, .. } = told else {
        panic!("cleo is paired without asking again: {told:?}")
    };
    assert_eq!(seek, cleo_seek, "the same seek, made again");
    assert_eq!(room, dora_room);
    // The pool runs on a living node now, and the room made is there too.
    let moved = pool_node(&nodes).await;
    let (_, snapshot) = nodes[1 - moved].spectator(&room).await;
    assert!(snapshot.players.white.taken && snapshot.players.black.taken);
}
