//! `punct-load arena`: an arena tournament of many players, played through the server
//! as its players would, measuring how soon a player whose game ended is paired again.
//!
//! Each player is an account with two connections: one follows the tournament (where
//! its pairings arrive, as `tournament_game`), the other is in its current game's room.
//! A player plays a random legal turn a set time after the opponent's, so the games end
//! by the rules (or on the clock) as real ones do. The time measured is from the
//! `game_over` a player receives to the next `tournament_game` it receives: what a
//! player waits between two games.

use std::collections::{BTreeMap, HashSet};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fastrand::Rng;
use hdrhistogram::Histogram;
use punct_client::Client;
use punct_protocol::{
    ClientMessage, CreateTournament, TimeControl, TournamentFormat, TournamentView,
};
use punct_rules::{Color, Game, Turn, Variant};
use serde::Serialize;
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

use crate::net::{Conn, Incoming};
use crate::stats::{Latency, Stats};
use crate::{LoadError, process};

/// How long after the arena's end the players wait for their last games to end.
const LAST_GAMES: Duration = Duration::from_secs(60);
/// Every account's password.
const PASSWORD: &str = "arena-load-password";

/// What an arena run does. Every field is a flag of `punct-load arena`.
#[derive(Clone, Debug, clap::Args)]
pub struct ArenaConfig {
    /// The server's address; only loopback addresses are accepted.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub server: SocketAddr,
    /// Players in the arena, each a new account (the server must let this machine
    /// register that many: `--sign-ins-per-minute 0`).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub players: u64,
    /// How long the arena lasts from its start, in seconds.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
    /// Seconds from creating the arena to its start: the time the players have to
    /// register, connect and join (those not done by then join it running).
    #[arg(long, default_value_t = 30)]
    pub lead: u64,
    /// Milliseconds a player takes over each turn.
    #[arg(long, default_value_t = 200)]
    pub turn_ms: u64,
    /// Seconds on each player's clock for a game (no increment).
    #[arg(long, default_value_t = 300)]
    pub clock: u32,
    /// Loopback source addresses the client sockets are spread over (127.0.0.1, …).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=250))]
    pub sources: u8,
    /// Accounts registered (and connections opened) at once while setting up.
    #[arg(long, default_value_t = 16)]
    pub connect_concurrency: usize,
    /// The server's process id, for its memory; found from its listening port if left
    /// out.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Print a line of progress every ten seconds (on standard error).
    #[arg(long)]
    pub progress: bool,
}

impl Default for ArenaConfig {
    fn default() -> ArenaConfig {
        ArenaConfig {
            server: SocketAddr::from((Ipv4Addr::LOCALHOST, 8080)),
            players: 100,
            seconds: 300,
            lead: 30,
            turn_ms: 200,
            clock: 300,
            sources: 8,
            connect_concurrency: 16,
            server_pid: None,
            progress: false,
        }
    }
}

/// What an arena run measured. Serialises as the JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct ArenaReport {
    /// The server's address.
    pub server: String,
    /// Players asked for.
    pub players: u64,
    /// Players who joined the arena.
    pub joined: u64,
    /// The arena's length, in seconds.
    pub seconds: u64,
    /// Time to register everyone.
    pub register_seconds: f64,
    /// Time to connect, follow and join everyone.
    pub setup_seconds: f64,
    /// Turns acknowledged.
    pub turns: u64,
    /// Pairings the players received (`tournament_game`).
    pub pairings: u64,
    /// Games the players saw end (each game counted by both its players).
    pub game_ends: u64,
    /// Of those, the ends before the arena's end: each is followed by a pairing or
    /// counted in `unpaired`.
    pub game_ends_in_time: u64,
    /// From the arena's start to a player's first pairing.
    pub first_pairing: Latency,
    /// From a player's `game_over` to its next `tournament_game`; a pairing that came
    /// before the `game_over` (on the other connection) counts as no wait.
    pub next_pairing: Latency,
    /// Of those, the pairings that came before the `game_over`.
    pub paired_before_end: u64,
    /// Game ends before the arena's end that no pairing followed (the arena pairs two
    /// who just met again only after ten seconds, so a few are expected at its end).
    pub unpaired: u64,
    /// Everything that went wrong.
    pub errors: u64,
    /// What went wrong, by kind.
    pub error_kinds: BTreeMap<String, u64>,
    /// The server's resident memory before the run, in bytes.
    pub server_rss_before: Option<u64>,
    /// The server's resident memory with every account registered.
    pub server_rss_registered: Option<u64>,
    /// The server's resident memory with everyone joined.
    pub server_rss_joined: Option<u64>,
    /// The most resident memory seen while the arena ran.
    pub server_rss_peak: Option<u64>,
    /// The server's resident memory at the end.
    pub server_rss_end: Option<u64>,
}

