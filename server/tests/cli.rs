//! The `punct-server` command.

mod common;

use std::process::Command;

use common::TestServer;

/// Runs `punct-server healthcheck` against `listen`; answers whether it succeeded.
fn healthcheck(listen: &str) -> bool {
    Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args(["healthcheck", "--listen", listen])
        .output()
        .unwrap()
        .status
        .success()
}

#[tokio::test]
async fn healthcheck_passes_on_a_ready_server_and_fails_without_one() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let listen = addr.to_string();
    assert!(
        tokio::task::spawn_blocking(move || healthcheck(&listen))
            .await
            .unwrap()
    );
    // Listening on every address, it asks on loopback.
    let every = format!("0.0.0.0:{}", addr.port());
    assert!(
        tokio::task::spawn_blocking(move || healthcheck(&every))
            .await
            .unwrap()
    );
    server.shutdown().await.unwrap();
    let listen = addr.to_string();
    assert!(
        !tokio::task::spawn_blocking(move || healthcheck(&listen))
            .await
            .unwrap()
    );
}

#[test]
fn schema_prints_the_committed_schema() {
    let output = Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .arg("schema")
        .output()
        .unwrap();
    assert!(output.status.success());
    let committed = include_str!("../../protocol/schema.json");
    assert_eq!(String::from_utf8(output.stdout).unwrap(), committed);
}

#[test]
fn help_names_every_setting_and_its_variable() {
    let output = Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    for variable in [
        "PUNCT_LISTEN",
        "PUNCT_MAX_CONNECTIONS",
        "PUNCT_MAX_ROOMS",
        "PUNCT_MAX_MESSAGE_BYTES",
        "PUNCT_PING_INTERVAL",
        "PUNCT_IDLE_TIMEOUT",
        "PUNCT_OUTBOUND_QUEUE",
        "PUNCT_ROOM_EVENT_BUFFER",
        "PUNCT_ROOM_IDLE_TIMEOUT",
        "PUNCT_DATABASE",
        "PUNCT_GRACE_PERIOD",
    ] {
        assert!(help.contains(variable), "{variable} is not in --help");
    }
    assert!(help.contains("127.0.0.1:8080"));
}
