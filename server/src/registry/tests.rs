//! Rooms through the registry: opened once, kept while someone is in them, closed when
//! idle, fenced when loaded elsewhere, refused past the limit and after the stop.

use std::time::Duration;

use punct_protocol::{CreateRoom, Visibility};

use super::*;
use crate::room::Start;
use crate::room::testing::Drive;

async fn registry(config: Config) -> Registry {
    Registry::new(
        &config,
        &Services::start(&config, Store::empty().await, Nodes::Alone),
    )
}

fn idle_in(seconds: u64) -> Config {
    Config {
        room_idle_timeout: Duration::from_secs(seconds),
        ..Config::default()
    }
}

#[tokio::test(start_paused = true)]
async fn an_abandoned_room_closes_after_the_idle_timeout() {
    let rooms = registry(idle_in(60)).await;
    let room = rooms
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap()
        .room;
    tokio::time::sleep(Duration::from_secs(59)).await;
    assert!(rooms.running(&room).is_some());
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(rooms.running(&room).is_none());
    assert!(rooms.running_summaries().is_empty());
    // It is still in the store: read without running it, then run again when
    // entered.
    assert_eq!(rooms.summary(&room).await.unwrap().room, room);
    assert!(rooms.running(&room).is_none(), "a read does not load it");
    assert!(rooms.enter(&room).await.is_ok());
    assert!(rooms.running(&room).is_some());
}

#[tokio::test(start_paused = true)]
async fn a_room_with_someone_in_it_stays_open() {
    let rooms = registry(idle_in(60)).await;
    let room = rooms
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap()
        .room;
    let handle = rooms.enter(&room).await.unwrap();
    let joined = handle.watch(7, None).await.unwrap();
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert!(
        rooms.running(&room).is_some(),
        "a spectator keeps the room open"
    );
    // Once the spectator has gone, the room lives one more idle timeout.
    handle.leave(7);
    drop(joined);
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(rooms.running(&room).is_some());
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert!(rooms.running(&room).is_none());
}

#[tokio::test(start_paused = true)]
async fn a_request_arriving_as_the_room_closes_is_served() {
    // The idle timeout and a join fall due at the same instant, again and again: the
    // join is always served, by the room or by the room loaded again.
    let rooms = registry(idle_in(60)).await;
    let granted = rooms
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap();
    for conn in 0..32 {
        let handle = rooms.enter(&granted.room).await.unwrap();
        tokio::time::sleep(Duration::from_secs(60)).await;
        let join = Request::Join {
            conn,
            key: Key::Token(granted.token.clone()),
            since: None,
            lists: false,
            blocks: Vec::new(),
        };
        let (_, reply) = rooms
            .ask(&granted.room, &join)
            .await
            .expect("served, never no-such-room");
        assert!(reply.answer.entered().unwrap().is_ok());
        rooms.enter(&granted.room).await.unwrap().leave(conn);
        drop(handle);
    }
}

