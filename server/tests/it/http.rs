//! The HTTP API: rooms, the lobby, records, health.

use std::net::{Ipv4Addr, SocketAddr};

use punct_protocol::{Lobby, NodeView, Record, RoomStatus, RoomSummary, Visibility};
use punct_rules::{Color, Variant};
use punct_testing::{Database, Link, Process, TestServer};

#[tokio::test]
async fn health_is_reported() {
    let server = TestServer::start().await;
    assert_eq!(
        server.http("GET", "/healthz", "").await,
        (200, "ok\n".to_owned())
    );
    assert_eq!(
        server.http("GET", "/readyz", "").await,
        (200, "ready\n".to_owned())
    );
}

#[tokio::test]
async fn every_answer_names_the_node_that_gave_it() {
    let server = TestServer::start().await;
    let node: NodeView = server.get("/api/node").await;
    assert_eq!(node.node, 0, "a single server's tag");
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let named = |headers: &reqwest::header::HeaderMap| {
        headers
            .get("x-punct-node")
            .map(|tag| tag.to_str().unwrap().to_owned())
    };
    for (method, path, status) in [
        ("GET", "/healthz", 200),
        ("GET", "/api/node", 200),
        ("POST", "/api/rooms", 201),
        ("GET", "/api/rooms/nothing-here", 404),
        ("GET", "/ws", 400),
        ("GET", "/", 200),
    ] {
        let url = format!("http://{}{path}", server.addr);
        let response = http
            .request(method.parse().unwrap(), url)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status, "{method} {path}");
        assert_eq!(
            named(response.headers()).as_deref(),
            Some("0"),
            "{method} {path}"
        );
    }
    let (_socket, upgraded) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr))
        .await
        .unwrap();
    assert_eq!(
        upgraded
            .headers()
            .get("x-punct-node")
            .unwrap()
            .to_str()
            .unwrap(),
        "0",
        "the WebSocket upgrade too"
    );
    let (_, metrics) = server.http("GET", "/metrics", "").await;
    assert!(
        metrics.contains("punct_node_info{node=\"0\"} 1\n"),
        "{metrics}"
    );
}

