//! Every room's life: the registry creates rooms, has `cluster` load a stored room when
//! someone enters it (here, or relayed from the node that runs it), and expires or
//! finishes rooms nobody came back to. A room is handed a [`Context`] and never sees
//! the registry.
//!
//! Only rooms someone is in, or whose clock or computer needs a timer, are held in
//! memory. Everything else is answered from the database, read only: a room's summary,
//! its record, the lobby.
//!
//! Must not import: `connection`, `api`.

use std::collections::HashMap;
use std::time::Duration;

use punct_protocol::{
    CreateRoom, ErrorCode, Record, RoomStatus, RoomSummary, SeatChoice, SeatGranted,
};
use punct_rules::Color;

use crate::clock;
use crate::cluster::{Limits, Nodes, PlaceError, Placement, Reply, Unavailable, Whereabouts};
use crate::config::Config;
use crate::errors;
use crate::i18n::Lang;
use crate::mail::Mailer;
use crate::room::{
    Answer, Context, Fresh, Key, LIVE_EVENTS, Mismatch, Moderate, Refusal, Request, RoomHandle,
    Rooms,
};
use crate::secret;
use crate::secret::{TokenHash, hash_token};
use crate::services::Services;
use crate::store::{NewRoom, Player, Store, StoreError};
use crate::views::{summary_of, with_ratings};

/// Most rooms the lobby lists, oldest first.
const LOBBY_ROOMS: usize = 500;

/// Requests a room's queue holds before senders wait.
const REQUEST_QUEUE: usize = 64;

/// A cheap, cloneable handle on the rooms.
#[derive(Clone, Debug)]
pub(crate) struct Registry {
    /// Where the rooms run, and how they are reached.
    placement: Placement<Rooms>,
    /// Where rooms are kept, and read when they are not running.
    store: Store,
    /// Told when expiries and reminders queue mail.
    mail: Mailer,
    /// How long a room may wait for its second player before it is deleted.
    open_room_expiry: Duration,
    /// How long a game may go without a turn, nobody in it, before it ends.
    abandoned_game_expiry: Duration,
}

/// The code a client sees when a room could not be reached.
pub(crate) fn refused(e: PlaceError) -> ErrorCode {
    e.code::<Rooms>()
}

impl Registry {
    /// The rooms of the server's `services`, none running yet.
    pub(crate) fn new(config: &Config, services: &Services) -> Registry {
        let limits = Limits {
            max: config.max_rooms,
            queue: REQUEST_QUEUE,
            // A relay only passes events on live: its members come back through the
            // room's own node.
            events: config.room_event_buffer.min(LIVE_EVENTS),
            patience: config.cluster_lease * 3,
        };
        let rooms = Rooms::new(Context::new(config, services));
        Registry {
            placement: Placement::new(
                rooms,
                services.nodes.clone(),
                limits,
                services.shutdown.clone(),
            ),
            store: services.store.clone(),
            mail: services.mail.clone(),
            open_room_expiry: config.open_room_expiry,
            abandoned_game_expiry: config.abandoned_game_expiry,
        }
    }

    /// Where rooms run.
    pub(crate) fn nodes(&self) -> &Nodes {
        self.placement.nodes()
    }

    /// The room `id`, if it is running here or relayed.
    fn running(&self, id: &str) -> Option<RoomHandle> {
        self.placement.running(id)
    }

    /// Creates a room and stores it in one transaction; its creator gets a seat. It
    /// runs at once: its creator is about to enter it, and the computer may move first.
    /// The creator plays as `creator`.
    pub(crate) async fn create(
        &self,
        request: CreateRoom,
        creator: Player,
    ) -> Result<SeatGranted, ErrorCode> {
        self.placement.may_create().map_err(refused)?;
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
        let room = self.open(fresh).await?;
        Ok(SeatGranted { room, color, token })
    }

    /// Stores the new room `fresh` in one transaction and runs it here; answers its id.
    async fn open(&self, fresh: Fresh) -> Result<String, ErrorCode> {
        let stored = self.store.create_room(fresh.stored()).await;
        stored.map_err(|e| storage_failed(&e))?;
        let room = fresh.id.clone();
        self.placement
            .create(fresh.setup())
            .await
            .map_err(refused)?;
        Ok(room)
    }