#[tokio::test(start_paused = true)]
async fn a_correspondence_game_sleeps_out_of_memory_and_ends_when_the_days_run_out() {
    const DAY: Duration = Duration::from_secs(24 * 3600);
    let config = Config {
        abandoned_game_expiry: 7 * DAY,
        ..idle_in(60)
    };
    let store = Store::empty().await;
    let rooms = Registry::new(
        &config,
        &Services::start(&config, store.clone(), Nodes::Alone),
    );
    let request = CreateRoom {
        color: punct_protocol::SeatChoice::White,
        clock: Some(punct_protocol::TimeControl::days(14)),
        ..CreateRoom::default()
    };
    let white = rooms.create(request, Player::default()).await.unwrap();
    let black = rooms
        .take_seat(&white.room, Player::default())
        .await
        .unwrap();
    let room = white.room.clone();
    let handle = rooms.enter(&room).await.unwrap();
    for (conn, token) in [(1, &white.token), (2, &black.token)] {
        handle
            .join(conn, token.clone(), None, false)
            .await
            .unwrap()
            .unwrap();
    }
    handle
        .play(1, "C4:C5,D5".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    handle.leave(1);
    handle.leave(2);
    drop(handle);
    // Black's fourteen days run, yet nobody is in the room: it closes, and holds no
    // memory while Black thinks.
    tokio::time::sleep(Duration::from_secs(61)).await;
    assert!(rooms.running(&room).is_none(), "the room sleeps");
    // The server restarts after three days: Black has eleven left, not fourteen.
    tokio::time::sleep(3 * DAY).await;
    let rooms = Registry::new(
        &config,
        &Services::start(&config, store.clone(), Nodes::Alone),
    );
    assert_eq!(
        rooms.restore().await.unwrap(),
        0,
        "no timer needs it in memory"
    );
    let handle = rooms.enter(&room).await.unwrap();
    let Start::Snapshot(snapshot) = handle.watch(9, None).await.unwrap().start else {
        unreachable!("no `since` was given");
    };
    let clock = snapshot.clock.unwrap();
    let left = Duration::from_millis(clock.black_ms);
    assert!(
        left <= 11 * DAY && left > 11 * DAY - Duration::from_secs(120),
        "{left:?}"
    );
    assert_eq!((clock.running, clock.days), (Some(Color::Black), Some(14)));
    handle.leave(9);
    drop(handle);
    // (The spectator count is told first, then the idle timeout starts.)
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert!(rooms.running(&room).is_none());
    // A week and more of silence is no abandonment: the clock decides.
    tokio::time::sleep(5 * DAY).await;
    assert_eq!(rooms.sweep().await.unwrap(), 0);
    assert_eq!(rooms.summary(&room).await.unwrap().outcome, None);
    // Past the fourteenth day, the sweep ends the game without loading the room.
    tokio::time::sleep(6 * DAY).await;
    assert_eq!(rooms.sweep().await.unwrap(), 1);
    assert!(rooms.running(&room).is_none());
    assert_eq!(
        rooms.summary(&room).await.unwrap().outcome,
        Some(punct_rules::Outcome::Win {
            winner: Color::White,
            reason: punct_rules::WinReason::Time,
        })
    );
}

#[tokio::test]
async fn the_room_limit_holds_for_new_rooms_and_loaded_ones() {
    let store = Store::empty().await;
    let first = registry_on(&store, 1);
    let stored = first
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap()
        .room;
    // Another server on the same database, with room for one.
    let rooms = registry_on(&store, 1);
    let new = rooms
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap()
        .room;
    assert_eq!(
        rooms.create(CreateRoom::default(), Player::default()).await,
        Err(ErrorCode::TooManyRooms)
    );
    assert_eq!(
        rooms.enter(&stored).await.err(),
        Some(ErrorCode::TooManyRooms)
    );
    // Reading it needs no room.
    assert_eq!(rooms.summary(&stored).await.unwrap().room, stored);
    assert!(rooms.enter(&new).await.is_ok(), "a running room is entered");
}

fn registry_on(store: &Store, max_rooms: usize) -> Registry {
    let config = Config {
        max_rooms,
        ..Config::default()
    };
    Registry::new(
        &config,
        &Services::start(&config, store.clone(), Nodes::Alone),
    )
}

#[tokio::test]
async fn a_room_is_made_in_one_transaction_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("punct.db");
    let store = Store::open(path.to_str()).await.unwrap();
    let rooms = registry_on(&store, 10);
    // No stored room may change: one made in several steps (the room, then its
    // computer's seat) would be left half made.
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TRIGGER frozen BEFORE UPDATE ON rooms
         BEGIN SELECT RAISE(ABORT, 'rooms are read only'); END;",
    )
    .unwrap();
    let request = CreateRoom {
        color: SeatChoice::Black,
        visibility: Visibility::Private,
        computer: Some(2),
        ..CreateRoom::default()
    };
    let room = rooms
        .create(request.clone(), Player::default())
        .await
        .unwrap()
        .room;
    let row = store.summary(&room).await.unwrap().unwrap();
    assert_eq!(row.taken, [true, true]);
    assert_eq!(row.computer, Some((Color::White, 2)));
    assert_eq!(row.visibility, Visibility::Private);
    // When that one transaction fails, nothing of the room is left.
    db.execute_batch(
        "CREATE TRIGGER full BEFORE INSERT ON rooms
         BEGIN SELECT RAISE(ABORT, 'the disk is full'); END;",
    )
    .unwrap();
    assert_eq!(
        rooms.create(request, Player::default()).await,
        Err(ErrorCode::StorageFailed)
    );
    let count: u32 = db
        .query_row("SELECT COUNT(*) FROM rooms", [], |row| row.get(0))
        .unwrap();
    assert_eq!(count, 1);
}

