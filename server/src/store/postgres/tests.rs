//! What only PostgreSQL does: migrations shared by nodes, connections lost and made
//! again, values converted to each column's own type, and ratings serialised across
//! nodes. (The behaviour both databases share is checked in `store/tests/`, which runs
//! on PostgreSQL too with `PUNCT_TEST_DATABASE=postgres`.) Each needs a PostgreSQL
//! server on the machine, so they are ignored unless asked for (`--include-ignored`).

use punct_testing::Postgres as Server;
use tokio_postgres::NoTls;

use crate::secret::hash_token;
use crate::store::{NewRoom, Store, StoreError};

/// A connection of the test's own to the database at `url`.
async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}

fn new_room(id: &str) -> NewRoom {
    NewRoom {
        id: id.into(),
        variant: punct_rules::Variant::Standard,
        visibility: punct_protocol::Visibility::Public,
        clock: None,
        days: None,
        seats: [Some(hash_token("w")), None],
        players: Default::default(),
        rated: false,
        computer: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn nodes_starting_together_migrate_once() {
    let url = Server::shared().database();
    let opening: Vec<_> = (0..6)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { Store::open(Some(&url)).await.map(drop) })
        })
        .collect();
    for store in opening {
        store.await.unwrap().unwrap();
    }
    let versions = connect(&url)
        .await
        .query("SELECT version FROM punct_schema", &[])
        .await
        .unwrap();
    assert_eq!(versions.len(), 1);
    let version: i32 = versions[0].get("version");
    assert_eq!(
        usize::try_from(version).unwrap(),
        crate::store::schema::LATEST
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn a_database_counted_in_postgresqls_own_numbers_runs_only_what_it_lacks() {
    let url = Server::shared().database();
    let store = Store::open(Some(&url)).await.unwrap();
    store.create_room(new_room("r")).await.unwrap();
    // As a server with a list of PostgreSQL's own left it: its twelfth (the shared
    // sixteenth) run, and not the ones after it, which add reports' rooms, the index
    // of bans and puzzle ratings.
    let db = connect(&url).await;
    db.batch_execute(
        "ALTER TABLE reports DROP COLUMN room;
         DROP INDEX accounts_banned;
         DROP TABLE puzzle_players, puzzle_ratings, puzzle_attempts;
         DELETE FROM punct_schema;
         INSERT INTO punct_schema (version) VALUES (12);",
    )
    .await
    .unwrap();
    Store::open(Some(&url)).await.unwrap();
    let row = db
        .query_one("SELECT version, numbering FROM punct_schema", &[])
        .await
        .unwrap();
    let (version, numbering): (i32, Option<String>) = (row.get("version"), row.get("numbering"));
    assert_eq!(
        usize::try_from(version).unwrap(),
        crate::store::schema::LATEST
    );
    assert_eq!(numbering.as_deref(), Some("shared"));
    let rooms: i64 = db
        .query_one(
            "SELECT COUNT(*) AS rooms FROM reports, rooms WHERE reports.room = rooms.id",
            &[],
        )
        .await
        .unwrap()
        .get("rooms");
    assert_eq!(rooms, 0, "reports.room is back");
    assert!(
        store.summary("r").await.unwrap().is_some(),
        "the room is kept"
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn a_database_newer_than_the_server_is_refused_untouched() {
    let url = Server::shared().database();
    let store = Store::open(Some(&url)).await.unwrap();
    store.create_room(new_room("r")).await.unwrap();
    let db = connect(&url).await;
    db.execute("UPDATE punct_schema SET version = 999", &[])
        .await
        .unwrap();
    let refused = Store::open(Some(&url)).await.unwrap_err();
    assert!(matches!(refused, StoreError::Schema(_)), "{refused}");
    let version: i32 = db
        .query_one("SELECT version FROM punct_schema", &[])
        .await
        .unwrap()
        .get("version");
    assert_eq!(version, 999);
    let rooms: i64 = db
        .query_one("SELECT COUNT(*) AS rooms FROM rooms", &[])
        .await
        .unwrap()
        .get("rooms");
    assert_eq!(rooms, 1);
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn connections_cut_by_the_database_are_made_again() {
    let url = Server::shared().database();
    let store = Store::open(Some(&url)).await.unwrap();
    store.create_room(new_room("before")).await.unwrap();
    // An operator (or a restart of PostgreSQL) ends the server's sessions.
    let db = connect(&url).await;
    let cut = db
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap();
    assert!(!cut.is_empty(), "the pool's connections");
    // Requests made while the connections were down fail and change nothing; once made
    // again, requests succeed and nothing acknowledged is lost.
    let mut tries = 0;
    while store.create_room(new_room("after")).await.is_err() {
        tries += 1;
        assert!(tries < 20, "the writer connects again");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut tries = 0;
    let lobby = loop {
        match store.lobby(10).await {
            Ok(lobby) => break lobby,
            Err(_) if tries < 20 => tries += 1,
            Err(e) => panic!("the reader does not come back: {e}"),
        }
    };
    let mut ids: Vec<_> = lobby.into_iter().map(|row| row.id).collect();
    ids.sort();
    assert_eq!(ids, ["after", "before"]);
    // Rating takes a connection of the pool too.
    assert_eq!(store.rate_game("before").await.unwrap(), None);
}

#[tokio::test]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn integers_go_into_columns_of_every_width_and_too_large_ones_are_refused() {
    let url = Server::shared().database();
    let store = Store::open(Some(&url)).await.unwrap();
    // `computer_level` and `clock_days` are SMALLINT, a turn's number INTEGER.
    let room = NewRoom {
        computer: Some((punct_rules::Color::Black, 5)),
        days: Some(3),
        clock: Some([3 * 86_400_000, 0]),
        ..new_room("r")
    };
    store.create_room(room).await.unwrap();
    let turn: punct_rules::Turn = "C4:C5,D5".parse().unwrap();
    store
        .turn("r", 0, 1, turn, None, None, Vec::new())
        .await
        .unwrap();
    let row = store.summary("r").await.unwrap().unwrap();
    assert_eq!(row.computer, Some((punct_rules::Color::Black, 5)));
    assert_eq!(row.turns, 1);
    let too_far = store
        .turn("r", 0, 1 << 40, turn, None, None, Vec::new())
        .await;
    assert!(
        matches!(too_far, Err(StoreError::Postgres(_))),
        "{too_far:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: .ci/services-tests runs it"]
async fn nodes_rate_one_game_at_a_time() {
    let url = Server::shared().database();
    let store = Store::open(Some(&url)).await.unwrap();
    // Another node holds the rating lock: this one's rating waits for it.
    let mut other = connect(&url).await;
    let tx = other.transaction().await.unwrap();
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&super::RATING_LOCK])
        .await
        .unwrap();
    let rating = tokio::spawn(async move { store.rebuild_ratings().await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!rating.is_finished(), "the rating waits for the lock");
    tx.commit().await.unwrap();
    assert_eq!(rating.await.unwrap().unwrap(), 0);
}
