//! One room's two players and its spectators, and the idle connections.
//!
//! A room's players are driven by one task, which holds the game and plays a random
//! legal turn for whoever is to move at each tick of the room's pace, then reads both
//! players' sockets until the turn has reached them as a real client sees it: the
//! mover's `ack` and own `turn_played`, the opponent's `turn_played` and, with the
//! lists, `your_turn`. Each spectator has a task of its own that reads the room's events
//! and reports when each turn has reached it; the turn's fan-out latency is the time
//! until it has reached them all.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fastrand::Rng;
use punct_client::Client;
use punct_protocol::{ClientMessage, CreateRoom, RequestId, SeatChoice, Visibility};
use punct_rules::{Game, Turn, Variant};
use tokio::sync::{Notify, Semaphore, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::Stop;

/// A turn acknowledged this long after it was sent or more is written to `--slow-turns`.
const SLOW_TURN: Duration = Duration::from_millis(250);
/// How long a room keeps trying to play a turn after its connections dropped.
const GIVE_UP: Duration = Duration::from_secs(60);
/// A turn not done after this long is reported on standard error.
const STALLED: Duration = Duration::from_secs(20);
/// The wait between two tries to enter a room again.
const REENTER_WAIT: Duration = Duration::from_millis(100);
use crate::net::{Conn, Incoming};
use crate::stats::{Measure, Stats};

/// What every room and idle task shares.
pub(crate) struct Plan {
    /// A client of the server from each loopback source address, used in turn.
    pub(crate) clients: Vec<Client>,
    /// Spectators per room.
    pub(crate) spectators: usize,
    /// Time between two turns of one room.
    pub(crate) interval: Duration,
    /// Bounds the connections being opened at once.
    pub(crate) connecting: Semaphore,
    /// Where everything is counted.
    pub(crate) stats: Arc<Stats>,
    /// Says when play starts and ends.
    pub(crate) start: watch::Receiver<Option<Stop>>,
    /// Spreads sockets over the sources.
    pub(crate) next_source: AtomicUsize,
    /// Whether connections ask for the legal turns.
    pub(crate) legal_turns: bool,
    /// Whether dropped connections connect again and play on.
    pub(crate) reconnect: bool,
    /// Where the turns a failover held up are written.
    pub(crate) slow_turns: Option<Mutex<std::fs::File>>,
}

impl Plan {
    /// The client of the next source address.
    fn client(&self) -> &Client {
        let n = self.next_source.fetch_add(1, Ordering::Relaxed);
        &self.clients[n % self.clients.len()]
    }

    async fn connect(&self) -> Result<Conn, String> {
        let _permit = self.connecting.acquire().await.expect("never closed");
        Conn::open(self.client(), self.legal_turns, &self.stats).await
    }

    /// Enters a room again after a drop, with the request `make(id)`, on the first
    /// server that takes it (trying each source and server in turn); answers the
    /// connection and how many turns the room has had.
    async fn reenter(
        &self,
        make: impl Fn(RequestId) -> ClientMessage,
    ) -> Result<(Conn, usize), String> {
        let mut why = String::new();
        for _ in 0..self.clients.len() {
            let entered = match self.connect().await {
                Ok(mut conn) => conn.enter(&make).await.map(|turns| (conn, turns.len())),
                Err(e) => Err(e),
            };
            match entered {
                Ok(entered) => return Ok(entered),
                Err(e) => why = e,
            }
        }
        Err(why)
    }

    /// Notes a turn acknowledged `took` after it was sent, if a failover held it up.
    fn note_slow(&self, took: Duration) {
        let Some(file) = &self.slow_turns else {
            return;
        };
        if took < SLOW_TURN {
            return;
        }
        let acked = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let line = format!("{} {}\n", (acked - took).as_millis(), acked.as_millis());
        let mut file = file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = std::io::Write::write_all(&mut *file, line.as_bytes());
    }

    /// Waits for the start; answers the end of play, or `None` if the run was called off.
    async fn started(&self) -> Option<Instant> {
        let mut start = self.start.clone();
        let stop = *start.wait_for(Option::is_some).await.ok()?;
        match stop {
            Some(Stop::At(deadline)) => Some(deadline),
            _ => None,
        }
    }
}

/// A room the load played in, and how many turns the server acknowledged there.
pub(crate) struct Played {
    /// The room's id.
    room: String,
    /// Turns acknowledged.
    acked: usize,
}

/// Sets up room `n`, reports on `ready`, then plays at the room's pace until the end of
/// the run, opening a new room whenever a game ends.
pub(crate) async fn play(
    plan: Arc<Plan>,
    n: usize,
    ready: mpsc::Sender<Result<(), String>>,
) -> Vec<Played> {
    let mut rng = Rng::with_seed(0x5EED_0000 + n as u64);
    let mut played = Vec::new();
    let set_up = Table::set_up(&plan).await;
    let ok = set_up.as_ref().map(|_| ()).map_err(Clone::clone);
    let _ = ready.send(ok).await;
    drop(ready);
    let (Ok(mut table), Some(deadline)) = (set_up, plan.started().await) else {
        return played;
    };
    // Rooms start at random points of their interval, so turns arrive evenly.
    let mut next = Instant::now() + plan.interval.mul_f64(rng.f64());
    while next < deadline {
        tokio::time::sleep_until(next).await;
        next += plan.interval;
        match table.turn(&plan, &mut rng).await {
            Ok(true) => {}
            Ok(false) => {
                plan.stats.game_finished();
                played.push(table.finish().await);
                let mut set_up = Table::set_up(&plan).await;
                // With --reconnect, a node that went away meanwhile is not the end.
                let tried = Instant::now();
                while plan.reconnect && set_up.is_err() && tried.elapsed() < GIVE_UP {
                    tokio::time::sleep(REENTER_WAIT).await;
                    set_up = Table::set_up(&plan).await;
                }
                table = match set_up {
                    Ok(table) => table,
                    Err(why) => {
                        plan.stats.error(why);
                        return played;
                    }
                };
            }
            Err(why) => {
                plan.stats.dropped(why);
                played.push(table.finish().await);
                return played;
            }
        }
    }
    played.push(table.finish().await);
    played
}

/// Opens an idle connection, reports on `ready`, and answers pings until the end.
pub(crate) async fn idle(plan: Arc<Plan>, ready: mpsc::Sender<Result<(), String>>) {
    let conn = plan.connect().await;
    let ok = conn.as_ref().map(|_| ()).map_err(Clone::clone);
    let _ = ready.send(ok).await;
    drop(ready);
    let (Ok(mut conn), Some(deadline)) = (conn, plan.started().await) else {
        return;
    };
    loop {
        tokio::select! {
            // Reading is what answers the server's pings.
            message = conn.recv() => if let Err(why) = message {
                plan.stats.dropped(format!("idle connection: {why}"));
                return;
            },
            () = tokio::time::sleep_until(deadline) => return,
        }
    }
}

/// Fetches every room's record; answers how many acknowledged turns are missing.
pub(crate) async fn unpersisted(plan: &Plan, rooms: &[Played]) -> u64 {
    let mut missing = 0;
    for played in rooms {
        match plan.client().record(&played.room).await {
            Ok(record) => missing += played.acked.saturating_sub(record.turns.len()) as u64,
            Err(why) => {
                plan.stats.error(format!("record: {why}"));
                missing += played.acked as u64;
            }
        }
    }
    missing
}

/// A room being played: both players' connections and the game as they know it.
struct Table {
    /// The room's id.
    room: String,
    /// White's and Black's seat tokens.
    tokens: [String; 2],
    /// White's and Black's connections.
    players: [Conn; 2],
    /// Whether the players asked for the legal turns.
    lists: bool,
    /// The game, kept by applying each acknowledged turn.
    game: Game,
    /// Turns acknowledged.
    acked: usize,
    /// The request of the turn being played, once sent.
    in_flight: Option<RequestId>,
    /// Turns on their way to the spectators.
    fanout: Arc<Fanout>,
    /// The spectators' tasks.
    spectators: Vec<JoinHandle<()>>,
}

impl Table {
    /// Creates a room over HTTP, takes both seats, and opens every connection.
    async fn set_up(plan: &Arc<Plan>) -> Result<Table, String> {
        let request = CreateRoom {
            variant: Variant::Standard,
            color: SeatChoice::White,
            visibility: Visibility::Private,
            ..CreateRoom::default()
        };
        // The HTTP requests count against the same bound as the sockets: every room
        // asking at once opened a connection per request, and left the server holding
        // thousands of idle keep-alive connections (a few KiB each) for the whole run.
        let permit = plan.connecting.acquire().await.expect("never closed");
        let white = plan
            .client()
            .create_room(&request)
            .await
            .map_err(|e| format!("create room: {}", e.chain()))?;
        let black = plan
            .client()
            .take_seat(&white.room)
            .await
            .map_err(|e| format!("take seat: {}", e.chain()))?;
        drop(permit);
        let room = white.room.clone();
        let tokens = [white.token.clone(), black.token.clone()];
        let mut players = Vec::with_capacity(2);
        for seat in [white, black] {
            let mut conn = plan.connect().await?;
            conn.request(|id| ClientMessage::Join {
                id,
                room: seat.room.clone(),
                token: Some(seat.token),
                since: None,
            })
            .await?;
            players.push(conn);
        }
        let [white, black] = <[Conn; 2]>::try_from(players).map_err(|_| "two seats")?;
        let fanout = Arc::new(Fanout::default());
        let mut spectators = Vec::with_capacity(plan.spectators);
        for _ in 0..plan.spectators {
            let mut conn = plan.connect().await?;
            conn.request(|id| ClientMessage::Watch {
                id,
                room: room.clone(),
                since: None,
            })
            .await?;
            let watching = Watching {
                plan: Arc::clone(plan),
                room: room.clone(),
                fanout: Arc::clone(&fanout),
            };
            spectators.push(tokio::spawn(watching.run(conn)));
        }
        Ok(Table {
            room,
            tokens,
            players: [white, black],
            lists: plan.legal_turns,
            game: Game::new(Variant::Standard),
            acked: 0,
            in_flight: None,
            fanout,
            spectators,
        })
    }

    /// Plays one random legal turn for the side to move; answers whether the game goes
    /// on. A refused turn is counted as an error and changes nothing. With
    /// `--reconnect`, players whose connections dropped enter the room again and the
    /// turn is played again, unless the room shows it was stored.
    async fn turn(&mut self, plan: &Plan, rng: &mut Rng) -> Result<bool, String> {
        let turn = pick(&self.game.legal_turns(), rng);
        let number = self.game.turns().len() + 1;
        let mut after = self.game.clone();
        let goes_on = after
            .play(turn)
            .map_err(|e| format!("a legal turn was refused by the rules: {e}"))?
            .is_none();
        self.fanout.expect(number, plan.spectators);
        self.in_flight = None;
        let sent = Instant::now();
        let mut exchanged = self.exchange(plan, turn, number, goes_on, sent).await;
        while plan.reconnect && sent.elapsed() < GIVE_UP {
            let Err(why) = &exchanged else { break };
            plan.stats.dropped(format!("player: {why}"));
            tokio::time::sleep(REENTER_WAIT).await;
            exchanged = match self.reenter(plan).await {
                Ok(turns) if turns >= number => {
                    // Stored before the connection dropped.
                    plan.stats.turn(sent.elapsed());
                    Ok(true)
                }
                Ok(_) => self.exchange(plan, turn, number, goes_on, sent).await,
                Err(why) => Err(why),
            };
        }
        let acknowledged = exchanged?;
        if acknowledged {
            plan.note_slow(sent.elapsed());
            self.acked += 1;
            self.game = after;
        }
        Ok(goes_on || !acknowledged)
    }

    /// The players whose connections dropped enter the room again, each on the first
    /// server that takes them (one whose connection holds is followed to wherever the
    /// room runs by its server: entering again would take its seat from itself);
    /// answers how many turns the room has had.
    async fn reenter(&mut self, plan: &Plan) -> Result<usize, String> {
        let mut turns = 0;
        let to_move = self.game.to_move() as usize;
        for (color, (player, token)) in self.players.iter_mut().zip(&self.tokens).enumerate() {
            if !player.is_broken() {
                continue;
            }
            if color == to_move {
                // Its request went with the old connection.
                self.in_flight = None;
            }
            let (conn, played) = plan
                .reenter(|id| ClientMessage::Join {
                    id,
                    room: self.room.clone(),
                    token: Some(token.clone()),
                    since: None,
                })
                .await?;
            *player = conn;
            turns = played;
        }
        Ok(turns)
    }

    /// Sends `turn` (number `number`) for the side to move and reads both players'
    /// sockets until it has reached them: the mover's `ack` and own `turn_played`, the
    /// opponent's `turn_played` and, with the lists, its `your_turn` (none comes once
    /// the game is over). Each arrival's time since `sent` is recorded. Answers whether
    /// the turn was acknowledged (false: refused, and counted as an error).
    async fn exchange(
        &mut self,
        plan: &Plan,
        turn: Turn,
        number: usize,
        goes_on: bool,
        sent: Instant,
    ) -> Result<bool, String> {
        let to_move = self.game.to_move() as usize;
        let [white, black] = &mut self.players;
        let (mover, opponent) = if to_move == 0 {
            (white, black)
        } else {
            (black, white)
        };
        // A mover whose connection held has its request in flight still: its answer
        // comes once the room runs again.
        let id = match self.in_flight.filter(|_| !mover.is_broken()) {
            Some(id) => id,
            None => {
                // Numbered: sent again after a reconnect, it is acknowledged if the
                // room played it already, never played twice.
                mover
                    .send(|id| ClientMessage::Play {
                        id,
                        turn,
                        number: u32::try_from(number).ok(),
                    })
                    .await?
            }
        };
        self.in_flight = Some(id);
        let (mut acked, mut own, mut seen, mut answerable) =
            (false, false, false, !(self.lists && goes_on));
        let stalled = tokio::time::sleep_until(sent + STALLED);
        tokio::pin!(stalled);
        while !(acked && own && seen && answerable) {
            tokio::select! {
                () = &mut stalled, if !stalled.is_elapsed() => {
                    eprintln!(
                        "room {} turn {number}: waited {STALLED:?}: ack {acked}, own turn_played {own}, opponent's {seen}",
                        self.room
                    );
                }
                incoming = mover.recv(), if !(acked && own) => match incoming? {
                    Incoming::Reply { id: reply } if reply == id => {
                        acked = true;
                        plan.stats.turn(sent.elapsed());
                    }
                    Incoming::Error { id: Some(reply), code } if reply == id => {
                        self.fanout.forget(number);
                        plan.stats.error(format!("turn refused: {code}"));
                        return Ok(false);
                    }
                    Incoming::Turn { number: n, .. } if n == number => {
                        own = true;
                        plan.stats.latency(Measure::Own, sent.elapsed());
                    }
                    // The room moved and the server sent the room as it stands.
                    Incoming::Snapshot { turns } if turns >= number => own = true,
                    _ => {}
                },
                incoming = opponent.recv(), if !(seen && answerable) => match incoming? {
                    Incoming::Turn { number: n, .. } if n == number => {
                        seen = true;
                        plan.stats.latency(Measure::Opponent, sent.elapsed());
                    }
                    Incoming::YourTurn if seen => {
                        answerable = true;
                        plan.stats.latency(Measure::YourTurn, sent.elapsed());
                    }
                    Incoming::Snapshot { turns } if turns >= number => {
                        seen = true;
                        answerable = true;
                    }
                    _ => {}
                },
            }
        }
        Ok(true)
    }

    /// Closes the room's connections once the last turn has reached every spectator (or
    /// a second has passed); answers what was played there.
    async fn finish(self) -> Played {
        let _ = tokio::time::timeout(Duration::from_secs(1), self.fanout.drained()).await;
        for spectator in &self.spectators {
            spectator.abort();
        }
        Played {
            room: self.room,
            acked: self.acked,
        }
    }
}

/// A spectator of a room.
struct Watching {
    /// What the run shares.
    plan: Arc<Plan>,
    /// The room watched.
    room: String,
    /// Where turns are reported.
    fanout: Arc<Fanout>,
}

impl Watching {
    /// Reads the room's events and reports each turn's arrival; with `--reconnect`,
    /// watches again after a drop (the turns missed meanwhile are not waited for).
    async fn run(self, mut conn: Conn) {
        loop {
            match conn.recv().await {
                Ok(Incoming::Turn { number, .. }) => self.fanout.arrived(number, &self.plan.stats),
                Ok(Incoming::Snapshot { turns }) => {
                    self.fanout.missed_through(turns, &self.plan.stats);
                }
                Ok(Incoming::GameOver) => return,
                Ok(_) => {}
                Err(why) => {
                    self.plan.stats.dropped(format!("spectator: {why}"));
                    if !self.plan.reconnect {
                        return;
                    }
                    let watch = |id| ClientMessage::Watch {
                        id,
                        room: self.room.clone(),
                        since: None,
                    };
                    loop {
                        tokio::time::sleep(REENTER_WAIT).await;
                        if let Ok((again, turns)) = self.plan.reenter(watch).await {
                            conn = again;
                            self.fanout.missed_through(turns, &self.plan.stats);
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// A random legal turn, mostly a move when there is one: drops use up the reserves and
/// end the game, and long games keep the load steady.
fn pick(legal: &[Turn], rng: &mut Rng) -> Turn {
    let moves: Vec<Turn> = legal.iter().copied().filter(|t| !t.is_drop()).collect();
    let from = if moves.is_empty() || rng.usize(..5) == 0 {
        legal
    } else {
        &moves
    };
    from[rng.usize(..from.len())]
}

/// Turns sent but not yet seen by every spectator, by turn number.
#[derive(Debug, Default)]
struct Fanout {
    /// The turns on their way.
    pending: Mutex<HashMap<usize, Pending>>,
    /// Told when the last turn on its way has arrived.
    drained: Notify,
}

/// One turn on its way to the spectators.
#[derive(Debug)]
struct Pending {
    /// When its player sent it.
    sent: Instant,
    /// Spectators that have not seen it yet.
    waiting: usize,
    /// The longest any spectator waited so far.
    slowest: Duration,
}

impl Fanout {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Pending>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Turn `number` is being sent now, to `spectators` spectators.
    fn expect(&self, number: usize, spectators: usize) {
        if spectators > 0 {
            let pending = Pending {
                sent: Instant::now(),
                waiting: spectators,
                slowest: Duration::ZERO,
            };
            self.lock().insert(number, pending);
        }
    }

    /// Turn `number` was refused: nobody will see it.
    fn forget(&self, number: usize) {
        self.lock().remove(&number);
    }

    /// A spectator came back after a drop to a room that has had `turns` turns: it will
    /// not see those, and is not waited for.
    fn missed_through(&self, turns: usize, stats: &Stats) {
        let missed: Vec<usize> = self
            .lock()
            .keys()
            .copied()
            .filter(|&number| number <= turns)
            .collect();
        for number in missed {
            self.arrived(number, stats);
        }
    }

    /// A spectator has turn `number`; the last one records the fan-out latency.
    fn arrived(&self, number: usize, stats: &Stats) {
        let mut pending = self.lock();
        let Some(turn) = pending.get_mut(&number) else {
            return;
        };
        turn.slowest = turn.slowest.max(turn.sent.elapsed());
        turn.waiting -= 1;
        if turn.waiting == 0 {
            stats.latency(Measure::Fanout, turn.slowest);
            pending.remove(&number);
            if pending.is_empty() {
                self.drained.notify_waiters();
            }
        }
    }

    /// Completes once no turn is on its way.
    async fn drained(&self) {
        loop {
            // Registered before the check, so an arrival in between is not missed.
            let arrived = self.drained.notified();
            if self.lock().is_empty() {
                return;
            }
            arrived.await;
        }
    }
}
