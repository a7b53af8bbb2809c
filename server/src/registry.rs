//! Every room's life: the registry creates rooms, loads a stored room when someone
//! enters it, forgets it once its task has ended, and expires or finishes rooms nobody
//! came back to. A room is handed a [`Context`] and never sees the registry.
//!
//! Only rooms someone is in, or whose clock or computer needs a timer, are held in
//! memory. Everything else is answered from the database, read only: a room's summary,
//! its record, the lobby.
//!
//! In a cluster, a room is run by the node holding its claim (see `cluster`); the
//! registry of any other node holds a relay of it instead, under the same kind of
//! handle, and the node that finds a room's claim free or its holder dead claims it and
//! loads it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use punct_protocol::{
    CreateRoom, ErrorCode, Record, RoomStatus, RoomSummary, SeatChoice, SeatGranted,
};
use punct_rules::Color;
use tokio::sync::watch;

use crate::Config;
use crate::cluster::{self, Cluster, ClusterError, Owner, owner};
use crate::room::{Context, Fresh, Key, RoomClosed, RoomHandle, Setup, relay, summary_of};
use crate::secret;
use crate::store::{self, Player, Store, StoreError, hash_token};

/// Most rooms the lobby lists, oldest first.
const LOBBY_ROOMS: usize = 500;

/// Times a request tries a room that closed just as it was asked (it is loaded again).
const ATTEMPTS: usize = 3;

/// In a cluster, the wait between two tries to reach a room whose node is going away.
const RETRY_WAIT: Duration = Duration::from_millis(200);

/// A cheap, cloneable handle on the rooms.
///
/// The table is behind a std `Mutex`, not tokio's: it is held only to look up, insert or
/// remove handles, never across an `.await`, and never on the move path (a connection
/// looks its room up once, then talks to the room's actor directly).
#[derive(Clone, Debug)]
pub(crate) struct Registry {
    /// The table and what rooms are given.
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// The rooms running, by id.
    table: Mutex<HashMap<String, RoomHandle>>,
    /// The rooms being loaded, by id: one load at a time for a room, since each load
    /// counts an incarnation and fences the writes of the ones before it.
    loading: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// What every room is given.
    context: Arc<Context>,
    /// Most rooms held at once.
    max_rooms: usize,
    /// How long a room may wait for its second player before it is deleted.
    open_room_expiry: Duration,
    /// How long a game may go without a turn, nobody in it, before it ends.
    abandoned_game_expiry: Duration,
    /// This node's place in a cluster, if it is one.
    cluster: Option<Cluster>,
    /// In a cluster, how long a request keeps trying to reach its room (while a dead
    /// node's lease runs out, and another node takes the room over).
    patience: Duration,
}

impl Registry {
    /// The rooms of `store`, none running yet; shared with the other nodes of `cluster`.
    pub(crate) fn new(config: &Config, store: Store, cluster: Option<Cluster>) -> Registry {
        Registry {
            shared: Arc::new(Shared {
                table: Mutex::new(HashMap::new()),
                loading: Mutex::new(HashMap::new()),
                context: Arc::new(Context::new(config, store)),
                max_rooms: config.max_rooms,
                open_room_expiry: config.open_room_expiry,
                abandoned_game_expiry: config.abandoned_game_expiry,
                cluster,
                patience: config.cluster_lease * 3,
            }),
        }
    }

