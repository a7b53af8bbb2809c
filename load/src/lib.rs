//! `punct load`: puts a running `punct-server` under the load of many real games.
//!
//! It creates rooms over HTTP, seats two simulated players in each over real WebSockets,
//! who play random legal turns (chosen with `punct-rules`) at a set overall pace, adds
//! spectators to every room and, if asked, idle connections that only say hello. It
//! measures what operators judge a server by, and what players feel: connections held,
//! turns per second, the time from sending a turn to the mover's ack, to the mover's own
//! `turn_played`, to the opponent's `turn_played` and (with the lists) `your_turn`, and
//! to the last spectator's `turn_played`; errors, dropped connections, the server's
//! resident memory, and its CPU time per acknowledged turn. Its sockets are ordinary ones
//! (no `TCP_NODELAY`, nothing tuned), as a player's are.
//! At the end it fetches every room's record to check that every acknowledged turn is
//! there.
//!
//! It only ever targets loopback, and stops by itself after `--seconds`.
//!
//! # Layout
//!
//! - [`LoadConfig`]: what to run (flags of `punct load`), and [`run`], which runs it.
//! - `arena`: the other load, an arena tournament of many players
//!   ([`ArenaConfig`], [`run_arena`]), timing how soon a player is paired again.
//! - `seek`: quick pairing: many players seeking at once ([`SeekConfig`],
//!   [`run_seek`]), timing each from its seek to its room's first snapshot.
//! - `room`: one room's players and spectators, and the idle connections.
//! - `net`: `punct-client` connections from chosen loopback source addresses, counted
//!   while they live, and a quick look at the server's messages.
//! - `stats`: the shared counters and latency samples, and the [`Report`].
//! - `process`: finds the server's process from its listening port and reads its memory
//!   and CPU time.

mod arena;
mod net;
mod process;
mod room;
mod seek;
mod stats;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::Instant;

pub use arena::{ArenaConfig, ArenaReport, run as run_arena};
pub use seek::{SeekConfig, SeekReport, run as run_seek};
pub use stats::{Latency, Report};

use room::Plan;
use stats::Stats;

/// What a load run does. Every field is a flag of `punct load`.
#[derive(Clone, Debug, clap::Args)]
pub struct LoadConfig {
    /// The server's address; only loopback addresses are accepted. For a cluster, its
    /// nodes, comma-separated: each room's members are spread over them (its players and
    /// spectators on different nodes), and memory is the sum over the nodes.
    #[arg(long, default_value = "127.0.0.1:8080", value_delimiter = ',')]
    pub server: Vec<SocketAddr>,
    /// Rooms to create, each with two players.
    #[arg(long, default_value_t = 10)]
    pub rooms: usize,
    /// Spectators in every room.
    #[arg(long, default_value_t = 3)]
    pub spectators: usize,
    /// Extra connections that say hello and then only answer pings.
    #[arg(long, default_value_t = 0)]
    pub idle: usize,
    /// Turns per second over all rooms together.
    #[arg(long, default_value_t = 10.0)]
    pub rate: f64,
    /// How long the players play, in seconds, once every connection is open (at most an
    /// hour).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
    /// Loopback source addresses the client sockets are spread over (127.0.0.1,
    /// 127.0.0.2, …); each can hold about 28,000 connections to one server port.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=250))]
    pub sources: u8,
    /// Connections opened (and rooms created over HTTP) at once while setting up.
    #[arg(long, default_value_t = 64)]
    pub connect_concurrency: usize,
    /// The server's process id, for its memory, with one server; found from the listening
    /// port of each server if left out.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Print a line of progress every second (on standard error).
    #[arg(long)]
    pub progress: bool,
    /// Players and spectators whose connection drops (their node died) connect again,
    /// to the next server, and play on; a turn in flight is played again unless the
    /// room's snapshot shows it was stored. For failover runs against a cluster.
    #[arg(long)]
    pub reconnect: bool,
    /// Append a line `SENT ACKED` (Unix milliseconds) to FILE for every turn acknowledged
    /// a quarter of a second or more after it was sent: the turns a failover held up.
    #[arg(long, value_name = "FILE")]
    pub slow_turns: Option<std::path::PathBuf>,
    /// Have the server send the players every legal turn (`your_turn`), as it does for
    /// the web page. By default the simulated players find their turns with the rules
    /// crate and say so in `hello`, as the terminal client does.
    #[arg(long)]
    pub legal_turns: bool,
}

