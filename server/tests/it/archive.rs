//! The archive of finished games: listed page by page over HTTP, every record fetched from
//! the database, also after a restart.

use punct_protocol::{Archive, ArchivedGame, ClientMessage, Record, ServerMessage};
use punct_rules::{Color, Game, Outcome, Variant, WinReason};
use punct_server::Config;
use punct_testing::{Database, Endpoint, Table, TestServer};

/// Plays `turns` in `table`'s room, then has Black resign.
async fn finish(server: &Endpoint, table: &Table, turns: &[&str]) {
    let mut white = server.player(&table.room, &table.white).await;
    let mut black = server.player(&table.room, &table.black).await;
    for (n, turn) in turns.iter().enumerate() {
        let mover = if n % 2 == 0 { &mut white } else { &mut black };
        mover.play(turn).await.unwrap();
    }
    let reply = black.request(|id| ClientMessage::Resign { id }).await;
    assert!(matches!(reply, ServerMessage::Ack { .. }), "{reply:?}");
}

/// Black resigned.
const RESIGNED: Outcome = Outcome::Win {
    winner: Color::White,
    reason: WinReason::Resignation,
};

#[tokio::test]
async fn finished_public_games_are_listed_newest_first_page_by_page() {
    let server = TestServer::start().await;
    let openings: [&[&str]; 3] = [&[], &["C4:C5,D5"], &["C4:C5,D5", "J14:J15,K15"]];
    let mut finished = Vec::new();
    for turns in openings {
        let table = server.table("basic").await;
        finish(&server, &table, turns).await;
        finished.push((table.room, turns.len()));
    }
    // Neither a private game nor one still going is listed.
    let private = server
        .create_room(r#"{"variant":"basic","color":"white","visibility":"private"}"#)
        .await;
    let private = Table {
        black: server.take_seat(&private.room).await.token,
        room: private.room,
        white: private.token,
    };
    finish(&server, &private, &[]).await;
    server.table("basic").await;

    let first: Archive = server.get("/api/games?limit=2").await;
    assert_eq!(first.games.len(), 2);
    let next = first.next.clone().expect("a second page");
    let second: Archive = server
        .get(&format!("/api/games?limit=2&after={next}"))
        .await;
    assert_eq!(second.next, None, "two pages hold three games");
    let listed: Vec<&ArchivedGame> = first.games.iter().chain(&second.games).collect();
    assert!(
        listed.is_sorted_by(|a, b| (a.finished_at, &a.room) > (b.finished_at, &b.room)),
        "newest first, each game once: {listed:?}"
    );
    let mut rooms: Vec<(String, usize)> =
        listed.iter().map(|g| (g.room.clone(), g.turns)).collect();
    rooms.sort();
    finished.sort();
    assert_eq!(rooms, finished);
    for game in &listed {
        assert_eq!(game.outcome, RESIGNED);
        let record = server.record(&game.room).await;
        assert_eq!(
            (record.turns.len(), record.outcome),
            (game.turns, Some(RESIGNED))
        );
    }
    // The default page holds them all.
    let all: Archive = server.get("/api/games").await;
    assert_eq!(all.games.iter().collect::<Vec<_>>(), listed);
    assert_eq!(all.next, None);
}

#[tokio::test]
async fn an_archive_request_it_cannot_read_is_refused() {
    let server = TestServer::start().await;
    for query in [
        "limit=0",
        "limit=101",
        "limit=ten",
        "after=yesterday",
        "after=12ab.4293bf8a",
        "page=2",
    ] {
        let (status, body) = server.http("GET", &format!("/api/games?{query}"), "").await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(r#""code":"bad-request""#), "{query}: {body}");
    }
    let empty: Archive = server.get("/api/games?limit=100").await;
    assert_eq!(
        empty,
        Archive {
            games: vec![],
            next: None
        }
    );
}

#[tokio::test]
async fn an_archived_game_is_served_from_the_database_after_a_restart() {
    let database = Database::new();
    let config = Config {
        database: Some(database.url()),
        ..Config::default()
    };
    let server = TestServer::with(config.clone()).await;
    let table = server.table("standard").await;
    finish(&server, &table, &["C4:C5,D5", "J14:J15,K15", "F5:F6,G6"]).await;
    let before: Archive = server.get("/api/games").await;
    server.shutdown().await.unwrap();

    let server = TestServer::with(config).await;
    let after: Archive = server.get("/api/games").await;
    assert_eq!(after, before);
    assert_eq!(after.games.len(), 1);
    let record: Record = server.record(&table.room).await;
    assert_eq!(record.outcome, Some(RESIGNED));
    // The text record replays to the same position, as `punct rules show --record` does.
    let (status, text) = server
        .http("GET", &format!("/api/rooms/{}/record.txt", table.room), "")
        .await;
    assert_eq!(status, 200);
    let game = Game::from_record(Variant::Standard, &text).unwrap();
    assert_eq!(game.turns(), record.turns);
}

/// Each stored room's id, incarnation and turn count, read straight from the database.
async fn stored(database: &Database) -> Vec<Vec<Option<String>>> {
    database
        .query(
            "SELECT id, incarnation, (SELECT COUNT(*) FROM turns WHERE room = id)
             FROM rooms ORDER BY id",
        )
        .await
}

/// How many rooms `/metrics` says are held in memory.
async fn rooms_in_memory(server: &Endpoint) -> u32 {
    let (_, page) = server.http("GET", "/metrics", "").await;
    page.lines()
        .filter_map(|line| line.strip_prefix("punct_rooms{state="))
        .map(|rest| rest.split(' ').nth(1).unwrap().parse::<u32>().unwrap())
        .sum()
}

#[tokio::test]
async fn a_room_polled_by_someone_outside_it_still_leaves_memory() {
    let database = Database::new();
    let idle = std::time::Duration::from_millis(300);
    let server = TestServer::with(Config {
        database: Some(database.url()),
        room_idle_timeout: idle,
        ..Config::default()
    })
    .await;
    let table = server.table("basic").await;
    assert_eq!(rooms_in_memory(&server).await, 1, "a new room runs at once");
    // A monitor asks about it more often than the idle timeout, for three of them.
    let deadline = tokio::time::Instant::now() + idle * 3;
    while tokio::time::Instant::now() < deadline {
        let (status, _) = server
            .http("GET", &format!("/api/rooms/{}/node", table.room), "")
            .await;
        assert_eq!(status, 200);
        let _ = server.summary(&table.room).await;
        tokio::time::sleep(idle / 6).await;
    }
    assert_eq!(rooms_in_memory(&server).await, 0, "nobody is in it");
}

#[tokio::test]
async fn reading_archived_games_loads_nothing_and_writes_nothing() {
    let database = Database::new();
    let config = Config {
        database: Some(database.url()),
        max_rooms: 2,
        room_idle_timeout: std::time::Duration::from_millis(100),
        ..Config::default()
    };
    let server = TestServer::with(config).await;
    let mut rooms = Vec::new();
    for _ in 0..4 {
        let table = server.table("basic").await;
        finish(&server, &table, &["C4:C5,D5"]).await;
        rooms.push(table.room);
        // The players have gone: the finished room leaves memory.
        while rooms_in_memory(&server).await > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    let before = stored(&database).await;
    // Someone walks the whole archive, again and again.
    for _ in 0..3 {
        for room in &rooms {
            let summary: punct_protocol::RoomSummary = server.summary(room).await;
            assert_eq!(summary.outcome, Some(RESIGNED));
            assert_eq!(server.record(room).await.turns.len(), 1);
            let (status, text) = server
                .http("GET", &format!("/api/rooms/{room}/record.txt"), "")
                .await;
            assert_eq!((status, text.lines().count()), (200, 2));
            let (status, _) = server
                .http("GET", &format!("/api/rooms/{room}/position/1"), "")
                .await;
            assert_eq!(status, 200);
        }
    }
    assert_eq!(rooms_in_memory(&server).await, 0, "no room was loaded");
    assert_eq!(stored(&database).await, before, "nothing was written");
    // Both of the server's rooms are still free to play in.
    server.table("basic").await;
    server.table("basic").await;
}