    /// What every room is given: the store, the metrics, the computer's threads.
    pub(crate) fn context(&self) -> &Context {
        &self.shared.context
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, RoomHandle>> {
        // No code that holds the lock can panic half-way through a change.
        self.shared
            .table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The room `id`, if it is running.
    fn running(&self, id: &str) -> Option<RoomHandle> {
        self.lock().get(id).filter(|h| !h.is_closed()).cloned()
    }

    /// Creates a room and stores it in one transaction; its creator gets a seat. It
    /// runs at once: its creator is about to enter it, and the computer may move first.
    /// The creator plays as `creator`.
    pub(crate) async fn create(
        &self,
        request: CreateRoom,
        creator: Player,
    ) -> Result<SeatGranted, ErrorCode> {
        if self.lock().len() >= self.shared.max_rooms {
            return Err(ErrorCode::TooManyRooms);
        }
        let color = match request.color {
            SeatChoice::White => Color::White,
            SeatChoice::Black => Color::Black,
            SeatChoice::Random if secret::coin() => Color::White,
            SeatChoice::Random => Color::Black,
        };
        let token = secret::token();
        let mut seats = [None; 2];
        seats[color as usize] = Some(hash_token(&token));
        let mut players = [Player::default(), Player::default()];
        players[color as usize] = creator;
        let fresh = Fresh::new(
            request.variant,
            request.visibility,
            request.clock,
            seats,
            players,
            request.computer.map(|level| (color.opponent(), level)),
            request.rated,
        );
        let stored = self.context().store.create_room(fresh.stored()).await;
        stored.map_err(|e| storage_failed(&e))?;
        let room = fresh.id.clone();
        if let Some(cluster) = &self.shared.cluster {
            cluster
                .claim_new(&room)
                .await
                .map_err(|e| cluster_failed(&e))?;
        }
        self.start(fresh.setup());
        Ok(SeatGranted { room, color, token })
    }

    /// Starts the actor of `setup` and lists it; answers the handle of the room running
    /// under that id (another task may have loaded it first).
    fn start(&self, setup: Setup) -> RoomHandle {
        let table = self.lock();
        if let Some(running) = table.get(&setup.id).filter(|h| !h.is_closed()) {
            return running.clone();
        }
        let context = Arc::clone(&self.shared.context);
        let (handle, events, actor) = RoomHandle::start_subscribed(setup, context);
        // In a cluster, other nodes' members hear the room's events from the first.
        if let Some(cluster) = &self.shared.cluster {
            let client = cluster.client().clone();
            tokio::spawn(owner::publish(client, handle.clone(), events));
        }
        self.run(table, handle, actor)
    }

    /// Lists `handle` in `table` and spawns `task`, its actor or relay; the room leaves
    /// the table once the task ends.
    fn run(
        &self,
        mut table: MutexGuard<'_, HashMap<String, RoomHandle>>,
        handle: RoomHandle,
        task: impl Future<Output = ()> + Send + 'static,
    ) -> RoomHandle {
        let id = handle.id().to_owned();
        table.insert(id.clone(), handle.clone());
        drop(table);
        let registry = self.clone();
        let relayed = handle.relayed_from().is_some();
        tokio::spawn(async move {
            task.await;
            registry.forget(&id, relayed).await;
        });
        handle
    }

    /// The room `id` has closed: it leaves the table (unless it runs again already), and
    /// this node lets go of its claim if it ran it.
    async fn forget(&self, id: &str, relayed: bool) {
        {
            let mut table = self.lock();
            if table.get(id).is_some_and(RoomHandle::is_closed) {
                table.remove(id);
            }
        }
        if let Some(cluster) = &self.shared.cluster
            && !relayed
            && self.running(id).is_none()
        {
            cluster.release(id).await;
        }
    }

    /// The room `id` to enter: the one running, or the stored one, loaded now. Loading
    /// counts against `--max-rooms`.
    pub(crate) async fn enter(&self, id: &str) -> Result<RoomHandle, ErrorCode> {
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        // Whoever loads the room first, the others wait for it and then find it running.
        let gate = {
            let mut loading = self
                .shared
                .loading
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            Arc::clone(loading.entry(id.to_owned()).or_default())
        };
        let loaded = {
            let _turn = gate.lock().await;
            self.load(id).await
        };
        let mut loading = self
            .shared
            .loading
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // The map and this task hold the gate: nobody else waits at it.
        if Arc::strong_count(&gate) == 2 {
            loading.remove(id);
        }
        loaded
    }

    /// The room `id`, running if another task loaded it meanwhile, else loaded from the
    /// store now.
    async fn load(&self, id: &str) -> Result<RoomHandle, ErrorCode> {
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        if self.lock().len() >= self.shared.max_rooms {
            return Err(ErrorCode::TooManyRooms);
        }
        if let Some(cluster) = &self.shared.cluster {
            if !cluster::valid_room_id(id) {
                return Err(ErrorCode::NoSuchRoom);
            }
            let owner = cluster.locate(id).await;
            if let Owner::There(node) = owner.map_err(|e| cluster_failed(&e))? {
                let buffer = self.context().timings.event_buffer;
                let (handle, relay) =
                    relay::connect(id, node, cluster, buffer)
                        .await
                        .map_err(|RoomClosed| {
                            tracing::debug!(
                                room = id,
                                owner = node,
                                "the room's node did not answer"
                            );
                            ErrorCode::StorageFailed
                        })?;
                return Ok(self.run(self.lock(), handle, relay));
            }
        }
        let loaded = self.load_here(id).await;
        if loaded.is_err()
            && let Some(cluster) = &self.shared.cluster
        {
            cluster.release(id).await;
        }
        loaded
    }

    /// Loads the room `id` from the store and runs it here.
    async fn load_here(&self, id: &str) -> Result<RoomHandle, ErrorCode> {
        let stored = self.context().store.load(id).await;
        let stored = stored
            .map_err(|e| storage_failed(&e))?
            .ok_or(ErrorCode::NoSuchRoom)?;
        match Setup::stored(id.to_owned(), stored) {
            Ok(setup) => Ok(self.start(setup)),
            Err(corrupt) => {
                let error: &dyn std::error::Error = &corrupt;
                tracing::error!(room = id, error, "cannot load");
                Err(ErrorCode::StorageFailed)
            }
        }
    }

    /// Asks the room `id` with `ask`, entering it if need be. A room that closed between
    /// the lookup and the question (its idle timeout ran out just then) is loaded again.
    /// In a cluster, a room whose node is going away is tried again until another node
    /// has taken it over, for up to three leases.
    pub(crate) async fn ask<T, Asked>(
        &self,
        id: &str,
        ask: impl Fn(RoomHandle) -> Asked,
    ) -> Result<T, ErrorCode>
    where
        Asked: Future<Output = Result<T, RoomClosed>>,
    {
        let clustered = self.shared.cluster.is_some();
        let deadline = Instant::now() + self.shared.patience;
        for attempt in 1.. {
            match self.enter(id).await {
                Ok(handle) => {
                    let relayed = handle.relayed_from();
                    if let Ok(answer) = ask(handle).await {
                        return Ok(answer);
                    }
                    tracing::debug!(
                        room = id,
                        attempt,
                        ?relayed,
                        "the room closed under the question"
                    );
                }
                Err(ErrorCode::StorageFailed) if clustered => {
                    tracing::debug!(room = id, attempt, "the room could not be entered");
                }
                Err(code) => return Err(code),
            }
            if !clustered && attempt >= ATTEMPTS {
                return Err(ErrorCode::NoSuchRoom);
            }
            if clustered {
                if Instant::now() >= deadline {
                    tracing::warn!(room = id, attempt, "gave up entering the room");
                    return Err(ErrorCode::StorageFailed);
                }
                tokio::time::sleep(RETRY_WAIT).await;
            }
        }
        unreachable!("the loop returns")
    }

    /// The room `id` if this node runs it (loading it if this node holds or takes its
    /// claim), for another node's request; `None` if another node runs it.
    pub(crate) async fn owned(&self, id: &str) -> Option<RoomHandle> {
        let handle = match self.running(id) {
            Some(handle) => handle,
            None => self.enter(id).await.ok()?,
        };
        handle.relayed_from().is_none().then_some(handle)
    }

    /// Gives out the free seat of room `id`. A stored room is loaded for it only if it
    /// has a free seat.
    pub(crate) async fn take_seat(
        &self,
        id: &str,
        player: Player,
    ) -> Result<SeatGranted, ErrorCode> {
        if self.running(id).is_none() {
            let row = self.context().store.summary(id).await;
            let row = row.map_err(|e| storage_failed(&e))?;
            match row {
                None => return Err(ErrorCode::NoSuchRoom),
                Some(row) if row.taken.iter().all(|&taken| taken) => {
                    return Err(ErrorCode::RoomFull);
                }
                Some(_) => {}
            }
        }
        self.ask(id, |room| {
            let player = player.clone();
            async move { room.take_seat(player).await }
        })
        .await?
    }

    /// Deletes room `id` for its creator, who presents `key`, while nobody has taken the
    /// other seat. A stored room is loaded for it only if a seat is free.
    pub(crate) async fn cancel(&self, id: &str, key: Key) -> Result<(), ErrorCode> {
        if self.running(id).is_none() {
            let row = self.context().store.summary(id).await;
            match row.map_err(|e| storage_failed(&e))? {
                None => return Err(ErrorCode::NoSuchRoom),
                Some(row) if row.outcome.is_some() || row.taken.iter().all(|&taken| taken) => {
                    return Err(ErrorCode::NotCancellable);
                }
                Some(_) => {}
            }
        }
        self.ask(id, |room| {
            let key = key.clone();
            async move { room.cancel(key).await }
        })
        .await?
    }

    /// Room `id` as the lobby shows it; read from the database if it is not running.
    pub(crate) async fn summary(&self, id: &str) -> Result<RoomSummary, ErrorCode> {
        if let Some(handle) = self.running(id)
            && let Ok(summary) = handle.current_summary().await
        {
            return Ok(summary);
        }
        let row = self.context().store.summary(id).await;
        let row = row.map_err(|e| storage_failed(&e))?;
        row.map(|row| summary_of(&row)).ok_or(ErrorCode::NoSuchRoom)
    }

    /// The record of room `id`; read from the database if it is not running.
    pub(crate) async fn record(&self, id: &str) -> Result<Record, ErrorCode> {
        if let Some(handle) = self.running(id)
            && let Ok(record) = handle.record().await
        {
            return Ok(record);
        }
        let stored = self.context().store.record(id).await;
        let stored = stored
            .map_err(|e| storage_failed(&e))?
            .ok_or(ErrorCode::NoSuchRoom)?;
        let [white, black] = stored.players.each_ref().map(Player::view);
        Ok(Record {
            room: id.to_owned(),
            variant: stored.variant,
            white,
            black,
            rated: stored.rated,
            turns: stored.turns,
            outcome: stored.outcome,
        })
    }

    /// The public rooms whose game goes on, oldest first: from the database, with what
    /// the running ones know of who is connected.
    /// In a cluster, the other nodes say who is in the rooms they run.
    pub(crate) async fn lobby(&self) -> Result<Vec<RoomSummary>, ErrorCode> {
        let rows = self.context().store.lobby(LOBBY_ROOMS).await;
        let rows = rows.map_err(|e| storage_failed(&e))?;
        let mut elsewhere = HashMap::new();
        if let Some(cluster) = &self.shared.cluster {
            for room in owner::other_rooms(cluster).await {
                elsewhere.insert(room.room.clone(), room);
            }
        }
        Ok(rows
            .iter()
            .map(|row| match self.running(&row.id) {
                Some(handle) if handle.relayed_from().is_none() => handle.summary(),
                _ => elsewhere.remove(&row.id).unwrap_or_else(|| summary_of(row)),
            })
            .filter(|room| room.status != RoomStatus::Over && !deserted(room))
            .collect())
    }

    /// The summaries of the rooms running now on this node (not those it relays).
    pub(crate) fn running_summaries(&self) -> Vec<RoomSummary> {
        self.lock()
            .values()
            .filter(|h| !h.is_closed() && h.relayed_from().is_none())
            .map(RoomHandle::summary)
            .collect()
    }

    /// Loads the unfinished rooms that need a timer (a clock running, or the computer to
    /// move), as many as `--max-rooms` allows; the others wait in the database until
    /// someone enters them. Answers how many were loaded. In a cluster, only rooms no
    /// live node holds: this is how the rooms of a dead node that nobody enters (a clock
    /// or the computer to run) are taken over.
    pub(crate) async fn restore(&self) -> Result<usize, StoreError> {
        let mut ids = self.context().store.with_timers().await?;
        if self.shared.cluster.is_some() {
            let mut orphans = Vec::new();
            for id in ids {
                if !self.held_elsewhere(&id).await {
                    orphans.push(id);
                }
            }
            ids = orphans;
        }
        let mut loaded = 0;
        for id in &ids {
            match self.enter(id).await {
                Ok(_) => loaded += 1,
                Err(ErrorCode::TooManyRooms) => {
                    tracing::warn!(
                        waiting = ids.len() - loaded,
                        "--max-rooms reached: the other timed rooms load when entered"
                    );
                    break;
                }
                Err(_) => {}
            }
        }
        Ok(loaded)
    }

    /// Deletes the rooms whose free seat nobody took within `--open-room-expiry`, and
    /// ends the games nobody played in for `--abandoned-game-expiry` (the player to move
    /// loses by abandonment); rooms running now are left alone. Answers how many.
    pub(crate) async fn sweep(&self) -> Result<usize, StoreError> {
        let now = store::now();
        let before = |expiry: Duration| {
            now.saturating_sub(i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX))
        };
        let stale = self
            .context()
            .store
            .stale(
                before(self.shared.open_room_expiry),
                before(self.shared.abandoned_game_expiry),
                now,
            )
            .await?;
        let mut idle = Vec::new();
        for room in stale {
            if self.running(&room.id).is_none() && !self.held_elsewhere(&room.id).await {
                idle.push(room);
            }
        }
        let stale = idle;
        let store = &self.context().store;
        let done = if stale.is_empty() {
            0
        } else {
            let done = store.expire(stale).await?;
            tracing::info!(rooms = done, "stale rooms expired or finished");
            done
        };
        // Rated games that ended here (abandoned), or whose rating failed at their end.
        for room in store.unrated_games().await? {
            if store.rate_game(&room).await?.is_some() {
                tracing::info!(%room, "game rated late");
            }
        }
        Ok(done)
    }

    /// Sweeps now and every `period` until `stop` turns true.
    pub(crate) async fn sweep_every(self, period: Duration, mut stop: watch::Receiver<bool>) {
        loop {
            if let Err(e) = self.sweep().await {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "sweeping stale rooms failed");
            }
            tokio::select! {
                () = tokio::time::sleep(period) => {}
                _ = stop.wait_for(|&stopping| stopping) => return,
            }
        }
    }