impl std::fmt::Display for ArenaReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |bytes: Option<u64>| match bytes {
            Some(b) => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
            None => "unknown".into(),
        };
        writeln!(
            f,
            "arena on {}: {} players ({} joined) for {} s, registered in {:.1} s, joined in {:.1} s",
            self.server,
            self.players,
            self.joined,
            self.seconds,
            self.register_seconds,
            self.setup_seconds
        )?;
        writeln!(
            f,
            "games              {} pairings received, {} game ends seen ({} before the end), {} turns",
            self.pairings, self.game_ends, self.game_ends_in_time, self.turns
        )?;
        writeln!(f, "start to pairing   {}", self.first_pairing)?;
        writeln!(
            f,
            "end to next pairing {} ({} came before the game_over)",
            self.next_pairing, self.paired_before_end
        )?;
        writeln!(f, "unpaired ends      {}", self.unpaired)?;
        writeln!(f, "errors             {}", self.errors)?;
        for (why, count) in &self.error_kinds {
            writeln!(f, "  {count} x {why}")?;
        }
        write!(
            f,
            "server memory      {} before, {} registered, {} joined, {} peak, {} at the end",
            mib(self.server_rss_before),
            mib(self.server_rss_registered),
            mib(self.server_rss_joined),
            mib(self.server_rss_peak),
            mib(self.server_rss_end)
        )
    }
}

/// What every player's task shares.
struct Arena {
    /// Bounds the registrations and connections under way at once.
    connecting: Semaphore,
    /// The tournament's id.
    tournament: String,
    /// When it starts.
    starts_at: Instant,
    /// When it ends: nobody is paired after it.
    ends_at: Instant,
    /// A player's time over each turn.
    think: Duration,
    /// Connections and errors.
    stats: Arc<Stats>,
    /// Turns acknowledged.
    turns: AtomicU64,
    /// Pairings received.
    pairings: AtomicU64,
    /// Games seen to end.
    game_ends: AtomicU64,
    /// Games seen to end before the arena did.
    game_ends_in_time: AtomicU64,
    /// Game ends no pairing followed.
    unpaired: AtomicU64,
    /// Pairings that came before the end of the game being played was read.
    early: AtomicU64,
    /// From the start to a player's first pairing, and from a game's end to the next
    /// (microseconds).
    waits: std::sync::Mutex<[Histogram<u64>; 2]>,
}

impl Arena {
    /// Records a wait: before the first pairing (`first`) or between two games.
    fn waited(&self, first: bool, wait: Duration) {
        let micros = u64::try_from(wait.as_micros()).unwrap_or(u64::MAX);
        let mut waits = self
            .waits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        waits[usize::from(!first)].saturating_record(micros.max(1));
    }
}

