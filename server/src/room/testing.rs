//! For tests: a room handle's requests as methods, so that a test reads like the
//! conversation it drives. (Production code asks with [`Request`] values.)

use std::sync::Arc;

use punct_protocol::{Action, ErrorCode, Record, Role, RoomSummary, SeatGranted, Seq};
use punct_rules::Turn;
use tokio::sync::broadcast;

use super::RoomHandle;
use super::kind::Rooms;
use super::protocol::{Event, Key, Request, Start};
use super::setup::Setup;
use crate::cluster::{Closed, ConnId, Handle, Kind};
use crate::errors::Refused;
use crate::lease::Lease;
use crate::store::Player;

/// Starts the room of `setup` among `rooms`, alone (no registry): its handle.
pub(crate) fn start(setup: Setup, rooms: &Rooms) -> RoomHandle {
    let (inbox, requests) = tokio::sync::mpsc::channel(64);
    let id = setup.id.clone();
    let started = rooms.start(setup, requests);
    tokio::spawn(started.task);
    Handle::local(&id, inbox, started.status, Lease::default())
}

/// What a connection gets on entering, with the room's events after it.
#[derive(Debug)]
pub(crate) struct Joined {
    /// Who it is in the room.
    pub(crate) role: Role,
    /// Where its view starts.
    pub(crate) start: Start,
    /// The events after it.
    pub(crate) events: broadcast::Receiver<Arc<Event>>,
}

/// A room's requests, as a test makes them.
pub(crate) trait Drive {
    /// `TakeSeat`.
    async fn take_seat(&self, player: Player) -> Result<Result<SeatGranted, ErrorCode>, Closed>;
    /// `Join`.
    async fn join(
        &self,
        conn: ConnId,
        key: impl Into<Key>,
        since: Option<Seq>,
        lists: bool,
    ) -> Result<Result<Joined, ErrorCode>, Closed>;
    /// `Watch`.
    async fn watch(&self, conn: ConnId, since: Option<Seq>) -> Result<Joined, Closed>;
    /// `Act`, without a turn number.
    async fn act(
        &self,
        conn: ConnId,
        action: Action,
        retry: bool,
    ) -> Result<Result<Seq, Refused>, Closed>;
    /// `Act` playing `turn`.
    async fn play(&self, conn: ConnId, turn: Turn) -> Result<Result<Seq, Refused>, Closed> {
        self.act(conn, Action::Play { turn, number: None }, false)
            .await
    }
    /// `Record`.
    async fn record(&self) -> Result<Record, Closed>;
    /// `Summary`.
    async fn summary(&self) -> Result<RoomSummary, Closed>;
    /// `Leave`.
    fn leave(&self, conn: ConnId);
}

impl Drive for RoomHandle {
    async fn take_seat(&self, player: Player) -> Result<Result<SeatGranted, ErrorCode>, Closed> {
        let blockers = Vec::new();
        let reply = self.ask(Request::TakeSeat { player, blockers }).await?;
        Ok(reply.answer.seat().expect("a seat answers TakeSeat"))
    }

    async fn join(
        &self,
        conn: ConnId,
        key: impl Into<Key>,
        since: Option<Seq>,
        lists: bool,
    ) -> Result<Result<Joined, ErrorCode>, Closed> {
        let key = key.into();
        entered(self.ask(Request::Join {
            conn,
            key,
            since,
            lists,
            blocks: Vec::new(),
        }))
        .await
    }

    async fn watch(&self, conn: ConnId, since: Option<Seq>) -> Result<Joined, Closed> {
        let blocks = Vec::new();
        let joined = entered(self.ask(Request::Watch {
            conn,
            since,
            blocks,
        }))
        .await?;
        Ok(joined.expect("a spectator always enters"))
    }

    async fn act(
        &self,
        conn: ConnId,
        action: Action,
        retry: bool,
    ) -> Result<Result<Seq, Refused>, Closed> {
        let request = Request::Act {
            conn,
            action,
            retry,
        };
        let reply = self.ask(request).await?;
        Ok(reply.answer.done().expect("done answers Act"))
    }

    async fn record(&self) -> Result<Record, Closed> {
        let reply = self.ask(Request::Record).await?;
        Ok(reply.answer.record().expect("a record answers Record"))
    }

    async fn summary(&self) -> Result<RoomSummary, Closed> {
        let reply = self.ask(Request::Summary).await?;
        Ok(reply.answer.summary().expect("a summary answers Summary"))
    }

    fn leave(&self, conn: ConnId) {
        self.tell(Request::Leave { conn });
    }
}

/// What an entering request answered, with its events.
async fn entered(
    asked: impl Future<Output = Result<crate::cluster::Reply<super::Rooms>, Closed>>,
) -> Result<Result<Joined, ErrorCode>, Closed> {
    let reply = asked.await?;
    let entered = reply.answer.entered().expect("entered answers entering");
    Ok(entered.map(|entered| Joined {
        role: entered.role,
        start: entered.start,
        events: reply.events,
    }))
}