    /// Whether another live node of the cluster holds the room `id` (when unsure: yes).
    async fn held_elsewhere(&self, id: &str) -> bool {
        let Some(cluster) = &self.shared.cluster else {
            return false;
        };
        match cluster.holder(id).await {
            Ok(Some(node)) => node != cluster.tag() && cluster.is_alive(node),
            Ok(None) => false,
            Err(e) => {
                cluster_failed(&e);
                true
            }
        }
    }

    /// Forgets every room: their actors stop once their last member has gone.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}

/// Logs a failure to reach the cluster; answers the code a client sees (try again).
fn cluster_failed(e: &ClusterError) -> ErrorCode {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "cluster");
    ErrorCode::StorageFailed
}

/// Logs a storage failure; answers its code.
fn storage_failed(e: &StoreError) -> ErrorCode {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "database");
    ErrorCode::StorageFailed
}

/// Whether a live game has nobody at its board: both players away, in a game played in
/// one sitting. The lobby leaves it out (a correspondence game's players come and go).
fn deserted(room: &RoomSummary) -> bool {
    room.status == RoomStatus::Live
        && room.clock.is_none_or(|clock| clock.days.is_none())
        && !room.players.white.connected
        && !room.players.black.connected
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use punct_protocol::{CreateRoom, Visibility};

    use super::*;
    use crate::room::Start;

    async fn registry(config: Config) -> Registry {
        Registry::new(&config, Store::empty().await, None)
    }

    fn idle_in(seconds: u64) -> Config {
        Config {
            room_idle_timeout: Duration::from_secs(seconds),
            ..Config::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_abandoned_room_closes_after_the_idle_timeout() {
        let rooms = registry(idle_in(60)).await;
        let room = rooms
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap()
            .room;
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert!(rooms.running(&room).is_some());
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(rooms.running(&room).is_none());
        assert!(rooms.running_summaries().is_empty());
        // It is still in the store: read without running it, then run again when
        // entered.
        assert_eq!(rooms.summary(&room).await.unwrap().room, room);
        assert!(rooms.running(&room).is_none(), "a read does not load it");
        assert!(rooms.enter(&room).await.is_ok());
        assert!(rooms.running(&room).is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn a_room_with_someone_in_it_stays_open() {
        let rooms = registry(idle_in(60)).await;
        let room = rooms
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap()
            .room;
        let handle = rooms.enter(&room).await.unwrap();
        let joined = handle.watch(7, None).await.unwrap();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert!(
            rooms.running(&room).is_some(),
            "a spectator keeps the room open"
        );
        // Once the spectator has gone, the room lives one more idle timeout.
        handle.leave(7);
        drop(joined);
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert!(rooms.running(&room).is_some());
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert!(rooms.running(&room).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_arriving_as_the_room_closes_is_served() {
        // The idle timeout and a join fall due at the same instant, again and again: the
        // join is always served, by the room or by the room loaded again.
        let rooms = registry(idle_in(60)).await;
        let granted = rooms
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap();
        for conn in 0..32 {
            let handle = rooms.enter(&granted.room).await.unwrap();
            tokio::time::sleep(Duration::from_secs(60)).await;
            let token = granted.token.clone();
            let joined = rooms
                .ask(&granted.room, |room| {
                    let token = token.clone();
                    async move { room.join(conn, token, None, false).await }
                })
                .await
                .expect("served, never no-such-room");
            assert!(joined.is_ok());
            rooms.enter(&granted.room).await.unwrap().leave(conn);
            drop(handle);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_correspondence_game_sleeps_out_of_memory_and_ends_when_the_days_run_out() {
        const DAY: Duration = Duration::from_secs(24 * 3600);
        let config = Config {
            abandoned_game_expiry: 7 * DAY,
            ..idle_in(60)
        };
        let store = Store::empty().await;
        let rooms = Registry::new(&config, store.clone(), None);
        let request = CreateRoom {
            color: punct_protocol::SeatChoice::White,
            clock: Some(punct_protocol::TimeControl::days(14)),
            ..CreateRoom::default()
        };
        let white = rooms.create(request, Player::default()).await.unwrap();
        let black = rooms
            .take_seat(&white.room, Player::default())
            .await
            .unwrap();
        let room = white.room.clone();
        let handle = rooms.enter(&room).await.unwrap();
        for (conn, token) in [(1, &white.token), (2, &black.token)] {
            handle
                .join(conn, token.clone(), None, false)
                .await
                .unwrap()
                .unwrap();
        }
        handle
            .play(1, "C4:C5,D5".parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        handle.leave(1);
        handle.leave(2);
        drop(handle);
        // Black's fourteen days run, yet nobody is in the room: it closes, and holds no
        // memory while Black thinks.
        tokio::time::sleep(Duration::from_secs(61)).await;
        assert!(rooms.running(&room).is_none(), "the room sleeps");
        // The server restarts after three days: Black has eleven left, not fourteen.
        tokio::time::sleep(3 * DAY).await;
        let rooms = Registry::new(&config, store.clone(), None);
        assert_eq!(
            rooms.restore().await.unwrap(),
            0,
            "no timer needs it in memory"
        );
        let handle = rooms.enter(&room).await.unwrap();
        let Start::Snapshot(snapshot) = handle.watch(9, None).await.unwrap().start else {
            unreachable!("no `since` was given");
        };
        let clock = snapshot.clock.unwrap();
        let left = Duration::from_millis(clock.black_ms);
        assert!(
            left <= 11 * DAY && left > 11 * DAY - Duration::from_secs(120),
            "{left:?}"
        );
        assert_eq!((clock.running, clock.days), (Some(Color::Black), Some(14)));
        handle.leave(9);
        drop(handle);
        // (The spectator count is told first, then the idle timeout starts.)
        tokio::time::sleep(Duration::from_secs(120)).await;
        assert!(rooms.running(&room).is_none());
        // A week and more of silence is no abandonment: the clock decides.
        tokio::time::sleep(5 * DAY).await;
        assert_eq!(rooms.sweep().await.unwrap(), 0);
        assert_eq!(rooms.summary(&room).await.unwrap().outcome, None);
        // Past the fourteenth day, the sweep ends the game without loading the room.
        tokio::time::sleep(6 * DAY).await;
        assert_eq!(rooms.sweep().await.unwrap(), 1);
        assert!(rooms.running(&room).is_none());
        assert_eq!(
            rooms.summary(&room).await.unwrap().outcome,
            Some(punct_rules::Outcome::Win {
                winner: Color::White,
                reason: punct_rules::WinReason::Time,
            })
        );
    }

    #[tokio::test]
    async fn the_room_limit_holds_for_new_rooms_and_loaded_ones() {
        let store = Store::empty().await;
        let first = registry_on(&store, 1);
        let stored = first
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap()
            .room;
        // Another server on the same database, with room for one.
        let rooms = registry_on(&store, 1);
        let new = rooms
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap()
            .room;
        assert_eq!(
            rooms.create(CreateRoom::default(), Player::default()).await,
            Err(ErrorCode::TooManyRooms)
        );
        assert_eq!(
            rooms.enter(&stored).await.err(),
            Some(ErrorCode::TooManyRooms)
        );
        // Reading it needs no room.
        assert_eq!(rooms.summary(&stored).await.unwrap().room, stored);
        assert!(rooms.enter(&new).await.is_ok(), "a running room is entered");
    }

    fn registry_on(store: &Store, max_rooms: usize) -> Registry {
        let config = Config {
            max_rooms,
            ..Config::default()
        };
        Registry::new(&config, store.clone(), None)
    }

    #[tokio::test]
    async fn a_room_is_made_in_one_transaction_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("punct.db");
        let store = Store::open(path.to_str()).await.unwrap();
        let rooms = registry_on(&store, 10);
        // No stored room may change: one made in several steps (the room, then its
        // computer's seat) would be left half made.
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TRIGGER frozen BEFORE UPDATE ON rooms
             BEGIN SELECT RAISE(ABORT, 'rooms are read only'); END;",
        )
        .unwrap();
        let request = CreateRoom {
            color: SeatChoice::Black,
            visibility: Visibility::Private,
            computer: Some(2),
            ..CreateRoom::default()
        };
        let room = rooms
            .create(request.clone(), Player::default())
            .await
            .unwrap()
            .room;
        let row = store.summary(&room).await.unwrap().unwrap();
        assert_eq!(row.taken, [true, true]);
        assert_eq!(row.computer, Some((Color::White, 2)));
        assert_eq!(row.visibility, Visibility::Private);
        // When that one transaction fails, nothing of the room is left.
        db.execute_batch(
            "CREATE TRIGGER full BEFORE INSERT ON rooms
             BEGIN SELECT RAISE(ABORT, 'the disk is full'); END;",
        )
        .unwrap();
        assert_eq!(
            rooms.create(request, Player::default()).await,
            Err(ErrorCode::StorageFailed)
        );
        let count: u32 = db
            .query_row("SELECT COUNT(*) FROM rooms", [], |row| row.get(0))
            .unwrap();
        assert_eq!(count, 1);
    }

    #[tokio::test]
    async fn a_room_loaded_again_elsewhere_stops_writing_and_closes_here() {
        let store = Store::empty().await;
        // Two servers on one database, as two nodes of a cluster are.
        let (here, there) = (registry_on(&store, 10), registry_on(&store, 10));
        let request = CreateRoom {
            color: SeatChoice::White,
            ..CreateRoom::default()
        };
        let white = here.create(request, Player::default()).await.unwrap();
        let room = here.enter(&white.room).await.unwrap();
        room.join(1, white.token.clone(), None, false)
            .await
            .unwrap()
            .unwrap();
        let mut events = room.watch(2, None).await.unwrap().events;
        // The room is loaded over there (after a failover, say).
        let moved = there.enter(&white.room).await.unwrap();
        let turn = "C4:C5,D5".parse().unwrap();
        let refused = room.play(1, turn).await.unwrap().unwrap_err();
        assert_eq!(refused.code, ErrorCode::StorageFailed);
        // Nothing was stored, and the room here has closed: its members follow it.
        assert!(
            store
                .record(&white.room)
                .await
                .unwrap()
                .unwrap()
                .turns
                .is_empty()
        );
        loop {
            match events.recv().await {
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                Ok(event) => assert!(event.seq.is_none(), "no turn was published"),
                Err(e) => panic!("{e}"),
            }
        }
        assert!(here.running(&white.room).is_none());
        moved
            .join(3, white.token, None, false)
            .await
            .unwrap()
            .unwrap();
        moved.play(3, turn).await.unwrap().unwrap();
        assert_eq!(
            store.record(&white.room).await.unwrap().unwrap().turns,
            [turn]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_room_entered_by_many_at_once_is_loaded_once() {
        let store = Store::empty().await;
        let first = registry_on(&store, 10);
        let white = first
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap();
        // Another server (or this one after a restart) finds it only in the database.
        let rooms = registry_on(&store, 10);
        let entering: Vec<_> = (0..8)
            .map(|_| {
                let (rooms, id) = (rooms.clone(), white.room.clone());
                tokio::spawn(async move { rooms.enter(&id).await.unwrap() })
            })
            .collect();
        for handle in entering {
            handle.await.unwrap();
        }
        let row = store.load(&white.room).await.unwrap().unwrap();
        assert_eq!(row.incarnation, 2, "loaded once here, once by this check");
    }
}
