//! Every room of the server, by id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use punct_protocol::{
    CreateRoom, ErrorCode, RoomSummary, SeatChoice, SeatGranted, TimeControl, Visibility,
};
use punct_rules::{Color, Variant};

use crate::clock::Clock;
use crate::metrics::Metrics;
use crate::room::{RoomHandle, Setup};
use crate::store::{Store, StoreError, TokenHash, hash_token};
use crate::{Config, secret};

/// A cheap, cloneable handle on the table of rooms running now. Every room is also in the
/// store: one that is not running (after a restart, or closed for want of visitors) is
/// loaded again when asked for.
///
/// The table is behind a std `Mutex`, not tokio's: it is held only to look up, insert or
/// list handles, never across an `.await`, and never on the move path (a connection looks
/// its room up once, then talks to the room's actor directly).
#[derive(Clone, Debug)]
pub(crate) struct Rooms {
    /// The table and the limit on its size.
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// The rooms.
    table: Mutex<Table>,
    /// Most rooms held at once.
    max_rooms: usize,
    /// Room events kept for members that fall behind.
    event_buffer: usize,
    /// How long an empty room lives on without requests.
    idle_timeout: Duration,
    /// How long a player may be away before the opponent may claim the win.
    grace_period: Duration,
    /// Where rooms and turns are kept.
    store: Store,
    /// The counters of `/metrics`.
    metrics: Metrics,
    /// How long the computer thinks about a turn.
    computer_think_time: Duration,
}

#[derive(Debug, Default)]
struct Table {
    /// Rooms by id, with their number in order of creation (for the lobby).
    rooms: HashMap<String, (u64, RoomHandle)>,
    /// How many rooms have been created: the next room's number.
    created: u64,
}

impl Rooms {
    /// An empty table of the rooms of `store`.
    pub(crate) fn new(config: &Config, store: Store) -> Rooms {
        Rooms {
            shared: Arc::new(Shared {
                table: Mutex::new(Table::default()),
                max_rooms: config.max_rooms,
                event_buffer: config.room_event_buffer,
                idle_timeout: config.room_idle_timeout,
                grace_period: config.grace_period,
                metrics: Metrics::new(store.commit_times()),
                computer_think_time: config.computer_think_time,
                store,
            }),
        }
    }

    /// How long a player may be away before the opponent may claim the win.
    pub(crate) fn grace_period(&self) -> Duration {
        self.shared.grace_period
    }

    /// Where rooms and turns are kept.
    pub(crate) fn store(&self) -> &Store {
        &self.shared.store
    }

    /// How long the computer thinks about a turn (less in a timed game when its clock is
    /// short).
    pub(crate) fn computer_think_time(&self) -> Duration {
        self.shared.computer_think_time
    }

    /// The counters of `/metrics`.
    pub(crate) fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// Room events kept for members that fall behind.
    pub(crate) fn event_buffer(&self) -> usize {
        self.shared.event_buffer
    }

