//! A server started on a database of earlier games loads only the rooms whose clock or
//! computer needs a timer, lists the others from the database, deletes rooms nobody
//! took a seat in and ends games nobody came back to.

use std::time::Duration;

use punct_protocol::{ErrorCode, Lobby, RoomStatus, RoomSummary};
use punct_rules::{Color, Outcome, WinReason};
use punct_server::Config;
use punct_testing::{Database, TestServer};

fn on(database: &Database) -> Config {
    Config {
        database: Some(database.url()),
        ..Config::default()
    }
}

/// How many rooms `/metrics` says are held in memory, by state.
async fn in_memory(server: &TestServer) -> Vec<(String, u32)> {
    let (_, page) = server.http("GET", "/metrics", "").await;
    page.lines()
        .filter_map(|line| line.strip_prefix("punct_rooms{state=\""))
        .map(|rest| {
            let (state, count) = rest.split_once("\"} ").unwrap();
            (state.to_owned(), count.parse().unwrap())
        })
        .filter(|(_, count)| *count > 0)
        .collect()
}

#[tokio::test]
async fn a_restart_loads_only_the_rooms_it_must_time() {
    let database = Database::new();
    let server = TestServer::with(on(&database)).await;
    let mut open = Vec::new();
    for _ in 0..6 {
        open.push(server.create_room(r#"{"color":"white"}"#).await.room);
    }
    // A timed game whose clock runs, and a game where the computer is to move.
    let timed = server
        .create_room(r#"{"color":"white","clock":{"base":600}}"#)
        .await;
    server.take_seat(&timed.room).await;
    let mut alice = server.player(&timed.room, &timed.token).await;
    alice.play("C4:C5,D5").await.unwrap();
    let computer = server
        .create_room(r#"{"color":"black","computer":1}"#)
        .await;
    drop(alice);
    server.shutdown().await.unwrap();

    // Three rooms may be held; the six open rooms wait in the database.
    let config = Config {
        max_rooms: 3,
        ..on(&database)
    };
    let server = TestServer::with(config).await;
    assert_eq!(in_memory(&server).await, [("live".to_owned(), 2)]);
    let lobby: Lobby = server.get("/api/rooms").await;
    let listed: Vec<&str> = lobby.rooms.iter().map(|r| r.room.as_str()).collect();
    // The open rooms: not the timed game, whose players are both away, nor the game
    // against the computer, whose one player is away.
    assert_eq!(listed.len(), 6, "{listed:?}");
    assert!(!listed.contains(&timed.room.as_str()));
    assert!(!listed.contains(&computer.room.as_str()));
    for room in &open {
        let entry = lobby.rooms.iter().find(|r| &r.room == room).unwrap();
        assert_eq!(entry.status, RoomStatus::Open);
    }
    let computer_entry: RoomSummary = server.summary(&computer.room).await;
    assert_eq!(computer_entry.players.white.computer, Some(1));
    // The timed game's clock runs again: Black's, with the time not charged.
    let (_watcher, snapshot) = server.spectator(&timed.room).await;
    let clock = snapshot.clock.unwrap();
    assert_eq!(clock.running, Some(Color::Black));
    assert!(clock.black_ms > 590_000, "{clock:?}");
    // A new room takes the third place; a fourth is refused, and so is loading a stored
    // one beyond the limit.
    server.create_room("").await;
    let (status, body) = server.http("POST", "/api/rooms", "").await;
    assert_eq!(status, 503, "{body}");
    let mut late = server.client().await;
    let refused = late.join_refused(&open[0], "not the token").await;
    assert_eq!(refused, ErrorCode::TooManyRooms);
    // The seat of a stored room can still be read about.
    assert_eq!(server.summary(&open[0]).await.status, RoomStatus::Open);
}

#[tokio::test]
async fn rooms_nobody_came_back_to_are_expired_or_ended_at_start() {
    let database = Database::new();
    let server = TestServer::with(on(&database)).await;
    let open = server.create_room(r#"{"color":"white"}"#).await.room;
    let table = server.table("standard").await;
    let mut alice = server.player(&table.room, &table.white).await;
    let mut bob = server.player(&table.room, &table.black).await;
    alice.play("C4:C5,D5").await.unwrap();
    let seq = bob.play("J14:J15,K15").await.unwrap();
    while alice.next_turn().await.0 != seq {}
    // White is to move and leaves; so does Black.
    drop((alice, bob));
    server.shutdown().await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;

    let config = Config {
        open_room_expiry: Duration::from_millis(10),
        abandoned_game_expiry: Duration::from_millis(10),
        ..on(&database)
    };
    let server = TestServer::with(config).await;
    let (status, _) = server.http("GET", &format!("/api/rooms/{open}"), "").await;
    assert_eq!(status, 404, "the room nobody took a seat in is gone");
    let record = server.record(&table.room).await;
    assert_eq!(record.turns.len(), 2);
    assert_eq!(
        record.outcome,
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Abandonment
        }),
        "White, to move, lost the game nobody came back to"
    );
    let lobby: Lobby = server.get("/api/rooms").await;
    assert!(lobby.rooms.is_empty(), "{lobby:?}");
}

#[tokio::test]
async fn rooms_made_before_uuid_ids_keep_their_ids_and_links() {
    let database = Database::new();
    let server = TestServer::with(on(&database)).await;
    let table = server.table("standard").await;
    assert_eq!(table.room.len(), 36, "new rooms have UUIDv7 ids");
    server.shutdown().await.unwrap();
    // The first servers gave rooms 20 hex digits of id.
    let old = "4293bf8afa389beff060";
    database
        .query(&format!("UPDATE rooms SET id = '{old}'"))
        .await;

    let server = TestServer::with(on(&database)).await;
    assert_eq!(server.summary(old).await.status, RoomStatus::Live);
    let mut alice = server.player(old, &table.white).await;
    let mut bob = server.player(old, &table.black).await;
    alice.play("C4:C5,D5").await.unwrap();
    bob.play("J14:J15,K15").await.unwrap();
    assert_eq!(server.record(old).await.turns.len(), 2);
}
