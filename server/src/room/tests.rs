//! A room's actor driven through its handle, as connections drive it.

use std::sync::Arc;
use std::time::Duration;

use punct_protocol::{Action, ErrorCode, Seats, ServerMessage, TimeControl, Visibility};
use punct_rules::{Color, Outcome, Turn, Variant, WinReason};
use tokio::sync::broadcast;

use super::testing::{Drive, start};
use super::*;
use crate::clock::millis;
use crate::cluster::{ConnId, Nodes};
use crate::config::Config;
use crate::secret;
use crate::secret::hash_token;
use crate::services::Services;
use crate::store::{Player, Store};

/// A room with White seated on connection 1 and Black on connection 2.
struct Table {
    /// The room.
    room: RoomHandle,
    /// Every room, and what each is given.
    rooms: Rooms,
    /// White's and Black's seat tokens.
    tokens: [String; 2],
}

/// A new room in `config`, on `store`, with the time control `control`; both players
/// seated.
async fn table_on(config: &Config, store: Store, control: Option<TimeControl>) -> Table {
    let rooms = Rooms::new(Context::new(
        config,
        &Services::start(config, store, Nodes::Alone),
    ));
    let white = secret::token();
    let fresh = Fresh::new(
        Variant::Standard,
        Visibility::Public,
        control,
        [Some(hash_token(&white)), None],
        Default::default(),
        None,
        false,
    );
    rooms
        .context()
        .services
        .store
        .create_room(fresh.stored())
        .await
        .unwrap();
    let room = start(fresh.setup(), &rooms);
    let black = room.take_seat(Player::default()).await.unwrap().unwrap();
    for (conn, token) in [(1, &white), (2, &black.token)] {
        room.join(conn, token.clone(), None, true)
            .await
            .unwrap()
            .unwrap();
    }
    Table {
        room,
        rooms,
        tokens: [white, black.token],
    }
}

async fn table(control: Option<TimeControl>) -> Table {
    table_on(&Config::default(), Store::empty().await, control).await
}

fn turn(text: &str) -> Turn {
    text.parse().unwrap()
}

/// A snapshot, as a new spectator `conn` gets it.
async fn snapshot(room: &RoomHandle, conn: ConnId) -> Box<punct_protocol::RoomSnapshot> {
    match room.watch(conn, None).await.unwrap().start {
        Start::Snapshot(snapshot) => snapshot,
        Start::Resumed { .. } => unreachable!("no `since` was given"),
    }
}

/// The seats as a snapshot shows them now.
async fn seats(room: &RoomHandle) -> Seats {
    let seats = snapshot(room, 99).await.players;
    room.leave(99);
    seats
}

async fn outcome(room: &RoomHandle) -> Option<Outcome> {
    room.record().await.unwrap().outcome
}

/// Every message published on `events` so far.
fn drain(events: &mut broadcast::Receiver<Arc<Event>>) -> Vec<ServerMessage> {
    std::iter::from_fn(|| events.try_recv().ok())
        .map(|event| serde_json::from_str(&event.json).unwrap())
        .collect()
}

/// The players each event still brings a list of legal turns to.
fn lists(events: &[Arc<Event>]) -> Vec<Color> {
    events
        .iter()
        .flat_map(|e| {
            Color::ALL
                .into_iter()
                .filter(|&c| e.your_turn_for(Some(c)).is_some())
        })
        .collect()
}

#[tokio::test]
async fn only_the_latest_list_of_legal_turns_is_kept() {
    let Table { room, .. } = table(None).await;
    let joined = room.watch(3, None).await.unwrap();
    let Start::Snapshot(snapshot) = joined.start else {
        panic!("no `since` was given");
    };
    // A member that reads nothing while three turns are played.
    let mut lagging = joined.events;
    for (conn, text) in [(1, "C4:C5,D5"), (2, "F5:F6,G6"), (1, "C6:C7,D7")] {
        room.play(conn, turn(text)).await.unwrap().unwrap();
    }
    let Start::Resumed { missed, .. } = room.watch(4, Some(snapshot.seq)).await.unwrap().start
    else {
        panic!("the events are all kept");
    };
    assert_eq!(missed.len(), 3, "the three turns, and nothing else");
    assert_eq!(
        lists(&missed),
        [Color::Black],
        "only the list after the last turn is still true"
    );
    // The lagging member's copies are the same events: the stale lists are gone from
    // the broadcast channel too, not held there until it is overwritten.
    let queued: Vec<Arc<Event>> = std::iter::from_fn(|| lagging.try_recv().ok())
        .filter(|e| e.seq.is_some())
        .collect();
    assert_eq!(queued.len(), 3);
    assert_eq!(lists(&queued), [Color::Black]);
}