    /// How long an empty room lives on without requests.
    pub(crate) fn idle_timeout(&self) -> Duration {
        self.shared.idle_timeout
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        // No code that holds the lock can panic half-way through a change.
        self.shared
            .table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates a room and stores it; its creator gets a seat.
    pub(crate) async fn create(&self, request: CreateRoom) -> Result<SeatGranted, ErrorCode> {
        let color = match request.color {
            SeatChoice::White => Color::White,
            SeatChoice::Black => Color::Black,
            SeatChoice::Random if secret::coin() => Color::White,
            SeatChoice::Random => Color::Black,
        };
        let token = secret::token();
        let mut seats = [None; 2];
        seats[color as usize] = Some(hash_token(&token));
        let computer = request.computer.map(|level| (color.opponent(), level));
        let room = self
            .open(
                request.variant,
                request.visibility,
                request.clock,
                seats,
                computer,
            )
            .await?;
        Ok(SeatGranted { room, color, token })
    }

    /// Stores and starts a new room whose seats given out are held by the tokens of
    /// `seats` (White's, Black's; at least one); answers its id.
    pub(crate) async fn open(
        &self,
        variant: Variant,
        visibility: Visibility,
        control: Option<TimeControl>,
        mut seats: [Option<TokenHash>; 2],
        computer: Option<(Color, u8)>,
    ) -> Result<String, ErrorCode> {
        if self.lock().rooms.len() >= self.shared.max_rooms {
            return Err(ErrorCode::TooManyRooms);
        }
        // 80 random bits: a clash with a stored room is refused by the store.
        let id = secret::room_id();
        let failed = |e: StoreError| {
            tracing::error!("{e}");
            ErrorCode::StorageFailed
        };
        let mut given = Color::ALL
            .into_iter()
            .filter_map(|color| Some((color, seats[color as usize]?)));
        let (color, token) = given.next().expect("a new room has a player");
        let clock = control.map(Clock::control_ms);
        let store = self.store();
        store
            .create_room(&id, variant, visibility, clock, color, token)
            .await
            .map_err(failed)?;
        for (color, token) in given {
            store.take_seat(&id, color, token).await.map_err(failed)?;
        }
        if let Some((color, level)) = computer {
            // The computer's seat is taken by a token nobody is ever given.
            let token = hash_token(&secret::token());
            seats[color as usize] = Some(token);
            store.take_seat(&id, color, token).await.map_err(failed)?;
            store
                .seat_computer(&id, color, level)
                .await
                .map_err(failed)?;
        }
        let mut setup = Setup::new(id.clone(), variant, visibility, control, color, token);
        setup.seats = seats;
        setup.computer = computer;
        self.insert(setup);
        Ok(id)
    }

    /// Starts the actor of `setup` and lists it; answers the handle of the room running
    /// under that id (another task may have loaded it first).
    fn insert(&self, setup: Setup) -> RoomHandle {
        let mut table = self.lock();
        if let Some((_, running)) = table.rooms.get(&setup.id) {
            return running.clone();
        }
        let id = setup.id.clone();
        let handle = RoomHandle::spawn(setup, self.clone());
        let number = table.created;
        table.created += 1;
        table.rooms.insert(id, (number, handle.clone()));
        handle
    }

    /// The room with this id, loaded from the store if it is not running.
    pub(crate) async fn get(&self, id: &str) -> Option<RoomHandle> {
        if let Some((_, handle)) = self.lock().rooms.get(id) {
            return Some(handle.clone());
        }
        match self.store().load(id).await {
            Ok(Some(stored)) => match Setup::stored(id.to_owned(), stored) {
                Ok(setup) => Some(self.insert(setup)),
                Err(why) => {
                    tracing::error!(room = id, "cannot load: {why}");
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                tracing::error!(room = id, "cannot load: {e}");
                None
            }
        }
    }

    /// Loads every room whose game is not over, as it was when the server stopped.
    pub(crate) async fn restore(&self) -> Result<usize, crate::store::StoreError> {
        let ids = self.store().unfinished().await?;
        let mut restored = 0;
        for id in ids {
            restored += usize::from(self.get(&id).await.is_some());
        }
        Ok(restored)
    }

    /// Every room's summary, oldest room first.
    pub(crate) fn summaries(&self) -> Vec<RoomSummary> {
        let mut rooms: Vec<(u64, RoomSummary)> = self
            .lock()
            .rooms
            .values()
            .map(|(order, handle)| (*order, handle.summary()))
            .collect();
        rooms.sort_by_key(|(order, _)| *order);
        rooms.into_iter().map(|(_, summary)| summary).collect()
    }

    /// Forgets the room `id`: it has closed.
    pub(crate) fn remove(&self, id: &str) {
        self.lock().rooms.remove(id);
    }

    /// Forgets every room: their actors stop once their last member has gone.
    pub(crate) fn clear(&self) {
        self.lock().rooms.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use punct_protocol::CreateRoom;

    use super::*;

    fn rooms() -> Rooms {
        let config = Config {
            room_idle_timeout: Duration::from_secs(60),
            ..Config::default()
        };
        Rooms::new(&config, Store::open(None).unwrap())
    }

    /// Whether `id` is running, without loading it from the store.
    fn running(rooms: &Rooms, id: &str) -> bool {
        rooms.lock().rooms.contains_key(id)
    }

    #[tokio::test(start_paused = true)]
    async fn an_abandoned_room_closes_after_the_idle_timeout() {
        let rooms = rooms();
        let room = rooms.create(CreateRoom::default()).await.unwrap().room;
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert!(running(&rooms, &room));
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(!running(&rooms, &room));
        assert!(rooms.summaries().is_empty());
        // It is still in the store, and runs again when asked for.
        assert!(rooms.get(&room).await.is_some());
        assert!(running(&rooms, &room));
    }

    #[tokio::test(start_paused = true)]
    async fn a_room_with_someone_in_it_stays_open() {
        let rooms = rooms();
        let room = rooms.create(CreateRoom::default()).await.unwrap().room;
        let handle = rooms.get(&room).await.unwrap();
        let joined = handle.watch(7, None).await.unwrap();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert!(running(&rooms, &room), "a spectator keeps the room open");
        // Once the spectator has gone, the room lives one more idle timeout.
        handle.leave(7);
        drop(joined);
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert!(running(&rooms, &room));
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert!(!running(&rooms, &room));
    }

    #[tokio::test]
    async fn the_room_limit_holds() {
        let config = Config {
            max_rooms: 2,
            ..Config::default()
        };
        let rooms = Rooms::new(&config, Store::open(None).unwrap());
        rooms.create(CreateRoom::default()).await.unwrap();
        rooms.create(CreateRoom::default()).await.unwrap();
        assert_eq!(
            rooms.create(CreateRoom::default()).await,
            Err(punct_protocol::ErrorCode::TooManyRooms)
        );
    }
}