impl Default for LoadConfig {
    fn default() -> LoadConfig {
        LoadConfig {
            server: vec![SocketAddr::from((Ipv4Addr::LOCALHOST, 8080))],
            rooms: 10,
            spectators: 3,
            idle: 0,
            rate: 10.0,
            seconds: 30,
            sources: 8,
            connect_concurrency: 64,
            server_pid: None,
            progress: false,
            legal_turns: false,
            reconnect: false,
            slow_turns: None,
        }
    }
}

/// Why a load run could not be made.
#[derive(Debug)]
pub enum LoadError {
    /// The server address is not a loopback address.
    NotLoopback(SocketAddr),
    /// The process may not open enough files for the connections asked for.
    TooFewFiles {
        /// Connections the run needs.
        needed: u64,
        /// The most files this process may open.
        limit: u64,
    },
    /// The rate is not a positive number.
    BadRate(f64),
    /// Setting up a room or a connection failed before the clock started.
    Setup(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::NotLoopback(addr) => {
                write!(
                    f,
                    "{addr} is not a loopback address: punct load only targets this machine"
                )
            }
            LoadError::TooFewFiles { needed, limit } => write!(
                f,
                "{needed} connections need more open files than the limit of {limit} (raise `ulimit -n`)"
            ),
            LoadError::BadRate(rate) => write!(f, "the rate must be a positive number, not {rate}"),
            LoadError::Setup(why) => write!(f, "setting up failed: {why}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// One client per source address (`127.0.0.1` up to `127.0.0.sources`) and server, the
/// servers alternating: connections taken one after the other are on different nodes.
pub(crate) fn clients(
    servers: &[SocketAddr],
    sources: u8,
) -> Result<Vec<punct_client::Client>, LoadError> {
    if let Some(&far) = servers.iter().find(|addr| !addr.ip().is_loopback()) {
        return Err(LoadError::NotLoopback(far));
    }
    let servers = servers
        .iter()
        .map(|addr| format!("http://{addr}").parse::<punct_client::Server>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(LoadError::Setup)?;
    (1..=sources)
        .flat_map(|n| servers.iter().map(move |server| (n, server)))
        .map(|(n, server)| {
            punct_client::Client::builder(server.clone())
                .local_address(Ipv4Addr::new(127, 0, 0, n).into())
                .build()
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| LoadError::Setup(e.chain()))
}

/// Runs the load described by `config` and reports what it measured.
pub async fn run(config: LoadConfig) -> Result<Report, LoadError> {
    if let Some(&far) = config.server.iter().find(|addr| !addr.ip().is_loopback()) {
        return Err(LoadError::NotLoopback(far));
    }
    if config.server.is_empty() {
        return Err(LoadError::Setup("no server given".into()));
    }
    if !(config.rate.is_finite() && config.rate > 0.0) {
        return Err(LoadError::BadRate(config.rate));
    }
    let connections = (config.rooms * (2 + config.spectators) + config.idle) as u64;
    // Headroom for the HTTP requests, the runtime and standard streams.
    let needed = connections + 64;
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0);
    if limit < needed {
        return Err(LoadError::TooFewFiles { needed, limit });
    }
    let server_pids: Vec<u32> = match config.server_pid {
        Some(pid) if config.server.len() == 1 => vec![pid],
        _ => config
            .server
            .iter()
            .filter_map(|addr| process::listening_pid(addr.port()))
            .collect(),
    };
    // The servers' memory together, if every one was found.
    let rss = || {
        (server_pids.len() == config.server.len())
            .then(|| server_pids.iter().map(|&pid| process::rss_bytes(pid)).sum())
            .flatten()
    };
    // Their CPU time together, likewise.
    let cpu = || {
        (server_pids.len() == config.server.len())
            .then(|| {
                server_pids
                    .iter()
                    .map(|&pid| process::cpu_seconds(pid))
                    .sum::<Option<f64>>()
            })
            .flatten()
    };
    let rss_before = rss();

    let stats = Arc::new(Stats::default());
    let (start_tx, start) = watch::channel(None);
    let (ready_tx, mut ready) = mpsc::channel(64);
    let clients = clients(&config.server, config.sources)?;
    let plan = Arc::new(Plan {
        clients,
        spectators: config.spectators,
        // Each room plays one turn per interval, so all rooms together play `rate`.
        interval: Duration::from_secs_f64(config.rooms as f64 / config.rate),
        connecting: Semaphore::new(config.connect_concurrency.max(1)),
        stats: Arc::clone(&stats),
        start,
        next_source: AtomicUsize::new(0),
        legal_turns: config.legal_turns,
        reconnect: config.reconnect,
        slow_turns: match &config.slow_turns {
            Some(path) => Some(std::sync::Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| LoadError::Setup(format!("{}: {e}", path.display())))?,
            )),
            None => None,
        },
    });
    let mut tasks = Vec::new();
    for n in 0..config.rooms {
        let plan = Arc::clone(&plan);
        let ready = ready_tx.clone();
        tasks.push(tokio::spawn(room::play(plan, n, ready)));
    }
    let mut idlers = Vec::new();
    for _ in 0..config.idle {
        idlers.push(tokio::spawn(room::idle(
            Arc::clone(&plan),
            ready_tx.clone(),
        )));
    }
    drop(ready_tx);

    let setup_started = Instant::now();
    for done in 0..config.rooms + config.idle {
        match ready.recv().await {
            Some(Ok(())) => {}
            Some(Err(why)) => {
                let _ = start_tx.send(Some(Stop::Abort));
                return Err(LoadError::Setup(why));
            }
            None => {
                return Err(LoadError::Setup(format!(
                    "{done} set up, then the tasks ended"
                )));
            }
        }
        if config.progress && (done + 1) % 1000 == 0 {
            eprintln!("set up {} of {}", done + 1, config.rooms + config.idle);
        }
    }
    let setup = setup_started.elapsed();
    let held_at_start = stats.connected();
    let rss_loaded = rss();

    let cpu_at_start = cpu();
    let turns_at_start = stats.turns();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(config.seconds);
    let _ = start_tx.send(Some(Stop::At(deadline)));
    let mut tick =
        tokio::time::interval_at(started + Duration::from_secs(1), Duration::from_secs(1));
    let mut last_turns = 0;
    while Instant::now() < deadline {
        tokio::select! {
            _ = tick.tick() => {}
            () = tokio::time::sleep_until(deadline) => break,
        }
        if config.progress {
            let turns = stats.turns();
            eprintln!(
                "{:>4}s  connections {}  turns/s {}  errors {}  dropped {}{}",
                started.elapsed().as_secs(),
                stats.connected(),
                turns - last_turns,
                stats.errors(),
                stats.dropped_count(),
                rss()
                    .map(|rss: u64| format!("  server memory {} MiB", rss >> 20))
                    .unwrap_or_default(),
            );
            last_turns = turns;
        }
    }
    let played = started.elapsed();
    let cpu_played = cpu().zip(cpu_at_start).map(|(end, start)| end - start);
    let turns_played = stats.turns() - turns_at_start;
    let rss_end = rss();

    let mut rooms = Vec::new();
    for task in tasks {
        match task.await {
            Ok(played) => rooms.extend(played),
            Err(e) => stats.error(format!("room task failed: {e}")),
        }
    }
    for idler in idlers {
        if let Err(e) = idler.await {
            stats.error(format!("idle task failed: {e}"));
        }
    }
    let unpersisted = room::unpersisted(&plan, &rooms).await;

    Ok(stats.report(stats::Run {
        config: &config,
        connections,
        held_at_start,
        setup,
        played,
        unpersisted,
        rooms: rooms.len(),
        rss: [rss_before, rss_loaded, rss_end],
        cpu: cpu_played.map(|seconds| (seconds, turns_played)),
    }))
}

/// When the room and idle tasks stop.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// Play until then.
    At(Instant),
    /// Setting up failed elsewhere: stop now.
    Abort,
}
