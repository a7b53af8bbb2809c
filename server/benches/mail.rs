//! How fast the outbox empties: a backlog of 1,000 mails (a mail server back after an
//! outage) sent by a server started on it, to the tests' SMTP sink, over one session for
//! the lot, and over a session for each mail (a sink that hangs up after every message).
//! Each sample is the time from the server's start to the sink holding every mail.
//!
//!     cargo bench -p punct-server --bench mail

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use punct_server::Config;
use punct_testing::smtp::{Behaviour, Sink};
use punct_testing::{Database, TestServer};

/// Mails in the backlog.
const BACKLOG: usize = 1_000;

/// A database holding one player who takes mail for each move, and [`BACKLOG`] "your
/// move" mails to them, due.
async fn backlog() -> Database {
    let database = Database::sqlite();
    let server = TestServer::on(&database).await;
    let token = server.register("bert", "a long enough password").await;
    let body = r#"{"email":"bert@example.org","mode":"each"}"#;
    let (status, answer) = server
        .signed_in(&token)
        .http("PUT", "/api/me/notifications", body)
        .await;
    assert_eq!(status, 200, "{answer}");
    server.shutdown().await.unwrap();
    let notice = r#"{"kind":"your_move","opponent":"anna","turn":"C4:C5,D5","number":1,"days":3}"#;
    database
        .query(&format!(
            "INSERT INTO mail_outbox (id, account, room, notice, queued_at, due_at)
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {BACKLOG})
             SELECT printf('bench-%06d', i), (SELECT id FROM accounts), 'room', '{notice}', 0, 0
             FROM n"
        ))
        .await;
    database
}

/// Sends the backlog of `database` to a sink that behaves as `behaviour`; answers how
/// long it took, the server's start included.
async fn empty(database: &Database, behaviour: Behaviour) -> Duration {
    database
        .query(
            "UPDATE mail_outbox SET done_at = NULL, attempts = 0, claimed_by = NULL,
                    claimed_until = NULL, due_at = 0",
        )
        .await;
    let sink = Sink::start(behaviour);
    let started = Instant::now();
    let server = TestServer::with(Config {
        database: Some(database.url()),
        smtp_url: Some(sink.url()),
        ..Config::default()
    })
    .await;
    while sink.count() < BACKLOG {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let took = started.elapsed();
    server.shutdown().await.unwrap();
    took
}

fn outbox(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let database = runtime.block_on(backlog());
    let mut group = c.benchmark_group("outbox of 1,000 mails");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BACKLOG as u64));
    for (name, behaviour) in [
        ("one session", Behaviour::Accept),
        ("a session a mail", Behaviour::AcceptOnce),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|samples| {
                runtime.block_on(async {
                    let mut took = Duration::ZERO;
                    for _ in 0..samples {
                        took += empty(&database, behaviour).await;
                    }
                    took
                })
            });
        });
    }
    group.finish();
}

criterion_group!(benches, outbox);
criterion_main!(benches);