/// Runs the arena described by `config` and reports what it measured.
pub async fn run(config: ArenaConfig) -> Result<ArenaReport, LoadError> {
    if !config.server.ip().is_loopback() {
        return Err(LoadError::NotLoopback(config.server));
    }
    let players = usize::try_from(config.players).unwrap_or(usize::MAX);
    // Two connections a player, and headroom.
    let needed = config.players * 2 + 64;
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0);
    if limit < needed {
        return Err(LoadError::TooFewFiles { needed, limit });
    }
    let pid = config
        .server_pid
        .or_else(|| process::listening_pid(config.server.port()));
    let rss = || pid.and_then(process::rss_bytes);
    let rss_before = rss();
    let server = format!("http://{}", config.server)
        .parse::<punct_client::Server>()
        .map_err(LoadError::Setup)?;
    let clients = (1..=config.sources)
        .map(|n| {
            Client::builder(server.clone())
                .local_address(Ipv4Addr::new(127, 0, 0, n).into())
                .build()
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| LoadError::Setup(e.chain()))?;
    let setup_started = Instant::now();

    // Every account first: a sign-up hashes its password with Argon2 (19 MiB each),
    // which leaves the server's memory far larger than the arena's own.
    let prefix = format!("a{:05x}", fastrand::u32(..0x10_0000));
    let signed_in = register(&clients, &prefix, players, config.connect_concurrency).await?;
    let registered = setup_started.elapsed();
    let rss_registered = rss();
    let setup_started = Instant::now();

    // An organiser who does not play creates the arena.
    let organiser = clients[0]
        .register(&format!("{prefix}org"), PASSWORD)
        .await
        .map_err(|e| LoadError::Setup(format!("register: {}", e.chain())))?;
    let organiser = clients[0].with_session(&organiser.token);
    let epoch_ms = |at: SystemTime| {
        i64::try_from(
            at.duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_millis(),
        )
        .unwrap_or(i64::MAX)
    };
    let lead = Duration::from_secs(config.lead);
    let length = Duration::from_secs(config.seconds);
    let starts = SystemTime::now() + lead;
    let create = CreateTournament {
        name: "Load arena".into(),
        format: TournamentFormat::Arena,
        variant: Variant::Standard,
        clock: Some(TimeControl {
            base: config.clock,
            increment: 0,
            days: None,
        }),
        rated: false,
        starts_at: epoch_ms(starts),
        ends_at: Some(epoch_ms(starts + length)),
        rounds: None,
        min_players: 2,
        max_players: u32::try_from(config.players).unwrap_or(u32::MAX),
    };
    let body = serde_json::to_string(&create).expect("requests serialise");
    let (status, answer) = organiser
        .send("POST", "api/tournaments", &body)
        .await
        .map_err(|e| LoadError::Setup(format!("create the arena: {}", e.chain())))?;
    if status != 201 {
        return Err(LoadError::Setup(format!(
            "create the arena: {status} {answer}"
        )));
    }
    let view: TournamentView = serde_json::from_str(&answer)
        .map_err(|e| LoadError::Setup(format!("the arena: {e}: {answer}")))?;
    let starts_at = Instant::now() + lead;

    let arena = Arc::new(Arena {
        connecting: Semaphore::new(config.connect_concurrency.max(1)),
        tournament: view.summary.id,
        starts_at,
        ends_at: starts_at + length,
        think: Duration::from_millis(config.turn_ms),
        stats: Arc::new(Stats::default()),
        turns: AtomicU64::new(0),
        pairings: AtomicU64::new(0),
        game_ends: AtomicU64::new(0),
        game_ends_in_time: AtomicU64::new(0),
        unpaired: AtomicU64::new(0),
        early: AtomicU64::new(0),
        waits: std::sync::Mutex::new(
            [(); 2].map(|()| Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("bounds")),
        ),
    });
    let (ready_tx, mut ready) = mpsc::channel(64);
    let tasks: Vec<_> = signed_in
        .into_iter()
        .enumerate()
        .map(|(n, client)| tokio::spawn(player(Arc::clone(&arena), n, client, ready_tx.clone())))
        .collect();
    drop(ready_tx);
    let mut joined = 0;
    while let Some(done) = ready.recv().await {
        match done {
            Ok(()) => joined += 1,
            Err(why) => arena.stats.error(format!("setting up: {why}")),
        }
        if config.progress && (joined % 100 == 0) {
            eprintln!("joined {joined} of {players}");
        }
    }
    let setup = setup_started.elapsed();
    let rss_joined = rss();

    // Memory is sampled every second while the arena runs; its peak is reported.
    let mut peak = rss_joined;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut remaining = tasks.len();
    let mut tasks = tasks;
    let mut last_report = Instant::now();
    while remaining > 0 {
        tick.tick().await;
        if let Some(now) = rss() {
            peak = Some(peak.map_or(now, |p: u64| p.max(now)));
        }
        remaining = tasks.iter().filter(|t| !t.is_finished()).count();
        if config.progress && last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            eprintln!(
                "{:>5.0}s  pairings {}  game ends {}  turns {}  errors {}  players left {}{}",
                Instant::now()
                    .saturating_duration_since(arena.starts_at)
                    .as_secs_f64(),
                arena.pairings.load(Ordering::Relaxed),
                arena.game_ends.load(Ordering::Relaxed),
                arena.turns.load(Ordering::Relaxed),
                arena.stats.errors(),
                remaining,
                rss()
                    .map(|rss| format!("  server memory {} MiB", rss >> 20))
                    .unwrap_or_default(),
            );
        }
    }
    for task in tasks.drain(..) {
        if let Err(e) = task.await {
            arena.stats.error(format!("player task failed: {e}"));
        }
    }
    let rss_end = rss();
    let [first, next] = {
        let waits = arena
            .waits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        [Latency::of(&waits[0]), Latency::of(&waits[1])]
    };
    let error_kinds = arena.stats.error_kinds();
    Ok(ArenaReport {
        server: config.server.to_string(),
        players: config.players,
        joined,
        seconds: config.seconds,
        register_seconds: registered.as_secs_f64(),
        setup_seconds: setup.as_secs_f64(),
        turns: arena.turns.load(Ordering::Relaxed),
        pairings: arena.pairings.load(Ordering::Relaxed),
        game_ends: arena.game_ends.load(Ordering::Relaxed),
        game_ends_in_time: arena.game_ends_in_time.load(Ordering::Relaxed),
        first_pairing: first,
        next_pairing: next,
        paired_before_end: arena.early.load(Ordering::Relaxed),
        unpaired: arena.unpaired.load(Ordering::Relaxed),
        errors: error_kinds.values().sum(),
        error_kinds,
        server_rss_before: rss_before,
        server_rss_registered: rss_registered,
        server_rss_joined: rss_joined,
        server_rss_peak: peak,
        server_rss_end: rss_end,
    })
}

