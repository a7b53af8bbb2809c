use std::time::Duration;

use punct_protocol::{RoomStatus, SeekGame, TimeControl};
use punct_rules::Variant;

use super::pool::{SEEK_LIFETIME, meets};
use super::protocol::Request;
use super::*;
use crate::cluster::Nodes;
use crate::store::Account;

fn game(base: u32, increment: u32) -> SeekGame {
    SeekGame {
        variant: Variant::Standard,
        clock: TimeControl::clock(base, increment),
        rated: false,
    }
}

fn seek(conn: ConnId, game: SeekGame) -> NewSeek {
    NewSeek {
        seek: secret::uuid_v7(),
        conn,
        game,
        player: Player::default(),
        guest: None,
        rating: None,
        range: None,
        blocks: Vec::new(),
        seat: secret::hash_token(&secret::token()),
    }
}

fn signed_in(conn: ConnId, game: SeekGame, id: &str, rating: f64) -> NewSeek {
    let account = Account {
        id: id.to_owned(),
        username: format!("user-{id}"),
    };
    NewSeek {
        player: Player::of(account),
        rating: Some(rating),
        ..seek(conn, game)
    }
}

#[test]
fn two_people_who_want_the_same_game_meet() {
    assert!(meets(&seek(1, game(300, 3)), &seek(2, game(300, 3))));
}

#[test]
fn another_clock_or_variant_or_rating_is_another_game() {
    let blitz = seek(1, game(300, 3));
    assert!(!meets(&blitz, &seek(2, game(300, 5))));
    assert!(!meets(&blitz, &seek(2, game(600, 3))));
    let mut other = game(300, 3);
    other.variant = Variant::Basic;
    assert!(!meets(&blitz, &seek(2, other)));
    let mut rated = game(300, 3);
    rated.rated = true;
    assert!(!meets(&blitz, &seek(2, rated)));
    let days = SeekGame {
        clock: TimeControl::days(3),
        ..game(0, 0)
    };
    assert!(!meets(&blitz, &seek(2, days)));
}

#[test]
fn nobody_meets_themselves_in_another_tab() {
    let (a, b) = (game(300, 3), game(300, 3));
    assert!(!meets(&seek(1, a), &seek(1, b)), "one connection");
    assert!(
        !meets(
            &signed_in(1, a, "acc", 1500.0),
            &signed_in(2, b, "acc", 1500.0)
        ),
        "one account on two connections"
    );
    let guest = |conn, key: &str| NewSeek {
        guest: Some(key.to_owned()),
        ..seek(conn, a)
    };
    assert!(
        !meets(&guest(1, "tabs"), &guest(2, "tabs")),
        "one guest's tabs"
    );
    assert!(meets(&guest(1, "one"), &guest(2, "two")), "two guests");
}

#[test]
fn a_block_either_way_keeps_two_players_apart() {
    let a = signed_in(1, game(300, 3), "a", 1500.0);
    let b = signed_in(2, game(300, 3), "b", 1500.0);
    assert!(meets(&a, &b));
    let blocking = NewSeek {
        blocks: vec!["b".to_owned()],
        ..a.clone()
    };
    assert!(!meets(&blocking, &b));
    assert!(!meets(&b, &blocking), "whoever seeks first");
}

#[test]
fn a_rated_seek_meets_only_within_both_ranges() {
    let mut rated = game(300, 3);
    rated.rated = true;
    let a = NewSeek {
        range: Some(200),
        ..signed_in(1, rated, "a", 1500.0)
    };
    let near = signed_in(2, rated, "b", 1650.0);
    let far = signed_in(3, rated, "c", 1750.0);
    assert!(meets(&a, &near));
    assert!(!meets(&a, &far), "beyond a's range");
    let narrow = NewSeek {
        range: Some(100),
        ..near.clone()
    };
    assert!(!meets(&a, &narrow), "beyond the other's range");
    let guest = seek(4, rated);
    assert!(!meets(&a, &guest), "a rated game needs two ratings");
}