#[tokio::test(start_paused = true)]
async fn presence_does_not_push_turns_out_of_the_replay_buffer() {
    let config = Config {
        room_event_buffer: 4,
        ..Config::default()
    };
    let Table { room, .. } = table_on(&config, Store::empty().await, None).await;
    let mut watching = room.watch(3, None).await.unwrap().events;
    let since = snapshot(&room, 4).await.seq;
    room.play(1, turn("C4:C5,D5")).await.unwrap().unwrap();
    // A busy room: forty spectators come and go, a player drops out and comes back.
    for conn in 100..140 {
        room.watch(conn, None).await.unwrap();
        room.leave(conn);
    }
    room.leave(2);
    room.join(22, "not a token".to_owned(), None, true)
        .await
        .unwrap()
        .unwrap_err();
    room.play(1, turn("F5:F6,G6")).await.unwrap().unwrap_err();
    let Start::Resumed {
        missed,
        players,
        spectators,
        ..
    } = room.watch(5, Some(since)).await.unwrap().start
    else {
        panic!("the turn is still kept: presence took no place in the buffer");
    };
    assert_eq!(missed.len(), 1);
    assert!(missed[0].json.contains("turn_played"));
    assert!(!players.black.connected && players.white.connected);
    assert_eq!(spectators, 3, "connections 3, 4 and 5 watch");
    // The watcher was told of the turn and of Black leaving, and of the spectators'
    // number once, not forty times.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let told = drain(&mut watching);
    let counts: Vec<usize> = told
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Spectators { count } => Some(*count),
            _ => None,
        })
        .collect();
    assert!(counts.len() <= 2, "{counts:?}");
    assert_eq!(counts.last(), Some(&3), "the latest count is told");
    assert!(told.contains(&ServerMessage::PlayerLeft {
        color: Color::Black,
        claim_in_ms: Some(120_000)
    }));
    assert!(
        told.iter()
            .filter(|m| m.seq().is_some())
            .all(|m| matches!(m, ServerMessage::TurnPlayed { .. })),
        "presence takes no sequence number: {told:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_player_whose_time_runs_out_loses() {
    let control = TimeControl::clock(60, 5);
    let Table { room, .. } = table(Some(control)).await;
    let mut events = room.watch(3, None).await.unwrap().events;
    // White's first turn is free; then Black's minute runs.
    tokio::time::sleep(Duration::from_secs(100)).await;
    room.play(1, turn("C4:C5,D5")).await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_secs(30)).await;
    room.play(2, turn("F5:F6,G6")).await.unwrap().unwrap();
    // White has the full minute (no increment for the free turn): 59 s pass safely.
    tokio::time::sleep(Duration::from_secs(59)).await;
    assert_eq!(outcome(&room).await, None);
    let clock = snapshot(&room, 4).await.clock.unwrap();
    assert_eq!((clock.white_ms, clock.black_ms), (1_000, 35_000));
    assert_eq!(clock.running, Some(Color::White));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let lost = Outcome::Win {
        winner: Color::Black,
        reason: WinReason::Time,
    };
    assert_eq!(outcome(&room).await, Some(lost));
    // Everyone was told; no turn comes after.
    let told = loop {
        let event = events.recv().await.unwrap();
        if event.json.contains("game_over") {
            break event;
        }
    };
    assert!(told.json.contains(r#""reason":"time""#), "{}", told.json);
    let refused = room.play(1, turn("C6:C7,D7")).await.unwrap().unwrap_err();
    assert_eq!(refused.rule.as_deref(), Some("game-over"));
}

/// The number of storage failures `/metrics` shows.
fn storage_failures(context: &Context) -> u64 {
    let page = context.services.metrics.render(crate::metrics::Gauges {
        connections: 0,
        max_connections: 0,
        lease_held: true,
        rooms: Vec::new(),
        computers: context.services.computers.load(),
    });
    page.lines()
        .find_map(|line| line.strip_prefix("punct_storage_failures_total "))
        .map_or(0, |n| n.parse().unwrap())
}

#[tokio::test]
async fn a_fallen_flag_that_cannot_be_stored_is_tried_again_later_not_in_a_loop() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("punct.db");
    let store = Store::open(path.to_str()).await.unwrap();
    let control = TimeControl::clock(1, 0);
    let Table { room, rooms, .. } = table_on(&Config::default(), store, Some(control)).await;
    let context = rooms.context();
    room.play(1, turn("C4:C5,D5")).await.unwrap().unwrap();
    // Black's second starts; the disk fails before it is over: no result can be stored.
    let disk = rusqlite::Connection::open(&path).unwrap();
    disk.execute_batch(
        "CREATE TRIGGER broken BEFORE UPDATE OF outcome ON rooms
         BEGIN SELECT RAISE(ABORT, 'the disk is on fire'); END;",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    // The flag fell at 1 s and was tried again a second later: a couple of tries, not
    // thousands.
    let failures = storage_failures(context);
    assert!((1..=3).contains(&failures), "{failures} tries");
    assert_eq!(outcome(&room).await, None, "nothing was stored");
    // Black may not play on: the game is lost, only not stored yet.
    let refused = room.play(2, turn("F5:F6,G6")).await.unwrap().unwrap_err();
    assert_eq!(refused.code, ErrorCode::StorageFailed);
    assert_eq!(room.record().await.unwrap().turns.len(), 1);
    // The disk comes back: the next try ends the game.
    disk.execute_batch("DROP TRIGGER broken").unwrap();
    let lost = Some(Outcome::Win {
        winner: Color::White,
        reason: WinReason::Time,
    });
    for _ in 0..100 {
        if outcome(&room).await == lost {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the flag's fall was never stored");
}

#[tokio::test(start_paused = true)]
async fn the_win_can_be_claimed_only_after_the_grace_period() {
    let Table { room, rooms, .. } = table(None).await;
    let grace = rooms.context().timings.grace_period;
    let claim = |conn| room.act(conn, Action::ClaimWin, false);
    assert_eq!(
        claim(2).await.unwrap().unwrap_err().code,
        ErrorCode::NotClaimable,
        "White is connected"
    );
    room.leave(1);
    tokio::time::sleep(grace - Duration::from_secs(1)).await;
    let early = claim(2).await.unwrap().unwrap_err();
    assert_eq!(early.code, ErrorCode::NotClaimable);
    assert!(early.message.contains("1 s"), "{}", early.message);
    // The room says how long is left.
    assert_eq!(
        room.summary().await.unwrap().players.white.claim_in_ms,
        Some(1_000)
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    claim(2).await.unwrap().unwrap();
    assert_eq!(
        outcome(&room).await,
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Abandonment
        })
    );
}

#[tokio::test(start_paused = true)]
async fn coming_back_within_the_grace_period_keeps_the_game() {
    let Table {
        room,
        rooms,
        tokens: [white, _],
    } = table(None).await;
    let grace = rooms.context().timings.grace_period;
    room.leave(1);
    tokio::time::sleep(grace / 2).await;
    let left = seats(&room).await.white.claim_in_ms;
    assert_eq!(left, Some(millis(grace / 2)));
    room.join(11, white, None, true).await.unwrap().unwrap();
    assert_eq!(seats(&room).await.white.claim_in_ms, None);
    tokio::time::sleep(grace * 2).await;
    let refused = room
        .act(2, Action::ClaimWin, false)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::NotClaimable);
    assert_eq!(outcome(&room).await, None);
}

#[tokio::test(start_paused = true)]
async fn a_seat_given_out_counts_as_away_until_its_player_joins() {
    let rooms = Rooms::new(Context::new(
        &Config::default(),
        &Services::start(&Config::default(), Store::empty().await, Nodes::Alone),
    ));
    let grace = rooms.context().timings.grace_period;
    for creator in Color::ALL {
        let token = secret::token();
        let mut seats = [None; 2];
        seats[creator as usize] = Some(hash_token(&token));
        let fresh = Fresh::new(
            Variant::Standard,
            Visibility::Public,
            None,
            seats,
            Default::default(),
            None,
            false,
        );
        rooms
            .context()
            .services
            .store
            .create_room(fresh.stored())
            .await
            .unwrap();
        let room = start(fresh.setup(), &rooms);
        room.join(1, token, None, false).await.unwrap().unwrap();
        // The other seat is given out but its player never comes.
        let other = room.take_seat(Player::default()).await.unwrap().unwrap();
        assert_eq!(other.color, creator.opponent());
        let summary = room.summary().await.unwrap();
        let view = summary.players.get(other.color);
        assert_eq!(
            view.claim_in_ms,
            Some(millis(grace)),
            "{creator} created it"
        );
        tokio::time::sleep(grace).await;
        room.act(1, Action::ClaimWin, false).await.unwrap().unwrap();
        assert_eq!(
            outcome(&room).await,
            Some(Outcome::Win {
                winner: creator,
                reason: WinReason::Abandonment
            })
        );
    }
}

#[tokio::test]
async fn a_turn_asked_again_after_the_room_moved_is_acknowledged_once() {
    let table = table(None).await;
    let first = turn("C4:C5,D5");
    let played = table.room.play(1, first).await.unwrap().unwrap();
    // The answer was lost on the way; asked again as a retry, the same turn by the same
    // player is acknowledged, and not played twice.
    let again = Action::Play {
        turn: first,
        number: None,
    };
    let retried = table.room.act(1, again, true).await.unwrap();
    assert_eq!(retried, Ok(played));
    assert_eq!(snapshot(&table.room, 1).await.turns, vec![first]);
    // Not as a first request: then it is out of turn.
    let refused = table.room.act(1, again, false).await.unwrap();
    assert_eq!(refused.unwrap_err().code, ErrorCode::NotYourTurn);
    // Nor is another player's turn, or another turn, taken for it.
    let refused = table.room.act(2, again, true).await.unwrap();
    assert!(refused.is_err());
    // A resignation asked again is acknowledged as done.
    let resigned = table
        .room
        .act(2, Action::Resign, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        table.room.act(2, Action::Resign, true).await.unwrap(),
        Ok(resigned)
    );
    let refused = table.room.act(2, Action::Resign, false).await.unwrap();
    assert_eq!(refused.unwrap_err().code, ErrorCode::GameOver);
}

#[tokio::test]
async fn the_same_connection_joining_again_replaces_nobody() {
    let table = table(None).await;
    let mut events = table.room.watch(9, None).await.unwrap().events;
    drain(&mut events);
    let [white, _] = table.tokens.clone();
    table
        .room
        .join(1, white, None, true)
        .await
        .unwrap()
        .unwrap();
    let said = drain(&mut events);
    assert!(
        !said.iter().any(|m| matches!(m, ServerMessage::Bye { .. })),
        "{said:?}"
    );
    assert!(table.room.play(1, turn("C4:C5,D5")).await.unwrap().is_ok());
}

/// Every room's task holds its future while the room is in memory, most of that time
/// waiting: storing a turn or a seat is boxed, so that the wait stays small.
#[tokio::test]
async fn a_room_task_is_small_while_it_waits() {
    let rooms = Rooms::new(Context::new(
        &Config::default(),
        &Services::start(&Config::default(), Store::empty().await, Nodes::Alone),
    ));
    let fresh = Fresh::new(
        Variant::Standard,
        Visibility::Public,
        None,
        [None, None],
        Default::default(),
        None,
        false,
    );
    let (_inbox, requests) = tokio::sync::mpsc::channel(1);
    let started = crate::cluster::Kind::start(&rooms, fresh.setup(), requests);
    let size = std::mem::size_of_val(&*started.task);
    // Seven kilobytes when the requests' futures were inline (debug build).
    assert!(size <= 4096, "a room's future takes {size} bytes");
}

/// Every room's inbox, and every relay's, sets aside room for 32 requests from its first
/// moment: a request travels boxed, so that the room is for 32 pointers or so, not 32
/// requests (over a hundred bytes each).
#[test]
fn an_envelope_is_a_few_pointers() {
    let size = std::mem::size_of::<crate::cluster::Envelope<Rooms>>();
    assert!(size <= 32, "an envelope takes {size} bytes");
}

/// Every room holds its live channel's slots from its first moment, so it has only
/// `LIVE_EVENTS` of them: a member whose connection stops taking events off falls
/// behind after that many (and gets a fresh snapshot), while a member coming back is
/// still served from the events the room keeps (256), which take memory only as they
/// happen.
#[tokio::test]
async fn a_member_falls_behind_after_the_live_events_and_comes_back_from_the_kept_ones() {
    let Table { room, .. } = table(None).await;
    let since = snapshot(&room, 3).await.seq;
    let mut stalled = room.watch(4, None).await.unwrap().events;
    let pairs = LIVE_EVENTS / 2 + 1;
    for _ in 0..pairs {
        room.act(1, Action::OfferDraw, false)
            .await
            .unwrap()
            .unwrap();
        room.act(2, Action::DeclineDraw, false)
            .await
            .unwrap()
            .unwrap();
    }
    assert!(matches!(
        stalled.try_recv(),
        Err(broadcast::error::TryRecvError::Lagged(_))
    ));
    match room.watch(5, Some(since)).await.unwrap().start {
        Start::Resumed { missed, .. } => assert_eq!(missed.len(), 2 * pairs),
        Start::Snapshot(_) => panic!("every event since is kept"),
    }
}
