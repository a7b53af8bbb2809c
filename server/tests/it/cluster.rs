//! Three real `punct-server` nodes on one PostgreSQL database and one NATS server (or a
//! NATS cluster of three): players and spectators of a room on different nodes, a node
//! or a NATS server killed or cut off in the middle of a game, and every acknowledged
//! turn stored once.
//!
//! They need PostgreSQL and NATS on the machine, so a plain `cargo test` skips them;
//! `.ci/services-tests` runs them with `--include-ignored`.

use std::time::Duration;

use nix::sys::signal::Signal;
use punct_client::{Entry, NetEvent};
use punct_protocol::{ClientMessage, ErrorCode, Lobby, NodeView, RoomNode, ServerMessage};
use punct_rules::{Game, Turn, Variant};
use punct_testing::{Client, Database, Nats, NatsCluster, Process, Table};

use crate::games::{WHITE_CONNECTED, white_connects};

/// The lease the nodes run with: short, so that a failover takes seconds.
pub(crate) const LEASE: &str = "2s";

/// Three nodes of one cluster.
pub(crate) fn cluster(database: &Database, nats: &Nats) -> Vec<Process> {
    let url = nats.url();
    (0..3)
        .map(|_| Process::with(database, &["--cluster", &url, "--cluster-lease", LEASE]))
        .collect()
}

/// The lease of nodes on a NATS cluster of three, as the compose file has it: a NATS
/// server that dies while it leads the bucket of leases leaves the nodes unable to renew
/// until JetStream has elected another leader, which took 4 to 9 s in containers.
const LEASE_ON_NATS_CLUSTER: Duration = Duration::from_secs(15);

/// Three nodes of one cluster on `bus`, with leases of `lease`, each lease and claim
/// kept by the bus's three servers.
fn cluster_on(database: &Database, bus: &NatsCluster, lease: Duration) -> Vec<Process> {
    (0..3).map(|_| node_on(database, bus, lease)).collect()
}

/// One node of the cluster on `bus`, as [`cluster_on`] starts them.
fn node_on(database: &Database, bus: &NatsCluster, lease: Duration) -> Process {
    let (urls, lease) = (bus.urls(), format!("{}ms", lease.as_millis()));
    let flags = [
        "--cluster",
        &urls,
        "--cluster-lease",
        &lease,
        "--cluster-replicas",
        "3",
    ];
    Process::with(database, &flags)
}

/// A room made on the first node, which runs it and where nobody plays; White and a
/// spectator on the second node, Black on the third.
async fn seated(nodes: &[Process]) -> (Table, Client, Client, Client) {
    let table = nodes[0].table("standard").await;
    let white = nodes[1].player(&table.room, &table.white).await;
    let black = nodes[2].player(&table.room, &table.black).await;
    let (near, _) = nodes[1].spectator(&table.room).await;
    (table, white, black, near)
}

/// The turns of a long game, chosen by the rules engine; none ends it early.
fn long_game(turns: usize) -> Vec<Turn> {
    let mut game = Game::new(Variant::Standard);
    let mut played = Vec::new();
    for n in 0..turns {
        let legal = game.legal_turns();
        let turn = (0..legal.len())
            .map(|i| legal[(n * 7919 + i) % legal.len()])
            .find(|&turn| {
                let mut next = game.clone();
                next.play(turn).unwrap().is_none()
            })
            .expect("a turn that does not end the game");
        game.play(turn).unwrap();
        played.push(turn);
    }
    played
}

/// Reads `client`'s messages until it knows of `turns` turns, by the turns it is told of
/// or a snapshot (a member whose room moved to another node may be sent one). A member
/// relayed from a node that died may wait long on a loaded machine: a request lost with
/// the node waits for the relay to give up (5 s) before it is asked again (CLUSTER.md).
async fn await_turns(client: &mut Client, turns: usize) {
    let mut known = 0;
    while known < turns {
        match client.recv_within(Duration::from_secs(30)).await {
            ServerMessage::TurnPlayed { number, .. } => known = known.max(number),
            ServerMessage::Snapshot { room, .. } => known = known.max(room.turns.len()),
            _ => {}
        }
    }
}