    /// Creates the public room of two seekers who met, `players[0]` White, each seat
    /// held by the token whose hash is in `seats` (each seeker's connection keeps its
    /// own token), and runs it here; answers its id.
    pub(crate) async fn create_paired(
        &self,
        game: punct_protocol::SeekGame,
        seats: [TokenHash; 2],
        players: [Player; 2],
    ) -> Result<String, ErrorCode> {
        self.placement.may_create().map_err(refused)?;
        let visibility = punct_protocol::Visibility::Public;
        let seats = seats.map(Some);
        let clock = Some(game.clock);
        let fresh = Fresh::new(
            game.variant,
            visibility,
            clock,
            seats,
            players,
            None,
            game.rated,
        );
        self.open(fresh).await
    }

    /// The room of a tournament's game, to be stored with its pairing (in one
    /// transaction, by the tournament's director): public, both seats held by the
    /// players' accounts, entered by signing in. Each seat's token is one nobody is ever
    /// given, so that neither seat counts as free. It is loaded when a player enters it.
    pub(crate) fn tournament_room(
        variant: punct_rules::Variant,
        control: Option<punct_protocol::TimeControl>,
        rated: bool,
        players: [Player; 2],
    ) -> NewRoom {
        let seats = [(); 2].map(|()| Some(hash_token(&secret::token())));
        let visibility = punct_protocol::Visibility::Public;
        Fresh::new(variant, visibility, control, seats, players, None, rated).stored()
    }

    /// The room `id` to enter: the one running, or the stored one, loaded now. Loading
    /// counts against `--max-rooms`.
    #[cfg(test)]
    pub(crate) async fn enter(&self, id: &str) -> Result<RoomHandle, ErrorCode> {
        self.placement.enter(id).await.map_err(refused)
    }

    /// Asks room `id` `request`, entering it if need be; answers its handle (to ask it
    /// again) and its reply. A room that closed under the question, or whose node is
    /// going away, is asked again where it runs then.
    pub(crate) async fn ask(
        &self,
        id: &str,
        request: &Request,
    ) -> Result<(RoomHandle, Reply<Rooms>), ErrorCode> {
        self.placement.ask(id, request).await.map_err(refused)
    }

    /// Asks room `id` `request` and answers its answer alone.
    async fn answer(&self, id: &str, request: Request) -> Result<Answer, ErrorCode> {
        Ok(self.ask(id, &request).await?.1.answer)
    }

    /// Gives out the free seat of room `id`, unless its creator blocks `player`'s
    /// account. A stored room is loaded for it only if it has a free seat.
    pub(crate) async fn take_seat(
        &self,
        id: &str,
        player: Player,
    ) -> Result<SeatGranted, ErrorCode> {
        if self.running(id).is_none() {
            let row = self.store.summary(id).await;
            let row = row.map_err(|e| storage_failed(&e))?;
            match row {
                None => return Err(ErrorCode::NoSuchRoom),
                Some(row) if row.taken.iter().all(|&taken| taken) => {
                    return Err(ErrorCode::RoomFull);
                }
                Some(_) => {}
            }
        }
        let blockers = match player.account_id() {
            Some(account) => {
                let blockers = self.store.blockers_of(account).await;
                blockers.map_err(|e| storage_failed(&e))?
            }
            None => Vec::new(),
        };
        let request = Request::TakeSeat { player, blockers };
        let answer = self.answer(id, request).await?;
        answer.seat().map_err(mismatch)?
    }

    /// Deletes room `id` for its creator, who presents `key`, while nobody has taken the
    /// other seat. A stored room is loaded for it only if a seat is free.
    pub(crate) async fn cancel(&self, id: &str, key: Key) -> Result<(), ErrorCode> {
        if self.running(id).is_none() {
            let row = self.store.summary(id).await;
            match row.map_err(|e| storage_failed(&e))? {
                None => return Err(ErrorCode::NoSuchRoom),
                Some(row) if row.outcome.is_some() || row.taken.iter().all(|&taken| taken) => {
                    return Err(ErrorCode::NotCancellable);
                }
                Some(_) => {}
            }
        }
        let answer = self.answer(id, Request::Cancel { key }).await?;
        answer.cancelled().map_err(mismatch)?
    }

    /// Asks room `id`, wherever it runs (loaded if need be), to carry out a moderator's
    /// `moderate`.
    pub(crate) async fn moderate(&self, id: &str, moderate: Moderate) -> Result<(), Refusal> {
        let answer = self.answer(id, Request::Moderate(moderate)).await;
        let refused = |code| Refusal::new(code, errors::message(code, Lang::En));
        let done = answer.and_then(|answer| answer.done().map_err(mismatch));
        done.map_err(refused)?.map(|_| ())
    }

