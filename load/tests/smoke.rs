//! A short load run against a server in this process: the tool's smoke test, run in CI
//! so that it keeps working. The figures of real runs are in docs/PERFORMANCE.md.

use std::net::SocketAddr;

use punct_load::{ArenaConfig, LoadConfig, Report, SeekConfig, run, run_arena, run_seek};
use punct_testing::TestServer;

/// Runs the load `config` against a server in this process, which it then stops.
async fn against_a_server(config: impl FnOnce(SocketAddr) -> LoadConfig) -> Report {
    let server = TestServer::start().await;
    let report = run(config(server.addr)).await.unwrap();
    eprintln!("{report}");
    server.shutdown().await.unwrap();
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_plays_every_room_and_loses_nothing() {
    let report = against_a_server(|server| LoadConfig {
        server: vec![server],
        rooms: 4,
        spectators: 2,
        idle: 3,
        rate: 40.0,
        seconds: 2,
        sources: 2,
        ..LoadConfig::default()
    })
    .await;
    assert_eq!(report.connections_asked, 4 * (2 + 2) + 3);
    assert_eq!(report.connections_held, 19, "{report}");
    assert_eq!(report.errors, 0, "{report}");
    assert_eq!(report.dropped, 0);
    // Four rooms at ten turns a second each, for two seconds.
    assert!(report.turns >= 40, "{report}");
    assert_eq!(report.turn_latency.samples as u64, report.turns);
    // Every turn reached both spectators of its room, except those in flight at the end.
    assert!(
        report.fanout_latency.samples as u64 + 4 >= report.turns,
        "{report}"
    );
    assert!(report.turn_latency.p50_ms > 0.0);
    assert!(report.turn_latency.p99_ms <= report.turn_latency.max_ms);
    // Every acknowledged turn reached the mover and the opponent as a player sees it.
    assert_eq!(report.own_turn_latency.samples as u64, report.turns);
    assert_eq!(report.opponent_latency.samples as u64, report.turns);
    assert_eq!(report.your_turn_latency, None, "the lists were declined");
    assert!(report.rooms_checked >= 4);
    assert_eq!(report.turns_unpersisted, 0);
    // The server runs in this process, which the tool finds by the listening port.
    assert!(report.server_rss_loaded.is_some_and(|rss| rss > 0));
}

#[tokio::test]
async fn only_loopback_is_a_target() {
    let config = LoadConfig {
        server: vec!["192.0.2.1:8080".parse().unwrap()],
        ..LoadConfig::default()
    };
    let error = run(config).await.unwrap_err();
    assert!(
        error.to_string().contains("not a loopback address"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_lists_every_turn_brings_the_opponent_its_your_turn() {
    let report = against_a_server(|server| LoadConfig {
        server: vec![server],
        rooms: 2,
        spectators: 1,
        rate: 10.0,
        seconds: 2,
        sources: 1,
        legal_turns: true,
        ..LoadConfig::default()
    })
    .await;
    assert_eq!(report.errors, 0, "{report}");
    let your_turn = report
        .your_turn_latency
        .as_ref()
        .expect("measured with the lists");
    // A game that ended brings no list; every other turn does.
    assert!(
        your_turn.samples as u64 + report.games_finished >= report.turns,
        "{report}"
    );
    assert!(your_turn.samples > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_pairs_every_player_again_after_each_game() {
    // Registering six accounts from one address takes more sign-ins than the default
    // allows, each player holds two connections, and plays faster than people may.
    let server = TestServer::with(punct_server::Config {
        sign_ins_per_minute: 0,
        max_connections_per_ip: 0,
        message_rate_scale: 0.0,
        ..punct_server::Config::default()
    })
    .await;
    let report = run_arena(ArenaConfig {
        server: server.addr,
        players: 6,
        seconds: 12,
        lead: 3,
        turn_ms: 20,
        clock: 60,
        sources: 2,
        ..ArenaConfig::default()
    })
    .await
    .unwrap();
    eprintln!("{report}");
    server.shutdown().await.unwrap();
    assert_eq!(report.errors, 0, "{report}");
    assert_eq!(report.joined, 6);
    // Everyone was paired at the start, and again after every game that ended before
    // the arena did.
    assert_eq!(report.first_pairing.samples, 6, "{report}");
    assert!(report.game_ends_in_time >= 6, "{report}");
    assert!(report.next_pairing.samples > 0, "{report}");
    assert_eq!(
        report.next_pairing.samples as u64 + report.unpaired,
        report.game_ends_in_time,
        "{report}"
    );
    assert_eq!(
        report.pairings as usize,
        report.first_pairing.samples + report.next_pairing.samples
    );
    assert!(report.next_pairing.p99_ms <= report.next_pairing.max_ms);
    assert!(report.turns > 0);
    assert!(report.server_rss_joined.is_some_and(|rss| rss > 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_seeking_at_once_are_all_paired_and_see_their_boards() {
    let server = TestServer::with(punct_server::Config {
        max_connections_per_ip: 0,
        ..punct_server::Config::default()
    })
    .await;
    let report = run_seek(SeekConfig {
        server: vec![server.addr],
        players: 20,
        sources: 2,
        seconds: 20,
        ..SeekConfig::default()
    })
    .await
    .unwrap();
    eprintln!("{report}");
    server.shutdown().await.unwrap();
    assert_eq!(report.errors, 0, "{report}");
    assert_eq!(report.paired, 20, "{report}");
    assert_eq!(report.rooms, 10, "two players a room: {report}");
    assert!(
        report.waited >= 10,
        "one of each two waited for the other: {report}"
    );
    assert_eq!(report.seek_to_snapshot.samples, 20);
    assert!(report.seek_to_paired.p99_ms <= report.seek_to_snapshot.max_ms);
}
