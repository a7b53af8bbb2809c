//! Every room of the server, by id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use punct_protocol::{CreateRoom, ErrorCode, RoomSummary, SeatGranted};

use crate::room::RoomHandle;
use crate::{Config, secret};

/// A cheap, cloneable handle on the table of rooms.
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
}

#[derive(Debug, Default)]
struct Table {
    /// Rooms by id, with their number in order of creation (for the lobby).
    rooms: HashMap<String, (u64, RoomHandle)>,
    /// How many rooms have been created: the next room's number.
    created: u64,
}

impl Rooms {
    /// An empty table.
    pub(crate) fn new(config: &Config) -> Rooms {
        Rooms {
            shared: Arc::new(Shared {
                table: Mutex::new(Table::default()),
                max_rooms: config.max_rooms,
                event_buffer: config.room_event_buffer,
                idle_timeout: config.room_idle_timeout,
            }),
        }
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

    /// Creates a room; its creator gets a seat.
    pub(crate) fn create(&self, request: CreateRoom) -> Result<SeatGranted, ErrorCode> {
        let mut table = self.lock();
        if table.rooms.len() >= self.shared.max_rooms {
            return Err(ErrorCode::TooManyRooms);
        }
        let id = loop {
            let id = secret::room_id();
            if !table.rooms.contains_key(&id) {
                break id;
            }
        };
        let (handle, granted) = RoomHandle::spawn(id.clone(), request, self.clone());
        let number = table.created;
        table.created += 1;
        table.rooms.insert(id, (number, handle));
        Ok(granted)
    }

    /// The room with this id.
    pub(crate) fn get(&self, id: &str) -> Option<RoomHandle> {
        self.lock().rooms.get(id).map(|(_, handle)| handle.clone())
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
        Rooms::new(&Config {
            room_idle_timeout: Duration::from_secs(60),
            ..Config::default()
        })
    }

    #[tokio::test(start_paused = true)]
    async fn an_abandoned_room_closes_after_the_idle_timeout() {
        let rooms = rooms();
        let room = rooms.create(CreateRoom::default()).unwrap().room;
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert!(rooms.get(&room).is_some());
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(rooms.get(&room).is_none());
        assert!(rooms.summaries().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_room_with_someone_in_it_stays_open() {
        let rooms = rooms();
        let room = rooms.create(CreateRoom::default()).unwrap().room;
        let handle = rooms.get(&room).unwrap();
        let joined = handle.watch(7).await.unwrap();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert!(
            rooms.get(&room).is_some(),
            "a spectator keeps the room open"
        );
        // Once the spectator has gone, the room lives one more idle timeout.
        handle.leave(7);
        drop(joined);
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert!(rooms.get(&room).is_some());
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert!(rooms.get(&room).is_none());
    }

    #[tokio::test]
    async fn the_room_limit_holds() {
        let rooms = Rooms::new(&Config {
            max_rooms: 2,
            ..Config::default()
        });
        rooms.create(CreateRoom::default()).unwrap();
        rooms.create(CreateRoom::default()).unwrap();
        assert_eq!(
            rooms.create(CreateRoom::default()),
            Err(punct_protocol::ErrorCode::TooManyRooms)
        );
    }
}
