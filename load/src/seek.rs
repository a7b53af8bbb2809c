//! `punct-load seek`: many players seeking the same game at once, as the lobby's "Play
//! now" does, each timed from its `seek` to the first snapshot of the room it was paired
//! into (what a player waits from pressing a clock to seeing the board).
//!
//! Each player has one connection, spread over the servers given (the nodes of a
//! cluster) and the source addresses. Every connection is opened and greeted first; then
//! all seek at once, each with its own guest key, so any two may meet. A player that is
//! paired joins its room on the same connection; once every player has its board (or
//! the time is up) the run ends.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use punct_client::Client;
use punct_protocol::{ClientMessage, ServerMessage, TimeControl};
use punct_rules::Variant;
use serde::Serialize;
use tokio::sync::{Barrier, Semaphore};
use tokio::time::Instant;

use crate::stats::{Latency, Stats};
use crate::{LoadError, clients};

/// What a seek run does. Every field is a flag of `punct-load seek`.
#[derive(Clone, Debug, clap::Args)]
pub struct SeekConfig {
    /// The server's address; only loopback addresses are accepted. For a cluster, its
    /// nodes, comma-separated: the players are spread over them.
    #[arg(long, default_value = "127.0.0.1:8080", value_delimiter = ',')]
    pub server: Vec<SocketAddr>,
    /// Players seeking at once (an even number meets in full).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub players: u64,
    /// Loopback source addresses the client sockets are spread over (127.0.0.1, …).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=250))]
    pub sources: u8,
    /// Connections opened at once while setting up.
    #[arg(long, default_value_t = 64)]
    pub connect_concurrency: usize,
    /// How long the players wait for their boards, in seconds, once they have sought.
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
}

impl Default for SeekConfig {
    fn default() -> SeekConfig {
        SeekConfig {
            server: vec![SocketAddr::from((Ipv4Addr::LOCALHOST, 8080))],
            players: 100,
            sources: 8,
            connect_concurrency: 64,
            seconds: 30,
        }
    }
}

/// What a seek run measured. Serialises as the JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct SeekReport {
    /// The servers' addresses.
    pub servers: Vec<String>,
    /// Players who sought.
    pub players: u64,
    /// Players paired.
    pub paired: u64,
    /// Rooms made: each holds two of the players paired.
    pub rooms: u64,
    /// Players who were told their seek waits (the others met a waiting seek at once).
    pub waited: u64,
    /// From a player's `seek` to its `paired`.
    pub seek_to_paired: Latency,
    /// From a player's `seek` to the snapshot of its room, its board in view.
    pub seek_to_snapshot: Latency,
    /// Everything that went wrong.
    pub errors: u64,
    /// What went wrong, by kind.
    pub error_kinds: BTreeMap<String, u64>,
}

impl std::fmt::Display for SeekReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "seek on {}: {} players, {} paired into {} rooms ({} waited for a partner)",
            self.servers.join(","),
            self.players,
            self.paired,
            self.rooms,
            self.waited
        )?;
        writeln!(f, "seek to paired     {}", self.seek_to_paired)?;
        writeln!(f, "seek to snapshot   {}", self.seek_to_snapshot)?;
        write!(f, "errors             {}", self.errors)?;
        for (why, count) in &self.error_kinds {
            write!(f, "\n  {count} x {why}")?;
        }
        Ok(())
    }
}

/// What one player saw.
#[derive(Default)]
struct Seen {
    /// From its seek to `paired`, and to its room's snapshot.
    times: Option<(Duration, Duration)>,
    /// The room it was paired into.
    room: Option<String>,
    /// Whether it was told to wait.
    waited: bool,
}