/// A pool on an empty store, and the rooms it pairs into.
async fn seeks() -> (Seeks, Registry) {
    let config = Config::default();
    let store = Store::empty().await;
    let services = Services::start(&config, store.clone(), Nodes::Alone);
    let rooms = Registry::new(&config, &services);
    let accounts = Accounts::new(store.clone(), Duration::from_secs(3600), 0, 0);
    let endings = crate::endings::Endings::new(&services, rooms.clone());
    let moderation = Moderation::new(store, Arc::clone(&accounts), rooms.clone(), endings);
    let moderation = Arc::new(moderation);
    let seeks = Seeks::new(&config, &services, rooms.clone(), accounts, moderation);
    assert_eq!(seeks.restore().await, Ok(1), "the pool runs from the start");
    (seeks, rooms)
}

fn waiting(answer: &Answer) -> bool {
    matches!(answer, Answer::Waiting { .. })
}

#[tokio::test]
async fn a_seek_waits_and_the_next_compatible_one_meets_it_in_a_new_room() {
    let (seeks, rooms) = seeks().await;
    let first = seek(1, game(300, 3));
    let (answer, mut events) = seeks.seek(&first).await.unwrap();
    assert!(waiting(&answer), "{answer:?}");
    assert_eq!(seeks.list().await.seeks.len(), 1, "listed while it waits");
    let (answer, _) = seeks.seek(&seek(2, game(600, 0))).await.unwrap();
    assert!(waiting(&answer), "another game waits beside it");
    let second = seek(3, game(300, 3));
    let (answer, _) = seeks.seek(&second).await.unwrap();
    let Answer::Paired(pairing) = answer else {
        panic!("{answer:?}")
    };
    assert!(pairing.side_of(&first.seek).is_some());
    assert!(pairing.side_of(&second.seek).is_some());
    let (mine, _) = pairing.side_of(&first.seek).unwrap();
    let (theirs, _) = pairing.side_of(&second.seek).unwrap();
    assert_ne!(mine, theirs, "one White, one Black");
    let Event::Paired(told) = &*events.recv().await.unwrap() else {
        panic!("the first seeker hears of its pairing")
    };
    assert_eq!(*told, std::slice::from_ref(&pairing));
    assert_eq!(
        seeks.list().await.seeks.len(),
        1,
        "only the other game waits"
    );
    let summary = rooms.summary(&pairing.room).await;
    let summary = summary.unwrap();
    assert_eq!(summary.status, RoomStatus::Live, "both seats are taken");
    assert_eq!(summary.clock, Some(TimeControl::clock(300, 3)));
    // A seeker that missed the news and asks again hears it in the answer.
    let (again, _) = seeks.seek(&first).await.unwrap();
    assert!(matches!(again, Answer::Paired(p) if p == pairing));
}

#[tokio::test]
async fn a_cancelled_seek_or_one_of_a_dead_node_meets_nobody() {
    let (seeks, _) = seeks().await;
    seeks.seek(&seek(1, game(300, 3))).await.unwrap();
    seeks.cancel(1);
    let remote = crate::cluster::node_of(7 << 40);
    seeks.seek(&seek(7 << 40, game(300, 3))).await.unwrap();
    let pool = seeks.placement.running(POOL).unwrap();
    pool.tell(Request::NodeDied { node: remote });
    let (answer, _) = seeks.seek(&seek(2, game(300, 3))).await.unwrap();
    assert!(waiting(&answer), "{answer:?}");
    assert_eq!(seeks.list().await.seeks.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_seek_nobody_meets_ends_at_the_time_its_seeker_was_told() {
    let (seeks, _) = seeks().await;
    let lonely = seek(1, game(300, 3));
    let (answer, mut events) = seeks.seek(&lonely).await.unwrap();
    let Answer::Waiting { expires_at } = answer else {
        panic!("{answer:?}")
    };
    let lifetime = i64::try_from(SEEK_LIFETIME.as_millis()).unwrap();
    assert!((expires_at - crate::clock::now() - lifetime).abs() < 1000);
    tokio::time::sleep(SEEK_LIFETIME - Duration::from_secs(1)).await;
    assert!(events.try_recv().is_err(), "not before its time");
    let Event::Expired { seek } = &*events.recv().await.unwrap() else {
        panic!("it expires")
    };
    assert_eq!(*seek, lonely.seek);
    assert!(seeks.list().await.seeks.is_empty());
}