    /// Room `id` as the lobby shows it; read from the database if it is not running.
    pub(crate) async fn summary(&self, id: &str) -> Result<RoomSummary, ErrorCode> {
        if let Some(handle) = self.running(id)
            && let Ok(reply) = handle.ask(Request::Summary).await
            && let Ok(summary) = reply.answer.summary()
        {
            return Ok(summary);
        }
        let row = self.store.summary(id).await;
        let row = row.map_err(|e| storage_failed(&e))?;
        row.map(|row| summary_of(&row)).ok_or(ErrorCode::NoSuchRoom)
    }

    /// The record of room `id`; read from the database if it is not running.
    pub(crate) async fn record(&self, id: &str) -> Result<Record, ErrorCode> {
        if let Some(handle) = self.running(id)
            && let Ok(reply) = handle.ask(Request::Record).await
            && let Ok(record) = reply.answer.record()
        {
            return Ok(record);
        }
        let stored = self.store.record(id).await;
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

    /// Where room `id` runs: the node holding its claim, and whether this node holds it.
    pub(crate) async fn whereabouts(&self, id: &str) -> Result<Whereabouts, ErrorCode> {
        self.placement.whereabouts(id).await.map_err(refused)
    }

    /// The public rooms whose game goes on, oldest first: from the database, with what
    /// the nodes running them (this one, or in a cluster the others) know of who is
    /// connected.
    pub(crate) async fn lobby(&self) -> Result<Vec<RoomSummary>, ErrorCode> {
        let rows = self.store.lobby(LOBBY_ROOMS).await;
        let rows = rows.map_err(|e| storage_failed(&e))?;
        let mut live: HashMap<String, RoomSummary> = self
            .placement
            .statuses_everywhere()
            .await
            .into_iter()
            .map(|room| (room.room.clone(), room))
            .collect();
        // This node's own rooms as they are now.
        live.extend(
            self.running_summaries()
                .into_iter()
                .map(|room| (room.room.clone(), room)),
        );
        Ok(rows
            .iter()
            .map(|row| {
                let summary = live.remove(&row.id).unwrap_or_else(|| summary_of(row));
                with_ratings(summary, row)
            })
            .filter(|room| room.status != RoomStatus::Over && !deserted(room))
            .collect())
    }

    /// Tells every room running on this node (not those it relays) that account
    /// `account` was deleted, and is named `name` now: those of its seats or lines take
    /// it in. Each node tells its own.
    pub(crate) fn forget(&self, account: &str, name: &str) {
        for summary in self.running_summaries() {
            if let Some(room) = self.running(&summary.room) {
                room.tell(Request::Forget {
                    account: account.to_owned(),
                    name: name.to_owned(),
                });
            }
        }
    }

    /// The summaries of the rooms running now on this node (not those it relays).
    pub(crate) fn running_summaries(&self) -> Vec<RoomSummary> {
        self.placement.statuses()
    }

    /// Loads the unfinished rooms that need a timer (a clock running, or the computer to
    /// move) that no live node holds, as many as `--max-rooms` allows; the others wait
    /// in the database until someone enters them. Answers how many were loaded.
    pub(crate) async fn restore(&self) -> Result<usize, Unavailable> {
        self.placement.restore().await
    }

    /// Deletes the rooms whose free seat nobody took within `--open-room-expiry`, and
    /// ends the games nobody played in for `--abandoned-game-expiry` (the player to move
    /// loses by abandonment); rooms running now, here or elsewhere, are left alone.
    /// Also queues the reminders due. Answers how many rooms.
    pub(crate) async fn sweep(&self) -> Result<usize, StoreError> {
        let now = clock::now();
        let before = |expiry: Duration| {
            now.saturating_sub(i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX))
        };
        let stale = self
            .store
            .stale(
                before(self.open_room_expiry),
                before(self.abandoned_game_expiry),
                now,
            )
            .await?;
        let mut idle = Vec::new();
        for room in stale {
            if self.running(&room.id).is_none() && !self.placement.held_elsewhere(&room.id).await {
                idle.push(room);
            }
        }
        let (store, mail) = (&self.store, &self.mail);
        let done = if idle.is_empty() {
            0
        } else {
            let done = store.expire(idle, mail.enabled()).await?;
            tracing::info!(rooms = done, "stale rooms expired or finished");
            mail.wake();
            done
        };
        if mail.enabled() {
            let reminded = self.remind(now).await?;
            if reminded > 0 {
                tracing::info!(players = reminded, "told that their time is running out");
                mail.wake();
            }
        }
        Ok(done)
    }

