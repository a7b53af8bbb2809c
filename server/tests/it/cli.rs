//! The `punct-server` command.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use punct_testing::{Endpoint, PATIENCE, TestServer};
use serde_json::Value;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Runs `punct-server healthcheck` against `listen`; answers whether it succeeded (and
/// says why not, for a test that fails).
fn healthcheck(listen: &str) -> bool {
    let output = Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args(["healthcheck", "--listen", listen])
        .output()
        .unwrap();
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr).trim());
    }
    output.status.success()
}

/// Whether `punct-server healthcheck` passes against `listen` in one of three tries, as
/// the image's HEALTHCHECK counts (`--retries=3`): on a machine as busy as CI's, one
/// check may outlast its 2 s.
fn healthy(listen: &str) -> bool {
    (0..3).any(|_| healthcheck(listen))
}

#[tokio::test]
async fn healthcheck_passes_on_a_ready_server_and_fails_without_one() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let listen = addr.to_string();
    assert!(
        tokio::task::spawn_blocking(move || healthy(&listen))
            .await
            .unwrap()
    );
    // Listening on every address, it asks on loopback.
    let every = format!("0.0.0.0:{}", addr.port());
    assert!(
        tokio::task::spawn_blocking(move || healthy(&every))
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
    let committed = include_str!("../../../protocol/schema.json");
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
        "PUNCT_MAX_CONNECTIONS_PER_IP",
        "PUNCT_ROOMS_PER_MINUTE",
        "PUNCT_MESSAGE_RATE_SCALE",
        "PUNCT_ALLOWED_ORIGINS",
        "PUNCT_LOG_FORMAT",
        "PUNCT_COMPUTER_THINK_TIME",
        "PUNCT_TRUSTED_PROXIES",
    ] {
        assert!(help.contains(variable), "{variable} is not in --help");
    }
    assert!(help.contains("127.0.0.1:8080"));
}

#[tokio::test]
async fn json_logs_name_the_connection_and_the_room_on_every_line() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args(["--listen", "127.0.0.1:0", "--database", ":memory:"])
        .args(["--log-format", "json"])
        // The test is its own trusted proxy: it says which client each connection is.
        .args(["--trusted-proxies", "127.0.0.0/8"])
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines_tx, lines) = mpsc::channel::<Value>();
    let stderr = BufReader::new(server.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let line = line.unwrap();
            let json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if lines_tx.send(json).is_err() {
                break;
            }
        }
    });
    // Lines in the order written; `line` finds the first that `matches`, waiting for it.
    let mut seen: Vec<Value> = Vec::new();
    let mut line = |matches: &dyn Fn(&Value) -> bool| -> Value {
        loop {
            if let Some(found) = seen.iter().find(|l| matches(l)) {
                return found.clone();
            }
            seen.push(lines.recv_timeout(PATIENCE).expect("the server logs on"));
        }
    };
    let says = |message: &'static str| move |l: &Value| l["message"] == message;
    let listening = line(&says("listening"));
    let addr = listening["address"].as_str().unwrap().parse().unwrap();
    let endpoint = Endpoint::new(addr);

    let mut forwarded = format!("ws://{addr}/ws").into_client_request().unwrap();
    let client = "198.51.100.7".parse().unwrap();
    forwarded.headers_mut().insert("x-forwarded-for", client);
    let _forwarded = tokio_tungstenite::connect_async(forwarded).await.unwrap();
    let connected = line(&says("connected"));
    assert_eq!(connected["spans"][0]["peer"], "198.51.100.7", "{connected}");

    let created = endpoint.create_room("").await;
    assert_eq!(line(&says("room created"))["room"], created.room.as_str());
    let (_sam, _) = endpoint.spectator(&created.room).await;
    let entered = line(&says("entered room"));
    let span = &entered["spans"][0];
    assert_eq!(span["name"], "conn");
    assert!(span["conn"].as_u64().is_some(), "{entered}");
    assert_eq!(span["room"], created.room.as_str(), "{entered}");
    // The room's own lines carry its id too.
    let opened = line(&says("room opened"));
    assert_eq!(opened["spans"][0]["name"], "room");
    assert_eq!(
        opened["spans"][0]["room"],
        created.room.as_str(),
        "{opened}"
    );
    // A player joins with a seat token: the token is never written to the log.
    let _alice = endpoint.player(&created.room, &created.token).await;
    let seated = line(&|l: &Value| l["message"] == "entered room" && l["role"] != "Spectator");
    assert_eq!(
        seated["spans"][0]["room"],
        created.room.as_str(),
        "{seated}"
    );
    server.kill().unwrap();
    server.wait().unwrap();
    while let Ok(more) = lines.recv_timeout(std::time::Duration::from_millis(100)) {
        seen.push(more);
    }
    for logged in &seen {
        assert!(!logged.to_string().contains(&created.token), "{logged}");
    }
}

#[test]
fn a_cluster_address_that_is_not_nats_stops_the_start_with_a_reason() {
    // Something listens there, but says nothing.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("nats://{}", silent.local_addr().unwrap());
    let output = Command::new(env!("CARGO_BIN_EXE_punct-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--database",
            ":memory:",
            "--cluster",
            &url,
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("did not answer as a NATS server"),
        "{stderr}"
    );
}