/// Registers `players` accounts named after `prefix`, `concurrency` at once, spread over
/// `clients`: a client signed in to each.
async fn register(
    clients: &[Client],
    prefix: &str,
    players: usize,
    concurrency: usize,
) -> Result<Vec<Client>, LoadError> {
    let limit = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = Vec::with_capacity(players);
    for n in 0..players {
        let client = clients[n % clients.len()].clone();
        let username = format!("{prefix}p{n}");
        let limit = Arc::clone(&limit);
        tasks.push(tokio::spawn(async move {
            let _permit = limit.acquire().await.expect("never closed");
            let session = client.register(&username, PASSWORD).await;
            session.map(|session| client.with_session(&session.token))
        }));
    }
    let mut signed_in = Vec::with_capacity(players);
    for task in tasks {
        let client = task
            .await
            .map_err(|e| LoadError::Setup(format!("register: {e}")))?
            .map_err(|e| LoadError::Setup(format!("register: {}", e.chain())))?;
        signed_in.push(client);
    }
    Ok(signed_in)
}

/// Player `n`, signed in with `client`: follows the arena and joins it (reported on `ready`), then
/// plays every game it is paired for until the arena is over.
async fn player(
    arena: Arc<Arena>,
    n: usize,
    client: Client,
    ready: mpsc::Sender<Result<(), String>>,
) {
    let set_up = Player::set_up(&arena, client).await;
    let ok = set_up.as_ref().map(|_| ()).map_err(Clone::clone);
    let _ = ready.send(ok).await;
    drop(ready);
    let Ok(mut player) = set_up else {
        return;
    };
    if let Err(why) = player.play(&arena, n).await {
        arena.stats.error(why);
    }
}

/// One player: its account, the connection that follows the arena, and its game.
struct Player {
    /// A client signed in as the player.
    client: Client,
    /// The connection that follows the arena.
    follow: Conn,
}

/// A game being played.
struct Playing {
    /// The room's connection.
    conn: Conn,
    /// The player's colour.
    color: Color,
    /// The game, as the room told it.
    game: Game,
    /// When the last turn was seen: the player answers a while after.
    since: Instant,
    /// The turn sent and not yet seen played, by number.
    sent: Option<usize>,
}

impl Player {
    async fn set_up(arena: &Arena, client: Client) -> Result<Player, String> {
        let _permit = arena.connecting.acquire().await.expect("never closed");
        let mut follow = Conn::open(&client, false, &arena.stats).await?;
        let tournament = arena.tournament.clone();
        follow
            .request(|id| ClientMessage::Follow { id, tournament })
            .await?;
        let path = format!("api/tournaments/{}/join", arena.tournament);
        let (status, body) = client
            .send("POST", &path, "")
            .await
            .map_err(|e| format!("join: {}", e.chain()))?;
        if status != 200 {
            return Err(format!("join: {status} {}", body.trim()));
        }
        Ok(Player { client, follow })
    }