    /// Queues the mail that time is running out, once a move, to each player to move in
    /// a correspondence game with a quarter of the move's days left at `now`, unless they
    /// are at the board. Answers how many. A room running on another node waits for a
    /// later sweep: who is in it is that node's to know (and a room runs only while
    /// someone is in it).
    async fn remind(&self, now: i64) -> Result<usize, StoreError> {
        let store = &self.store;
        let mut reminded = 0;
        for due in store.running_out(now).await? {
            if let Some(room) = self.running(&due.room) {
                let connected = |summary: RoomSummary| summary.players.get(due.color).connected;
                if room.status().is_none_or(connected) {
                    continue;
                }
            } else if self.placement.held_elsewhere(&due.room).await {
                continue;
            }
            if store.remind(due).await? {
                reminded += 1;
            }
        }
        Ok(reminded)
    }
}

/// A room answered with another request's answer (logged where it was found): the
/// client sees a failure to try again.
fn mismatch(_: Mismatch) -> ErrorCode {
    ErrorCode::StorageFailed
}

/// Logs a storage failure; answers its code.
fn storage_failed(e: &StoreError) -> ErrorCode {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "database");
    ErrorCode::StorageFailed
}

/// Whether a live game has nobody at its board: both players away (or the one person
/// against the computer), in a game played in one sitting. The lobby leaves it out (a correspondence game's players come and go).
fn deserted(room: &RoomSummary) -> bool {
    // The computer is always at its board, and nobody comes to watch it wait.
    let present = |seat: &punct_protocol::SeatView| seat.connected && seat.computer.is_none();
    room.status == RoomStatus::Live
        && room.clock.is_none_or(|clock| clock.days.is_none())
        && !present(&room.players.white)
        && !present(&room.players.black)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use punct_protocol::{CreateRoom, Visibility};

    use super::*;
    use crate::room::Start;
    use crate::room::testing::Drive;

    async fn registry(config: Config) -> Registry {
        Registry::new(
            &config,
            &Services::start(&config, Store::empty().await, Nodes::Alone),
        )
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
            let join = Request::Join {
                conn,
                key: Key::Token(granted.token.clone()),
                since: None,
                lists: false,
                blocks: Vec::new(),
            };
            let (_, reply) = rooms
                .ask(&granted.room, &join)
                .await
                .expect("served, never no-such-room");
            assert!(reply.answer.entered().unwrap().is_ok());
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
        let rooms = Registry::new(
            &config,
            &Services::start(&config, store.clone(), Nodes::Alone),
        );
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
        let rooms = Registry::new(
            &config,
            &Services::start(&config, store.clone(), Nodes::Alone),
        );
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
        Registry::new(
            &config,
            &Services::start(&config, store.clone(), Nodes::Alone),
        )
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

    /// A stopping node that loaded a room again would run it beside the node that takes
    /// it over: once the stop fires, rooms are forgotten and none is loaded or made.
    #[tokio::test]
    async fn once_the_server_stops_no_room_is_loaded_or_made() {
        let config = Config::default();
        let store = Store::empty().await;
        let services = Services::start(&config, store.clone(), Nodes::Alone);
        let rooms = Registry::new(&config, &services);
        let open = rooms
            .create(CreateRoom::default(), Player::default())
            .await
            .unwrap();
        let member = rooms.enter(&open.room).await.unwrap();
        services.stop();
        let mut shutdown = services.shutdown.clone();
        shutdown.wait().await;
        tokio::task::yield_now().await;
        assert!(rooms.running(&open.room).is_none(), "forgotten at the stop");
        assert_eq!(
            rooms.enter(&open.room).await.err(),
            Some(ErrorCode::ShuttingDown)
        );
        let made = rooms.create(CreateRoom::default(), Player::default()).await;
        assert_eq!(made.err(), Some(ErrorCode::ShuttingDown));
        // The room's own member still reaches it until it leaves, and nothing was
        // stored for the refused room.
        assert!(member.record().await.is_ok());
        assert_eq!(
            store.lobby(10).await.unwrap().len(),
            1,
            "the first room only"
        );
    }
}