/// Runs the seeks described by `config` and reports what they measured.
pub async fn run(config: SeekConfig) -> Result<SeekReport, LoadError> {
    let needed = config.players + 64;
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0);
    if limit < needed {
        return Err(LoadError::TooFewFiles { needed, limit });
    }
    let clients = Arc::new(clients(&config.server, config.sources)?);
    let players = usize::try_from(config.players).unwrap_or(usize::MAX);
    let stats = Arc::new(Stats::default());
    let connecting = Arc::new(Semaphore::new(config.connect_concurrency.max(1)));
    // Every player, once connected, waits here for the others: then all seek at once.
    let all_set = Arc::new(Barrier::new(players));
    let patience = Duration::from_secs(config.seconds);
    let mut tasks = Vec::with_capacity(players);
    for n in 0..players {
        let (clients, stats) = (Arc::clone(&clients), Arc::clone(&stats));
        let (connecting, all_set) = (Arc::clone(&connecting), Arc::clone(&all_set));
        tasks.push(tokio::spawn(async move {
            let client = &clients[n % clients.len()];
            let seen = player(client, n, &connecting, &all_set, patience).await;
            seen.unwrap_or_else(|why| {
                stats.error(why);
                Seen::default()
            })
        }));
    }
    let mut histograms =
        [(); 2].map(|()| Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("bounds"));
    let (mut paired, mut waited) = (0, 0);
    let mut rooms = std::collections::HashSet::new();
    for task in tasks {
        let seen = task.await.unwrap_or_default();
        waited += u64::from(seen.waited);
        if let (Some((to_paired, to_snapshot)), Some(room)) = (seen.times, seen.room) {
            paired += 1;
            rooms.insert(room);
            for (histogram, time) in histograms.iter_mut().zip([to_paired, to_snapshot]) {
                let micros = u64::try_from(time.as_micros()).unwrap_or(u64::MAX);
                histogram.saturating_record(micros.max(1));
            }
        }
    }
    Ok(SeekReport {
        servers: config.server.iter().map(ToString::to_string).collect(),
        players: config.players,
        paired,
        rooms: rooms.len() as u64,
        waited,
        seek_to_paired: Latency::of(&histograms[0]),
        seek_to_snapshot: Latency::of(&histograms[1]),
        errors: stats.errors(),
        error_kinds: stats.error_kinds(),
    })
}

/// Player `n`: connects, waits for everyone, seeks, and once paired joins its room.
async fn player(
    client: &Client,
    n: usize,
    connecting: &Semaphore,
    all_set: &Barrier,
    patience: Duration,
) -> Result<Seen, String> {
    let connection = {
        let _turn = connecting.acquire().await.map_err(|e| e.to_string())?;
        async {
            let mut connection = client.connect().await?;
            connection.hello(false).await?;
            Ok::<_, punct_client::Error>(connection)
        }
        .await
    };
    // Every player reaches the barrier, connected or not, or the others wait for ever.
    all_set.wait().await;
    let mut connection = connection.map_err(|e| format!("connect: {}", e.chain()))?;
    let sought = Instant::now();
    let deadline = sought + patience;
    connection
        .send(|id| ClientMessage::Seek {
            id,
            variant: Variant::Standard,
            clock: TimeControl::clock(300, 3),
            rated: false,
            range: None,
            name: None,
            guest: Some(format!("load-{n}")),
        })
        .await
        .map_err(|e| format!("seek: {}", e.chain()))?;
    let mut seen = Seen::default();
    loop {
        let message = tokio::time::timeout_at(deadline, connection.recv())
            .await
            .map_err(|_| "not paired in time".to_owned())?
            .map_err(|e| format!("seeking: {}", e.chain()))?;
        match message {
            ServerMessage::Seeking { .. } => seen.waited = true,
            ServerMessage::Paired { room, token, .. } => {
                let to_paired = sought.elapsed();
                let join = connection.request(|id| ClientMessage::Join {
                    id,
                    room: room.clone(),
                    token: Some(token),
                    since: None,
                });
                match tokio::time::timeout_at(deadline, join).await {
                    Ok(Ok(ServerMessage::Snapshot { .. })) => {
                        seen.times = Some((to_paired, sought.elapsed()));
                        seen.room = Some(room);
                        return Ok(seen);
                    }
                    Ok(Ok(other)) => return Err(format!("join answered {}", kind(&other))),
                    Ok(Err(e)) => return Err(format!("join: {}", e.chain())),
                    Err(_) => return Err("no snapshot in time".to_owned()),
                }
            }
            ServerMessage::Error { code, .. } => return Err(format!("seek refused: {code}")),
            ServerMessage::SeekEnded { .. } => return Err("seek ended".to_owned()),
            _ => {}
        }
    }
}

/// A message's type, for an error.
fn kind(message: &ServerMessage) -> String {
    serde_json::to_value(message)
        .ok()
        .and_then(|v| v["type"].as_str().map(str::to_owned))
        .unwrap_or_default()
}
