//! The real `punct-server` stopped with SIGTERM, as `docker stop` does, with players and
//! spectators connected: every connection gets its goodbye and a 1001 close frame
//! before the process exits, every time.

use punct_protocol::{ErrorCode, ServerMessage};
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
