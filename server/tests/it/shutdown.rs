//! The real `punct-server` stopped with SIGTERM, as `docker stop` does, with players and
//! spectators connected: every connection gets its goodbye and a 1001 close frame
//! before the process exits, every time. And its SQLite file is then whole by itself,
//! for an operator to copy.

use punct_protocol::{ErrorCode, ServerMessage};
use std::path::PathBuf;

use punct_testing::{Client, Database, Process};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// How many times in a row the server is started and stopped.
const ROUNDS: usize = 12;

/// Reads until the server closes `client`: the last message before the close must be the
/// `bye`, and the close frame must say 1001 (going away).
async fn told_goodbye(client: &mut Client, who: &str, round: usize) {
    let close = client.closed().await;
    let last = client.kept().pop();
    let kind = last
        .as_ref()
        .map(|message| serde_json::to_value(message).unwrap()["type"].clone());
    assert!(
        matches!(
            last,
            Some(ServerMessage::Bye {
                code: ErrorCode::ShuttingDown,
                ..
            })
        ),
        "round {round}: {who} got {kind:?} last"
    );
    assert_eq!(
        close.map(|frame| frame.code),
        Some(CloseCode::Away),
        "round {round}: {who}'s close frame"
    );
}

#[tokio::test]
async fn sigterm_says_goodbye_to_every_player_and_spectator() {
    let database = Database::new();
    for round in 0..ROUNDS {
        let server = Process::start(&database);
        let table = server.table("standard").await;
        let mut alice = server.player(&table.room, &table.white).await;
        let mut bob = server.player(&table.room, &table.black).await;
        let (mut carol, _) = server.spectator(&table.room).await;
        let (mut dave, _) = server.spectator(&table.room).await;
        alice.play("C4:C5,D5").await.unwrap();
        // A player who has not said hello yet is connected too.
        let mut eve = server.connect().await;

        server.terminate();
        for (client, who) in [
            (&mut alice, "White"),
            (&mut bob, "Black"),
            (&mut carol, "a spectator"),
            (&mut dave, "another spectator"),
            (&mut eve, "a client before hello"),
        ] {
            told_goodbye(client, who, round).await;
        }
        let status = tokio::task::spawn_blocking(move || server.wait())
            .await
            .unwrap();
        assert!(status.success(), "round {round}: exit status {status}");
    }
}

#[tokio::test]
async fn after_sigterm_the_sqlite_file_alone_holds_everything() {
    let database = Database::sqlite();
    let server = Process::start(&database);
    server.register("anna", "a fine password").await;
    server.terminate();
    assert!(server.wait().success());
    let file = PathBuf::from(database.url());
    let wal = PathBuf::from(format!("{}-wal", file.display()));
    let left = std::fs::metadata(&wal).map_or(0, |wal| wal.len());
    assert_eq!(left, 0, "{} holds what the file does not", wal.display());

    // The file alone, copied as `docker cp` copies it, holds the account.
    let copy = Database::sqlite();
    std::fs::copy(&file, copy.url()).unwrap();
    let usernames = copy.query("SELECT username FROM accounts").await;
    assert_eq!(usernames, [[Some("anna".to_owned())]]);
    let server = Process::start(&copy);
    server.sign_in("anna", "a fine password").await;
}

#[test]
fn a_server_told_to_stop_as_soon_as_it_listens_stops_cleanly() {
    let database = Database::sqlite();
    let server = Process::start(&database);
    // At once: the signal may come before the server waits for it.
    server.terminate();
    assert!(
        server.wait().success(),
        "it exits 0, not killed by the signal"
    );
    let wal = PathBuf::from(format!("{}-wal", database.url()));
    assert_eq!(std::fs::metadata(&wal).map_or(0, |wal| wal.len()), 0);
}
