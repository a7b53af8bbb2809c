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
use crate::errors::Refused;
use crate::i18n::Lang;
use crate::mail::Mailer;
use crate::room::{
    Answer, Context, Fresh, Key, LIVE_EVENTS, Mismatch, Moderate, Request, RoomHandle, Rooms,
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
    pub(crate) async fn moderate(&self, id: &str, moderate: Moderate) -> Result<(), Refused> {
        let answer = self.answer(id, Request::Moderate(moderate)).await;
        let refused = |code| Refused::new(code, errors::message(code, Lang::En));
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
mod tests;