#[tokio::test]
async fn a_room_loaded_again_elsewhere_stops_writing_and_closes_here() {
    let store = Store::empty().await;
    // Two servers on one database, as two nodes of a cluster are.
    let (here, there) = (registry_on(&store, 10), registry_on(&store, 10));
    let request = CreateRoom {
        color: SeatChoice::White,
        ..CreateRoom::default()
    };
    let white = here.create(request, Player::default()).await.unwrap();
    let room = here.enter(&white.room).await.unwrap();
    room.join(1, white.token.clone(), None, false)
        .await
        .unwrap()
        .unwrap();
    let mut events = room.watch(2, None).await.unwrap().events;
    // The room is loaded over there (after a failover, say).
    let moved = there.enter(&white.room).await.unwrap();
    let turn = "C4:C5,D5".parse().unwrap();
    let refused = room.play(1, turn).await.unwrap().unwrap_err();
    assert_eq!(refused.code, ErrorCode::StorageFailed);
    // Nothing was stored, and the room here has closed: its members follow it.
    assert!(
        store
            .record(&white.room)
            .await
            .unwrap()
            .unwrap()
            .turns
            .is_empty()
    );
    loop {
        match events.recv().await {
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            Ok(event) => assert!(event.seq.is_none(), "no turn was published"),
            Err(e) => panic!("{e}"),
        }
    }
    assert!(here.running(&white.room).is_none());
    moved
        .join(3, white.token, None, false)
        .await
        .unwrap()
        .unwrap();
    moved.play(3, turn).await.unwrap().unwrap();
    assert_eq!(
        store.record(&white.room).await.unwrap().unwrap().turns,
        [turn]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_entered_by_many_at_once_is_loaded_once() {
    let store = Store::empty().await;
    let first = registry_on(&store, 10);
    let white = first
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap();
    // Another server (or this one after a restart) finds it only in the database.
    let rooms = registry_on(&store, 10);
    let entering: Vec<_> = (0..8)
        .map(|_| {
            let (rooms, id) = (rooms.clone(), white.room.clone());
            tokio::spawn(async move { rooms.enter(&id).await.unwrap() })
        })
        .collect();
    for handle in entering {
        handle.await.unwrap();
    }
    let row = store.load(&white.room).await.unwrap().unwrap();
    assert_eq!(row.incarnation, 2, "loaded once here, once by this check");
}

/// A stopping node that loaded a room again would run it beside the node that takes
/// it over: once the stop fires, rooms are forgotten and none is loaded or made.
#[tokio::test]
async fn once_the_server_stops_no_room_is_loaded_or_made() {
    let config = Config::default();
    let store = Store::empty().await;
    let services = Services::start(&config, store.clone(), Nodes::Alone);
    let rooms = Registry::new(&config, &services);
    let open = rooms
        .create(CreateRoom::default(), Player::default())
        .await
        .unwrap();
    let member = rooms.enter(&open.room).await.unwrap();
    services.stop();
    let mut shutdown = services.shutdown.clone();
    shutdown.wait().await;
    tokio::task::yield_now().await;
    assert!(rooms.running(&open.room).is_none(), "forgotten at the stop");
    assert_eq!(
        rooms.enter(&open.room).await.err(),
        Some(ErrorCode::ShuttingDown)
    );
    let made = rooms.create(CreateRoom::default(), Player::default()).await;
    assert_eq!(made.err(), Some(ErrorCode::ShuttingDown));
    // The room's own member still reaches it until it leaves, and nothing was
    // stored for the refused room.
    assert!(member.record().await.is_ok());
    assert_eq!(
        store.lobby(10).await.unwrap().len(),
        1,
        "the first room only"
    );
}
