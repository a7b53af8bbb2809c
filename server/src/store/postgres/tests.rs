//! What only PostgreSQL does: migrations shared by nodes, and connections lost and made
//! again. (The behaviour both databases share is checked in `store/tests.rs`, which runs
//! on PostgreSQL too with `PUNCT_TEST_DATABASE=postgres`.)

use punct_testing::Postgres as Server;
use tokio_postgres::NoTls;

use crate::store::{NewRoom, Store, StoreError, hash_token};

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
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
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
    let version: i32 = versions[0].get(0);
    assert_eq!(
        usize::try_from(version).unwrap(),
        super::schema::MIGRATIONS.len()
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
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
        .get(0);
    assert_eq!(version, 999);
    let rooms: i64 = db
        .query_one("SELECT COUNT(*) FROM rooms", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(rooms, 1);
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
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
    assert_eq!(cut.len(), 2, "the writer's connection and the reader's");
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
}
