//! A short load run against a server in this process: the tool's smoke test, run in CI
//! so that it keeps working. The figures of real runs are in docs/PERFORMANCE.md.

use punct_load::{LoadConfig, run};
use punct_server::Config;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_plays_every_room_and_loses_nothing() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(punct_server::run(listener, Config::default(), async {
        let _ = stopped.await;
    }));

    let report = run(LoadConfig {
        server,
        rooms: 4,
        spectators: 2,
        idle: 3,
        rate: 40.0,
        seconds: 2,
        sources: 2,
        ..LoadConfig::default()
    })
    .await
    .unwrap();

    eprintln!("{report}");
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
    assert!(report.rooms_checked >= 4);
    assert_eq!(report.turns_unpersisted, 0);
    // The server runs in this process, which the tool finds by the listening port.
    assert!(report.server_rss_loaded.is_some_and(|rss| rss > 0));

    let _ = stop.send(());
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn only_loopback_is_a_target() {
    let config = LoadConfig {
        server: "192.0.2.1:8080".parse().unwrap(),
        ..LoadConfig::default()
    };
    let error = run(config).await.unwrap_err();
    assert!(
        error.to_string().contains("not a loopback address"),
        "{error}"
    );
}
