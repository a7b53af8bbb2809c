//! Backups on PostgreSQL, as docs/CLUSTER.md tells operators to take them: a `pg_dump`
//! restored with `pg_restore` into a fresh database serves the same games. It needs
//! PostgreSQL, and is ignored unless asked for.

use std::process::Command;

use punct_protocol::Archive;
use punct_testing::{Database, Postgres, TestServer};

use crate::ratings::{End, play};

/// Runs PostgreSQL's program `name` with `args`; fails the test if it fails.
fn run(name: &str, args: &[&str]) {
    let output = Command::new(Postgres::shared().program(name))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL and NATS: .ci/services-tests runs it"]
async fn a_dump_restored_into_a_fresh_database_serves_the_same_archive() {
    let database = Database::postgres();
    let server = TestServer::on(&database).await;
    let anna = server.signed_in(&server.register("anna", "a fine password").await);
    let bert = server.signed_in(&server.register("bert", "a fine password").await);
    let rooms = [
        play(&anna, &bert, End::BlackResigns).await.0,
        play(&bert, &anna, End::Drawn).await.0,
    ];
    let archive: Archive = server.get("/api/games").await;
    assert_eq!(archive.games.len(), 2);
    let mut records = Vec::new();
    for room in &rooms {
        records.push(server.record(room).await);
    }
    let anna_page: serde_json::Value = server.get("/api/players/anna").await;

    // Taken while the server runs, as operators do.
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("punct.dump");
    let dump = dump.to_str().unwrap();
    run(
        "pg_dump",
        &["--format=custom", "--file", dump, &database.url()],
    );
    server.shutdown().await.unwrap();
    let restored = Database::postgres();
    run(
        "pg_restore",
        &["--no-owner", "--dbname", &restored.url(), dump],
    );

    let server = TestServer::on(&restored).await;
    assert_eq!(server.get::<Archive>("/api/games").await, archive);
    for (room, record) in rooms.iter().zip(records) {
        assert_eq!(server.record(room).await, record);
    }
    assert_eq!(
        server.get::<serde_json::Value>("/api/players/anna").await,
        anna_page
    );
}