#[tokio::test]
async fn the_lobby_lists_public_rooms_that_are_open_or_live() {
    let server = TestServer::start().await;
    let open = server.create_room(r#"{"variant":"basic"}"#).await;
    let hidden = server.create_room(r#"{"visibility":"private"}"#).await;
    let live = server.table("standard").await;
    let _white = server.player(&live.room, &live.white).await;

    let lobby: Lobby = server.get("/api/rooms").await;
    let listed: Vec<(&str, RoomStatus)> = lobby
        .rooms
        .iter()
        .map(|r| (r.room.as_str(), r.status))
        .collect();
    assert_eq!(
        listed,
        [
            (open.room.as_str(), RoomStatus::Open),
            (live.room.as_str(), RoomStatus::Live)
        ]
    );
    assert_eq!(lobby.rooms[0].variant, Variant::Basic);
    assert!(lobby.rooms[1].players.white.taken && lobby.rooms[1].players.black.taken);
    // A game whose players are both away is not listed as live; while one of its
    // players is there, it is.
    let deserted = server.table("standard").await;
    let mut away = server.player(&deserted.room, &deserted.white).await;
    let lobby: Lobby = server.get("/api/rooms").await;
    assert!(lobby.rooms.iter().any(|r| r.room == deserted.room));
    away.send_raw(punct_client::Message::Close(None)).await;
    leaves_the_lobby(&server, &deserted.room).await;
    // Nor is a game against the computer whose one person has left.
    let granted = server
        .create_room(r#"{"computer":2,"color":"white"}"#)
        .await;
    let mut alone = server.player(&granted.room, &granted.token).await;
    let lobby: Lobby = server.get("/api/rooms").await;
    assert!(lobby.rooms.iter().any(|r| r.room == granted.room));
    alone.send_raw(punct_client::Message::Close(None)).await;
    leaves_the_lobby(&server, &granted.room).await;

    // A private room is reached by its id only.
    let summary: RoomSummary = server.summary(&hidden.room).await;
    assert_eq!(summary.visibility, Visibility::Private);
    assert_eq!(summary.status, RoomStatus::Open);
    assert_eq!(summary.turns, 0);
    assert_eq!(summary.to_move, Color::White);
}

/// Waits until the lobby no longer lists `room`.
async fn leaves_the_lobby(server: &TestServer, room: &str) {
    let gone = async {
        loop {
            let lobby: Lobby = server.get("/api/rooms").await;
            if lobby.rooms.iter().all(|r| r.room != room) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(punct_testing::PATIENCE, gone)
        .await
        .unwrap_or_else(|_| panic!("{room} is still listed"));
}

#[tokio::test]
async fn the_record_comes_as_json_and_as_text() {
    let server = TestServer::start().await;
    let table = server.table("basic").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.play("C4:C5,D5").await.unwrap();
    bob.play("j14:k15,j15").await.unwrap();

    let record: Record = server.record(&table.room).await;
    assert_eq!(record.variant, Variant::Basic);
    let turns: Vec<String> = record.turns.iter().map(ToString::to_string).collect();
    assert_eq!(turns, ["C4:C5,D5", "J14:J15,K15"]);
    assert_eq!(record.outcome, None);

    let (status, text) = server
        .http("GET", &format!("/api/rooms/{}/record.txt", table.room), "")
        .await;
    assert_eq!(status, 200);
    assert_eq!(text, "# PÜNCT, basic game\nC4:C5,D5\nJ14:J15,K15\n");
    assert_eq!(server.summary(&table.room).await.turns, 2);
}

#[tokio::test]
async fn a_record_is_saved_under_its_players_and_the_day_of_the_room() {
    let server = TestServer::start().await;
    let before = today();
    let named = server
        .create_room(r#"{"color":"white","name":"Jürgen \"J\" K."}"#)
        .await;
    let client = reqwest::Client::new();
    let disposition = |room: String| {
        let request = client.get(format!(
            "http://{}/api/rooms/{room}/record.txt",
            server.addr
        ));
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.headers()["content-disposition"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    let header = disposition(named.room.clone()).await;
    let after = today();
    // Only what every file system takes is kept of a name; a free seat is its colour.
    let expected = |day: &str| format!(r#"attachment; filename="punct-JrgenJK-black-{day}.txt""#);
    assert!(
        header == expected(&before) || header == expected(&after),
        "{header}"
    );
    let anonymous = server.create_room("").await;
    let header = disposition(anonymous.room).await;
    assert!(
        header.starts_with(r#"attachment; filename="punct-white-black-20"#),
        "{header}"
    );
}

/// Today's date in UTC, `2026-11-27`.
fn today() -> String {
    humantime::format_rfc3339(std::time::SystemTime::now()).to_string()[..10].to_owned()
}

#[tokio::test]
async fn bad_requests_and_unknown_rooms_get_typed_errors() {
    let server = TestServer::start().await;
    let (status, body) = server
        .http("POST", "/api/rooms", r#"{"variant":"chess"}"#)
        .await;
    assert_eq!(status, 400);
    assert!(body.contains(r#""code":"bad-request""#), "{body}");
    let (status, body) = server
        .http("POST", "/api/rooms", r#"{"colour":"white"}"#)
        .await;
    assert_eq!(status, 400, "unknown fields are refused: {body}");
    let (status, body) = server
        .http(
            "POST",
            "/api/rooms",
            r#"{"clock":{"base":0,"increment":5}}"#,
        )
        .await;
    assert_eq!(status, 400, "no time at all is no time control: {body}");
    assert!(body.contains(r#""code":"bad-request""#), "{body}");
    for path in [
        "/api/rooms/nowhere",
        "/api/rooms/nowhere/record",
        "/api/rooms/nowhere/record.txt",
    ] {
        let (status, body) = server.http("GET", path, "").await;
        assert_eq!(status, 404, "{path}");
        assert!(body.contains(r#""code":"no-such-room""#), "{path}: {body}");
    }
    let (status, _) = server.http("POST", "/api/rooms/nowhere/seat", "").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_client_given_several_servers_uses_one_that_is_up() {
    let server = TestServer::start().await;
    // Nothing listens on the first address.
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", gone.local_addr().unwrap());
    drop(gone);
    let client = punct_client::Client::builder(down.parse().unwrap())
        .also([format!("http://{}", server.addr).parse().unwrap()])
        .build()
        .unwrap();
    let granted = client
        .create_room(&punct_protocol::CreateRoom::default())
        .await
        .expect("the second server creates the room");
    let mut connection = client.connect().await.expect("and takes the WebSocket");
    connection.hello(false).await.unwrap();
    assert_eq!(client.room(&granted.room).await.unwrap().room, granted.room);
    // The client still names the servers by the first given.
    assert_eq!(client.server().to_string(), down);
}

// Several threads: starting the server blocks one, while the link carries its database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn a_server_cut_off_from_its_database_says_at_once_that_it_is_not_ready() {
    // The server reaches its database through a link the test cuts.
    let database = Database::postgres();
    let url = database.url();
    let (server_url, name) = url.rsplit_once('/').unwrap();
    let port: u16 = server_url.rsplit_once(':').unwrap().1.parse().unwrap();
    let link = Link::to(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await;
    let through = Database::Postgres(format!("postgres://postgres@{}/{name}", link.addr()));
    let server = Process::with(&through, &[]);
    assert_eq!(server.http("GET", "/readyz", "").await.0, 200);
    // Cut, the database answers nothing and closes nothing: the health check (2 s a
    // step) is told 503, not left waiting for TCP to give up.
    link.cut();
    assert_eq!(
        server.http("GET", "/readyz", "").await,
        (503, "database unavailable\n".to_owned())
    );
    link.heal();
    let mut ready = server.http("GET", "/readyz", "").await;
    for _ in 0..20 {
        if ready.0 == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        ready = server.http("GET", "/readyz", "").await;
    }
    assert_eq!(
        ready,
        (200, "ready\n".to_owned()),
        "ready again once healed"
    );
}