    /// Plays the games the arena pairs it for, until it is over (and the last game
    /// ended, or [`LAST_GAMES`] passed).
    async fn play(&mut self, arena: &Arena, n: usize) -> Result<(), String> {
        let mut rng = Rng::with_seed(0xA7E7A + n as u64);
        let mut rooms = HashSet::new();
        let mut ended: Option<Instant> = None;
        let mut first = true;
        let mut playing: Option<Playing> = None;
        // A pairing that came before the end of the game being played was read.
        let mut early: Option<(String, Color)> = None;
        let stop = arena.ends_at + LAST_GAMES;
        loop {
            let now = Instant::now();
            if playing.is_none() && now >= arena.ends_at || now >= stop {
                break;
            }
            // The player's turn, a while after the last one.
            let answer_at = playing
                .as_ref()
                .filter(|p| p.sent.is_none() && p.game.to_move() == p.color)
                .map(|p| p.since + arena.think);
            let wait_until = if playing.is_some() {
                stop
            } else {
                arena.ends_at
            };
            tokio::select! {
                incoming = self.follow.recv() => {
                    let Incoming::Pairing { room, color } = incoming? else { continue };
                    if !rooms.insert(room.clone()) {
                        continue;
                    }
                    let received = Instant::now();
                    arena.pairings.fetch_add(1, Ordering::Relaxed);
                    if playing.is_some() {
                        // Paired before this player read its game's end on the other
                        // connection: it waits for nothing.
                        if early.replace((room, color)).is_some() {
                            arena.stats.error("paired twice during one game".into());
                        }
                        continue;
                    }
                    if first {
                        arena.waited(true, received.saturating_duration_since(arena.starts_at));
                        first = false;
                    } else if let Some(end) = ended.take() {
                        arena.waited(false, received.saturating_duration_since(end));
                    }
                    playing = Some(self.enter(arena, room, color).await?);
                }
                incoming = next(&mut playing) => {
                    let Some(game) = &mut playing else { continue };
                    match incoming? {
                        Incoming::Turn { number, turn } => game.played(number, &turn)?,
                        Incoming::Reply { .. } => {
                            arena.turns.fetch_add(1, Ordering::Relaxed);
                        }
                        Incoming::Error { code, .. } => {
                            arena.stats.error(format!("turn refused: {code}"));
                            game.sent = None;
                        }
                        Incoming::GameOver => {
                            let end = Instant::now();
                            arena.game_ends.fetch_add(1, Ordering::Relaxed);
                            if end < arena.ends_at {
                                arena.game_ends_in_time.fetch_add(1, Ordering::Relaxed);
                                ended = Some(end);
                            }
                            playing = None;
                            if let Some((room, color)) = early.take() {
                                arena.waited(false, Duration::ZERO);
                                arena.early.fetch_add(1, Ordering::Relaxed);
                                ended = None;
                                playing = Some(self.enter(arena, room, color).await?);
                            }
                        }
                        _ => {}
                    }
                }
                () = sleep_until(answer_at) => {
                    let Some(game) = &mut playing else { continue };
                    game.answer(&mut rng).await?;
                }
                () = tokio::time::sleep_until(wait_until) => {}
            }
        }
        if ended.is_some() {
            arena.unpaired.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Enters the room of a game it was paired for, as `color`.
    async fn enter(&self, arena: &Arena, room: String, color: Color) -> Result<Playing, String> {
        let mut conn = Conn::open(&self.client, false, &arena.stats).await?;
        let turns = conn
            .enter(|id| ClientMessage::Join {
                id,
                room,
                token: None,
                since: None,
            })
            .await?;
        let mut game = Game::new(Variant::Standard);
        for turn in turns {
            game.play(turn)
                .map_err(|e| format!("the room's turn was refused by the rules: {e}"))?;
        }
        Ok(Playing {
            conn,
            color,
            game,
            since: Instant::now(),
            sent: None,
        })
    }
}

impl Playing {
    /// Turn `number`, `turn` in notation, was played in the room.
    fn played(&mut self, number: usize, turn: &str) -> Result<(), String> {
        if number != self.game.turns().len() + 1 {
            return Ok(());
        }
        let turn: Turn = turn
            .parse()
            .map_err(|e| format!("unreadable turn {turn}: {e:?}"))?;
        self.game
            .play(turn)
            .map_err(|e| format!("the room's turn was refused by the rules: {e}"))?;
        self.since = Instant::now();
        self.sent = None;
        Ok(())
    }

    /// Plays a random legal turn, any of them alike: most are drops, which use up the
    /// reserves, so games end within a few dozen turns each.
    async fn answer(&mut self, rng: &mut Rng) -> Result<(), String> {
        let legal = self.game.legal_turns();
        let turn = legal[rng.usize(..legal.len())];
        let number = self.game.turns().len() + 1;
        self.conn
            .send(|id| ClientMessage::Play {
                id,
                turn,
                number: u32::try_from(number).ok(),
            })
            .await?;
        self.sent = Some(number);
        Ok(())
    }
}

/// The next message of the game being played; never, without one.
async fn next(playing: &mut Option<Playing>) -> Result<Incoming, String> {
    match playing {
        Some(playing) => playing.conn.recv().await,
        None => std::future::pending().await,
    }
}

/// Completes at `at`; never, without it.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