/// Plays `turn`, the `n`th from 0, for whichever of `white` and `black` is to move, and
/// waits until the other has heard of it; answers it as the database writes it.
async fn play_turn(white: &mut Client, black: &mut Client, n: usize, turn: Turn) -> String {
    let (mover, other) = if n.is_multiple_of(2) {
        (white, black)
    } else {
        (black, white)
    };
    let reply = mover
        .request(|id| ClientMessage::Play {
            id,
            turn,
            number: None,
        })
        .await;
    assert!(
        matches!(reply, ServerMessage::Ack { .. }),
        "turn {turn} refused: {reply:?}"
    );
    await_turns(other, n + 1).await;
    turn.to_string()
}

/// The turns stored for `room`, in order.
async fn stored_turns(database: &Database, room: &str) -> Vec<String> {
    let rows = database
        .query(&format!(
            "SELECT turn FROM turns WHERE room = '{room}' ORDER BY number"
        ))
        .await;
    rows.into_iter()
        .map(|row| row[0].clone().unwrap())
        .collect()
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn players_and_spectators_on_three_nodes_play_one_game() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let nodes = cluster(&database, &nats);
    let table = nodes[0].table("standard").await;
    let mut white = nodes[1].player(&table.room, &table.white).await;
    let mut black = nodes[2].player(&table.room, &table.black).await;
    let (mut watcher, _) = nodes[2].spectator(&table.room).await;
    let turns = long_game(12);
    for (n, &turn) in turns.iter().enumerate() {
        play_turn(&mut white, &mut black, n, turn).await;
    }
    await_turns(&mut watcher, turns.len()).await;

    // Every node answers for the room: its record, its summary, the lobby.
    for node in &nodes {
        assert_eq!(node.record(&table.room).await.turns, turns);
        let summary = node.summary(&table.room).await;
        assert!(summary.players.white.connected && summary.players.black.connected);
        let lobby: Lobby = node.get("/api/rooms").await;
        let listed = lobby
            .rooms
            .iter()
            .find(|room| room.room == table.room)
            .unwrap();
        assert_eq!(
            listed.spectators, 1,
            "the lobby knows who is in rooms on other nodes"
        );
    }
    let stored = stored_turns(&database, &table.room).await;
    let expected: Vec<String> = turns.iter().map(ToString::to_string).collect();
    assert_eq!(stored, expected);
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_killed_node_s_room_carries_on_elsewhere_with_every_acknowledged_turn() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let mut nodes = cluster(&database, &nats);
    let (table, mut white, mut black, mut near) = seated(&nodes).await;
    let (mut on_owner, _) = nodes[0].spectator(&table.room).await;
    // A client given two nodes, on the doomed one first, comes back on the other.
    let both: [punct_client::Server; 2] =
        [nodes[0].addr, nodes[1].addr].map(|addr| format!("http://{addr}").parse().unwrap());
    let client = punct_client::Client::builder(both[0].clone())
        .also([both[1].clone()])
        .build()
        .unwrap();
    let mut link = punct_client::connect(
        client,
        Entry::Watch {
            room: table.room.clone(),
        },
    );
    // A whole game, which White wins by connection in eleven turns.
    let turns = white_connects(Variant::Standard);
    let mut acknowledged = Vec::new();
    for (n, &turn) in turns.iter().enumerate() {
        if n == 5 {
            nodes.remove(0).kill();
        }
        // The first turn after the kill waits for the lease to run out and another
        // node to take the room over; the players notice nothing else.
        acknowledged.push(play_turn(&mut white, &mut black, n, turn).await);
    }
    await_turns(&mut near, turns.len()).await;
    assert!(on_owner.closed().await.is_none(), "its node is gone");
    let (mut dropped, mut known) = (false, 0);
    while known < turns.len() {
        let event = tokio::time::timeout(punct_testing::PATIENCE, link.events.recv()).await;
        match event
            .expect("the link comes back in time")
            .expect("the link lives")
        {
            NetEvent::Disconnected(_) => dropped = true,
            NetEvent::Message(ServerMessage::TurnPlayed { number, .. }) => {
                known = known.max(number)
            }
            NetEvent::Message(ServerMessage::Snapshot { room, .. }) => {
                known = known.max(room.turns.len())
            }
            NetEvent::Failed(why) => panic!("the link gave up: {why}"),
            _ => {}
        }
    }
    assert!(dropped, "the link was on the killed node");

    // A spectator of the dead node comes back on another, resuming where it was.
    let (_back, snapshot) = nodes[0].spectator(&table.room).await;
    assert_eq!(snapshot.turns, turns);
    assert_eq!(stored_turns(&database, &table.room).await, acknowledged);
    let record = nodes[1].record(&table.room).await;
    assert_eq!(record.turns, turns);
    assert_eq!(record.outcome, Some(WHITE_CONNECTED), "the game finished");
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_turn_on_its_way_when_the_owner_dies_is_answered_once_the_room_moves() {
    for round in 0..3 {
        let (database, nats) = (Database::postgres(), Nats::start());
        let mut nodes = cluster(&database, &nats);
        // The node of either player may take the room over.
        let (table, mut white, mut black, mut near) = seated(&nodes).await;
        let turns = white_connects(Variant::Standard);
        let mut acknowledged = Vec::new();
        for (n, &turn) in turns.iter().enumerate().take(4) {
            acknowledged.push(play_turn(&mut white, &mut black, n, turn).await);
        }
        // White's turn leaves for the owner, which dies as it travels (or just after it
        // arrives): White is answered once another node runs the room, and the answer
        // says what the database holds.
        let id = 1_000 + round;
        white
            .send(&ClientMessage::Play {
                id,
                turn: turns[4],
                number: None,
            })
            .await;
        nodes.remove(0).kill();
        let reply = white.reply_to(id).await;
        assert!(
            matches!(reply, ServerMessage::Ack { .. }),
            "round {round}: the turn on its way was refused: {reply:?}"
        );
        acknowledged.push(turns[4].to_string());
        await_turns(&mut black, 5).await;
        for (n, &turn) in turns.iter().enumerate().skip(5) {
            acknowledged.push(play_turn(&mut white, &mut black, n, turn).await);
        }
        await_turns(&mut near, turns.len()).await;
        assert_eq!(stored_turns(&database, &table.room).await, acknowledged);
        let record = nodes[0].record(&table.room).await;
        assert_eq!(record.outcome, Some(WHITE_CONNECTED), "the game finished");
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_node_cut_off_past_its_lease_writes_nothing_and_stops() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let nodes = cluster(&database, &nats);
    let table = nodes[0].table("standard").await;
    let mut white = nodes[1].player(&table.room, &table.white).await;
    let mut black = nodes[2].player(&table.room, &table.black).await;
    let turns = long_game(12);
    let mut acknowledged = Vec::new();
    for (n, &turn) in turns.iter().enumerate() {
        if n == 4 {
            // The owner freezes mid-game, as a partition or a long pause would leave it.
            nodes[0].signal(Signal::SIGSTOP);
        }
        if n == 8 {
            // It wakes up long after the others took its room over.
            nodes[0].signal(Signal::SIGCONT);
        }
        acknowledged.push(play_turn(&mut white, &mut black, n, turn).await);
    }
    // Back, it finds its lease gone: it stops, and says why.
    let mut nodes = nodes.into_iter();
    let stopped = nodes.next().unwrap().wait();
    assert!(
        !stopped.success(),
        "a node that lost its lease exits with an error"
    );
    assert_eq!(stored_turns(&database, &table.room).await, acknowledged);
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn accounts_chat_and_ratings_work_across_nodes() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let nodes = cluster(&database, &nats);
    let password = "a fine password";
    let anna = nodes[0].register("anna", password).await;
    let bert = nodes[1].register("bert", password).await;
    // The room runs on node 0; Bert takes his seat through node 1.
    let granted = nodes[0]
        .signed_in(&anna)
        .create_room(r#"{"color":"white","rated":true}"#)
        .await;
    nodes[1].signed_in(&bert).take_seat(&granted.room).await;
    // Both come back by account, without tokens, on nodes that do not run the room.
    let mut white = nodes[1].signed_in(&anna).client().await;
    let mut black = nodes[2].signed_in(&bert).client().await;
    for client in [&mut white, &mut black] {
        let joined = client.join_as(&granted.room, None).await;
        assert!(
            matches!(joined, ServerMessage::Snapshot { .. }),
            "{joined:?}"
        );
    }
    let (mut watcher, _) = nodes[2].spectator(&granted.room).await;

    // The players' chat reaches the other player, never the spectator, across nodes.
    assert_eq!(white.say("good luck").await, None);
    let line = black.heard().await;
    assert_eq!(
        (line.text.as_str(), line.name.as_deref()),
        ("good luck", Some("anna"))
    );
    assert!(!watcher.hears_next("good luck").await);
    assert!(!black.hears_next("mark 9").await, "nor the spectator's");

    // A rated game between the two accounts, rated wherever it ends.
    let turns = long_game(2);
    for (n, &turn) in turns.iter().enumerate() {
        play_turn(&mut white, &mut black, n, turn).await;
    }
    let resigned = black.request(|id| ClientMessage::Resign { id }).await;
    assert!(
        matches!(resigned, ServerMessage::Ack { .. }),
        "{resigned:?}"
    );
    loop {
        match white.next_news().await {
            ServerMessage::Ratings { changes, .. } => {
                assert_eq!(changes.white.username, "anna");
                assert!(changes.white.after.rating > changes.white.before.rating);
                break;
            }
            ServerMessage::Chat { .. }
            | ServerMessage::TurnPlayed { .. }
            | ServerMessage::YourTurn { .. }
            | ServerMessage::GameOver { .. } => {}
            other => panic!("{other:?}"),
        }
    }
    let rated = database.query("SELECT room FROM rated_games").await;
    assert_eq!(rated, [vec![Some(granted.room.clone())]], "rated once");
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_paused_node_answers_nothing_from_before_its_pause_and_says_goodbye_at_once() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let mut nodes = cluster(&database, &nats);
    // The room runs on node 0, where Black is; White plays through node 1.
    let table = nodes[0].table("standard").await;
    let mut white = nodes[1].player(&table.room, &table.white).await;
    let mut black = nodes[0].player(&table.room, &table.black).await;
    let turns = long_game(4);
    for (n, &turn) in turns.iter().enumerate().take(2) {
        play_turn(&mut white, &mut black, n, turn).await;
    }
    // Node 0 freezes, as a long pause would leave it; White's turn waits for the room to
    // be taken over elsewhere, and is acknowledged there.
    nodes[0].signal(Signal::SIGSTOP);
    let played = white
        .request(|id| ClientMessage::Play {
            id,
            turn: turns[2],
            number: Some(3),
        })
        .await;
    assert!(matches!(played, ServerMessage::Ack { .. }), "{played:?}");
    // Black, who knows nothing of it, answers on the frozen node: the frame waits there.
    black
        .send(&ClientMessage::Play {
            id: 99,
            turn: turns[3],
            number: Some(4),
        })
        .await;
    nodes[0].signal(Signal::SIGCONT);
    let woke = std::time::Instant::now();
    // Awake, the node says nothing from the state it had before (that White is to move):
    // it refuses as unable to store, or says goodbye, and closes.
    let close = black.closed().await;
    let told = black.kept();
    assert!(
        told.iter().all(|message| match message {
            ServerMessage::Error {
                id: Some(99), code, ..
            } => *code == ErrorCode::StorageFailed,
            ServerMessage::Bye { code, .. } => *code == ErrorCode::ShuttingDown,
            ServerMessage::Error { .. } | ServerMessage::Ack { .. } => false,
            _ => true,
        }),
        "{told:?}"
    );
    assert!(
        told.iter().any(|message| matches!(
            message,
            ServerMessage::Bye {
                code: ErrorCode::ShuttingDown,
                ..
            }
        )),
        "a goodbye: {told:?} then {close:?}"
    );
    // It goes at once, not after retrying to reach the room for three leases.
    let stopped = nodes.remove(0).wait();
    assert!(
        !stopped.success(),
        "a node that lost its lease exits with an error"
    );
    let gone = woke.elapsed();
    assert!(gone < std::time::Duration::from_secs(4), "took {gone:?}");
    // Black comes back on another node and plays the same turn, which nothing stored.
    let mut black = nodes[0].player(&table.room, &table.black).await;
    let replayed = black
        .request(|id| ClientMessage::Play {
            id,
            turn: turns[3],
            number: Some(4),
        })
        .await;
    assert!(
        matches!(replayed, ServerMessage::Ack { .. }),
        "{replayed:?}"
    );
    let expected: Vec<String> = turns.iter().map(ToString::to_string).collect();
    assert_eq!(stored_turns(&database, &table.room).await, expected);
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_numbered_turn_sent_again_after_its_node_died_is_acknowledged_once() {
    for round in 0..3 {
        let (database, nats) = (Database::postgres(), Nats::start());
        let mut nodes = cluster(&database, &nats);
        // White plays on the node that runs the room, Black through another.
        let table = nodes[0].table("standard").await;
        let mut white = nodes[0].player(&table.room, &table.white).await;
        let mut black = nodes[1].player(&table.room, &table.black).await;
        let turns = long_game(6);
        for (n, &turn) in turns.iter().enumerate().take(4) {
            play_turn(&mut white, &mut black, n, turn).await;
        }
        // White's fifth turn leaves, and its node dies at once: stored or not, nobody
        // knows. White comes back through another node and sends it again.
        let fifth = |id| ClientMessage::Play {
            id,
            turn: turns[4],
            number: Some(5),
        };
        white.send(&fifth(1)).await;
        nodes.remove(0).kill();
        let mut white = nodes[0].player(&table.room, &table.white).await;
        let reply = white.request(fifth).await;
        assert!(
            matches!(reply, ServerMessage::Ack { .. }),
            "round {round}: the turn sent again was refused: {reply:?}"
        );
        await_turns(&mut black, 5).await;
        play_turn(&mut white, &mut black, 5, turns[5]).await;
        let expected: Vec<String> = turns.iter().map(ToString::to_string).collect();
        assert_eq!(
            stored_turns(&database, &table.room).await,
            expected,
            "round {round}: every turn stored once"
        );
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn every_node_says_where_a_room_runs() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let nodes = cluster(&database, &nats);
    // Each node knows its own tag and, once they have all joined, the others'.
    let mut tags = Vec::new();
    for node in &nodes {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let view = loop {
            let view: NodeView = node.get("/api/node").await;
            if view.live.len() == nodes.len() {
                break view;
            }
            assert!(std::time::Instant::now() < deadline, "{view:?}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        };
        assert!(view.live.contains(&view.node));
        // Every answer names its node, and so does the node's `/metrics`.
        let url = format!("http://{}/healthz", node.addr);
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let answer = http.get(url).send().await.unwrap();
        let named = answer
            .headers()
            .get("x-punct-node")
            .unwrap()
            .to_str()
            .unwrap();
        assert_eq!(named, view.node.to_string());
        let (_, metrics) = node.http("GET", "/metrics", "").await;
        let info = format!("punct_node_info{{node=\"{}\"}} 1\n", view.node);
        assert!(metrics.contains(&info), "{metrics}");
        assert!(metrics.contains("\npunct_lease_held 1\n"), "{metrics}");
        tags.push(view.node);
    }
    let mut distinct = tags.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "three different tags: {tags:?}");
    // A room made on node 0 runs there, as every node says.
    let table = nodes[0].table("standard").await;
    let _white = nodes[1].player(&table.room, &table.white).await;
    for (i, node) in nodes.iter().enumerate() {
        let whereabouts: RoomNode = node.get(&format!("/api/rooms/{}/node", table.room)).await;
        assert_eq!(whereabouts.node, Some(tags[0]), "asked of node {i}");
        assert!(whereabouts.alive);
        assert_eq!(whereabouts.this_node, tags[i]);
        // Node 1 relays it for White; node 2 has nobody in it.
        assert_eq!(whereabouts.here, i < 2, "asked of node {i}");
    }
    let (status, body) = nodes[2]
        .http("GET", "/api/rooms/nothing-here/node", "")
        .await;
    assert_eq!(
        (status, punct_testing::api_error(&body)),
        (404, ErrorCode::NoSuchRoom)
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_nats_server_killed_mid_game_stops_no_game_and_no_node() {
    let (database, mut bus) = (Database::postgres(), NatsCluster::start(3));
    let mut nodes = cluster_on(&database, &bus, LEASE_ON_NATS_CLUSTER);
    let (table, mut white, mut black, mut near) = seated(&nodes).await;
    let owner: RoomNode = nodes[0]
        .get(&format!("/api/rooms/{}/node", table.room))
        .await;
    let turns = long_game(12);
    let mut acknowledged = Vec::new();
    for (n, &turn) in turns.iter().enumerate() {
        if n == 4 {
            // The NATS server that leads the bucket of leases dies: JetStream elects
            // another, and the nodes connected to it move to the others. White's next
            // turn may wait for that: a request lost with the server is asked again
            // once the relay has waited 5 s for its answer.
            let leader = bus
                .leader("KV_punct-nodes")
                .expect("the bucket has a leader");
            bus.kill(leader);
            let play = ClientMessage::Play {
                id: 40,
                turn,
                number: Some(5),
            };
            white.send(&play).await;
            let reply = white.reply_within(40, Duration::from_secs(40)).await;
            assert!(matches!(reply, ServerMessage::Ack { .. }), "{reply:?}");
            await_turns(&mut black, 5).await;
            acknowledged.push(turn.to_string());
            continue;
        }
        acknowledged.push(play_turn(&mut white, &mut black, n, turn).await);
    }
    await_turns(&mut near, turns.len()).await;
    assert_eq!(stored_turns(&database, &table.room).await, acknowledged);
    // Past one more lease, every node still holds its lease, and the room never moved.
    tokio::time::sleep(LEASE_ON_NATS_CLUSTER).await;
    for (i, node) in nodes.iter_mut().enumerate() {
        assert!(node.running(), "node {i} stopped: {}", bus.logs());
        let (_, metrics) = node.http("GET", "/metrics", "").await;
        assert!(metrics.contains("\npunct_lease_held 1\n"), "node {i}");
        let view: NodeView = node.get("/api/node").await;
        assert_eq!(view.live.len(), 3, "node {i} sees {view:?}");
        let now: RoomNode = node.get(&format!("/api/rooms/{}/node", table.room)).await;
        assert_eq!(now.node, owner.node, "asked of node {i}");
    }
    // A game started now plays too.
    let table = nodes[2].table("standard").await;
    let mut white = nodes[0].player(&table.room, &table.white).await;
    let mut black = nodes[1].player(&table.room, &table.black).await;
    for (n, &turn) in long_game(2).iter().enumerate() {
        play_turn(&mut white, &mut black, n, turn).await;
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn two_surviving_nodes_never_both_take_over_a_dead_node_s_room() {
    const ROOMS: usize = 16;
    let (database, bus) = (Database::postgres(), NatsCluster::start(3));
    let mut nodes = cluster_on(&database, &bus, Duration::from_secs(2));
    // Many rooms on node 0, each with White on node 1 and Black on node 2: when node 0
    // dies, both survivors enter every room again at once, for their members.
    let mut rooms = Vec::new();
    for _ in 0..ROOMS {
        let table = nodes[0].table("standard").await;
        let white = nodes[1].player(&table.room, &table.white).await;
        let black = nodes[2].player(&table.room, &table.black).await;
        rooms.push((table, white, black));
    }
    let turns = long_game(2);
    for (_, white, black) in &mut rooms {
        play_turn(white, black, 0, turns[0]).await;
    }
    let loads = || async {
        let rows = database.query("SELECT id, incarnation FROM rooms").await;
        rows.into_iter()
            .map(|row| (row[0].clone().unwrap(), row[1].clone().unwrap()))
            .collect::<std::collections::HashMap<String, String>>()
    };
    let before = loads().await;
    nodes.remove(0).kill();
    // Black's turn, in every room at once, is acknowledged once the room runs on a
    // survivor: never refused because the room moved again.
    for (_, _, black) in &mut rooms {
        black
            .send(&ClientMessage::Play {
                id: 7,
                turn: turns[1],
                number: Some(2),
            })
            .await;
    }
    for (table, white, black) in &mut rooms {
        let reply = black.reply_to(7).await;
        assert!(
            matches!(reply, ServerMessage::Ack { .. }),
            "room {}: {reply:?}",
            table.room
        );
        await_turns(white, 2).await;
    }
    // Each room was loaded once more: by one survivor, not by both in turn.
    let after = loads().await;
    for (table, _, _) in &rooms {
        let (was, is) = (&before[&table.room], &after[&table.room]);
        let (was, is): (u64, u64) = (was.parse().unwrap(), is.parse().unwrap());
        assert_eq!(is, was + 1, "room {} loaded {} times", table.room, is - was);
        let expected: Vec<String> = turns.iter().map(ToString::to_string).collect();
        assert_eq!(stored_turns(&database, &table.room).await, expected);
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_node_the_others_counted_dead_never_comes_back() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let mut nodes = cluster(&database, &nats);
    let (table, mut white, mut black, _near) = seated(&nodes).await;
    let turns = long_game(4);
    for (n, &turn) in turns.iter().enumerate().take(2) {
        play_turn(&mut white, &mut black, n, turn).await;
    }
    // The room's node pauses for a lease and a half: the others count it dead (its
    // key unrenewed for a lease), though NATS may not have let its key expire yet.
    nodes[0].signal(Signal::SIGSTOP);
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    nodes[0].signal(Signal::SIGCONT);
    // Woken, it finds itself dead to the others: it stops, rather than renewing its
    // lease and running a room another node may run too.
    let stopped = nodes.remove(0).wait();
    assert!(
        !stopped.success(),
        "a node counted dead exits with an error"
    );
    for (n, &turn) in turns.iter().enumerate().skip(2) {
        play_turn(&mut white, &mut black, n, turn).await;
    }
    let expected: Vec<String> = turns.iter().map(ToString::to_string).collect();
    assert_eq!(stored_turns(&database, &table.room).await, expected);
}

/// How many live rooms `node` runs itself (not those it relays), by its `/metrics`.
async fn live_rooms_run_on(node: &Process) -> usize {
    let (status, metrics) = node.http("GET", "/metrics", "").await;
    assert_eq!(status, 200, "{metrics}");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("punct_rooms{state=\"live\"} "))
        .map_or(0, |n| n.trim().parse().unwrap())
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_room_s_node_stopped_again_and_again_leaves_it_on_one_node_with_every_turn() {
    const ROUNDS: usize = 20;
    const LEASE: Duration = Duration::from_secs(2);
    // Claims kept by three NATS servers: the two survivors claim each room at the same
    // moment, which one NATS server alone always settled.
    let (database, bus) = (Database::postgres(), NatsCluster::start(3));
    let mut nodes = cluster_on(&database, &bus, LEASE);
    let turns = long_game(4);
    let expected: Vec<String> = turns.iter().map(ToString::to_string).collect();
    for round in 0..ROUNDS {
        // Each round's room runs on the node to be stopped, with White on it too; Black
        // is on the next node and a spectator on the third, so both survivors relay it.
        let owner = round % 3;
        let (next, third) = ((owner + 1) % 3, (owner + 2) % 3);
        let table = nodes[owner].table("standard").await;
        let mut white = nodes[owner].player(&table.room, &table.white).await;
        let mut black = nodes[next].player(&table.room, &table.black).await;
        let (mut watcher, _) = nodes[third].spectator(&table.room).await;
        for (n, &turn) in turns.iter().enumerate().take(2) {
            play_turn(&mut white, &mut black, n, turn).await;
        }
        let stopping = nodes.remove(owner);
        stopping.terminate();
        // White is told goodbye, and comes back through Black's node.
        white.closed().await;
        let next = if next > owner { next - 1 } else { next };
        let mut white = nodes[next].player(&table.room, &table.white).await;
        assert!(stopping.wait().success(), "round {round}: a clean stop");
        play_turn(&mut white, &mut black, 2, turns[2]).await;
        // Whichever node a newcomer asks, it finds the room as it is: one actor, not a
        // second one loaded beside it at the stop and left behind.
        for node in &nodes {
            let (_, snapshot) = node.spectator(&table.room).await;
            assert_eq!(
                snapshot.turns.len(),
                3,
                "round {round}: the room as the node on port {} shows it",
                node.addr.port()
            );
        }
        play_turn(&mut white, &mut black, 3, turns[3]).await;
        await_turns(&mut watcher, 4).await;
        let mut running = Vec::new();
        for node in &nodes {
            running.push(live_rooms_run_on(node).await);
        }
        assert_eq!(
            running.iter().sum::<usize>(),
            1,
            "round {round}: live rooms each node runs: {running:?}"
        );
        for node in &nodes {
            assert_eq!(node.record(&table.room).await.turns, turns, "round {round}");
        }
        let stored = stored_turns(&database, &table.room).await;
        assert_eq!(stored, expected, "round {round}");
        // Over, the room no longer counts as live where it runs.
        let resigned = white.request(|id| ClientMessage::Resign { id }).await;
        assert!(
            matches!(resigned, ServerMessage::Ack { .. }),
            "{resigned:?}"
        );
        nodes.insert(owner, node_on(&database, &bus, LEASE));
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_member_whose_live_room_cannot_be_entered_again_is_told_to_come_back() {
    let (database, nats) = (Database::postgres(), Nats::start());
    let mut nodes = cluster(&database, &nats);
    let table = nodes[0].table("standard").await;
    let (mut watcher, _) = nodes[1].spectator(&table.room).await;
    // The database takes no connection any more, so no node can load the room again
    // once its node has died (asked from the server's own database, `postgres`).
    let url = database.url();
    let (server, name) = url.rsplit_once('/').unwrap();
    let admin = Database::Postgres(format!("{server}/postgres"));
    admin
        .query(&format!(
            "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS false"
        ))
        .await;
    admin
        .query(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .await;
    nodes.remove(0).kill();
    // The watcher's node gives up entering it after three leases: the room lives on
    // in the database, so the watcher is told to try again (1013), not that the room
    // is gone (1000, for a room its creator cancelled). That takes a lease and three
    // more, longer than a read waits: the first seconds pass here.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let frame = watcher.closed().await.expect("a close frame");
    assert_eq!(u16::from(frame.code), 1013, "{frame:?}");
}
