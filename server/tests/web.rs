//! The browser client's pages and assets, and the positions it asks for. (The pages
//! themselves are exercised in Chromium by `server/tests/browser/web_test.py`.)

mod common;

use common::TestServer;
use punct_protocol::StackView;
use serde::Deserialize;

/// The parts of `GET /api/rooms/{id}/position/{after}` these tests read.
#[derive(Deserialize)]
struct Position {
    after: usize,
    to_move: String,
    board: Vec<StackView>,
}

#[tokio::test]
async fn the_pages_and_their_assets_are_served_from_the_binary() {
    let server = TestServer::start().await;
    let (status, lobby) = server.http("GET", "/", "").await;
    assert_eq!(status, 200);
    assert!(lobby.contains(r#"src="/assets/lobby.js""#), "{lobby}");
    let (status, room) = server.http("GET", "/room/0123abcd", "").await;
    assert_eq!(status, 200);
    assert!(room.contains(r#"src="/assets/room.js""#), "{room}");
    for asset in ["style.css", "lobby.js", "room.js", "board.js", "api.js"] {
        let (status, body) = server.http("GET", &format!("/assets/{asset}"), "").await;
        assert_eq!(status, 200, "{asset}");
        assert!(!body.is_empty(), "{asset}");
    }
    assert_eq!(server.http("GET", "/assets/secret.rs", "").await.0, 404);
}

#[tokio::test]
async fn a_position_is_the_record_replayed_by_the_rules() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let mut white = server.player(&table.room, &table.white).await;
    let mut black = server.player(&table.room, &table.black).await;
    white.play("C4:C5,D5").await.unwrap();
    black.play("J14:J15,K15").await.unwrap();
    white.play("C4-C6:C7,D7").await.unwrap();

    let path = |after: usize| format!("/api/rooms/{}/position/{after}", table.room);
    let start: Position = server.get(&path(0)).await;
    assert_eq!((start.after, start.to_move.as_str()), (0, "white"));
    assert!(start.board.is_empty());

    let after_two: Position = server.get(&path(2)).await;
    let cells: Vec<String> = after_two.board.iter().map(|s| s.cell.to_string()).collect();
    assert_eq!(cells, ["C4", "C5", "D5", "J14", "J15", "K15"]);
    assert_eq!(after_two.to_move, "white");

    let now: Position = server.get(&path(3)).await;
    let cells: Vec<String> = now.board.iter().map(|s| s.cell.to_string()).collect();
    assert_eq!(cells, ["C6", "C7", "D7", "J14", "J15", "K15"]);

    let (status, body) = server.http("GET", &path(4), "").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("bad-request"), "{body}");
    let (status, body) = server
        .http("GET", "/api/rooms/nosuchroom/position/0", "")
        .await;
    assert_eq!((status, body.contains("no-such-room")), (404, true));
}
