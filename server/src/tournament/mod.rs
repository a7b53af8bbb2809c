//! Tournaments: Swiss events, round robins and arenas, each run by one actor, its
//! director, which `cluster` places, relays and fails over as it does rooms. The director stores
//! each round's pairings with their rooms (made by `registry`, as every room is) before
//! anyone hears of them, and reads results from the rooms' stored outcomes, so a
//! restart, a `kill -9` or a failover never pairs anyone twice nor loses a result.
//!
//! # Layout
//!
//! - this file: [`Tournaments`], what HTTP and connections ask: creating, listing,
//!   reading, joining, withdrawing, following; and the tasks that load directors when
//!   their start is due or their node dies, and tell them when their games end.
//! - `protocol`: [`Request`], [`Answer`] and [`Event`], the director's whole interface.
//! - `state`: what a director starts from, and the state its actor owns.
//! - `director`: the actor: starting, pairing each round, withdrawals, the end.
//! - `view`: the tournament as it is shown (standings with their tie-breaks, rounds),
//!   computed from what is stored.
//! - `kind`: directors as a kind of actor for `cluster`.
//!
//! Must not import: `connection`, `api`.

mod director;
mod kind;
mod protocol;
mod state;
#[cfg(test)]
mod tests;
mod view;

use std::sync::Arc;

use punct_protocol::{
    CreateTournament, ErrorCode, TournamentFormat, TournamentList, TournamentState, TournamentView,
};
use tokio::sync::broadcast;

use crate::clock::now;
use crate::cluster::{Limits, PlaceError, Placement, Unavailable, Whereabouts};
use crate::config::Config;
use crate::errors;
use crate::i18n::Lang;
use crate::registry::Registry;
use crate::secret;
use crate::services::{GameEnded, Services};
use crate::store::{Account, AccountId, NewTournament, Store, StoreError};

use crate::errors::Refused;
use kind::Directors;
pub(crate) use protocol::{Event, Request};
use state::Shared;

/// Most finished tournaments listed.
const FINISHED_LISTED: usize = 50;

/// Most tournaments listed not finished, in each state.
const OPEN_LISTED: usize = 500;

/// Requests a director's inbox holds before senders wait.
const REQUEST_QUEUE: usize = 64;

/// Most players of a tournament; of a round robin, whose games all exist at once.
const MOST_PLAYERS: u32 = 1000;
const MOST_ROBIN_PLAYERS: u32 = 64;

/// Most rounds of a Swiss.
const MOST_ROUNDS: u32 = 20;

/// Longest name of a tournament, in characters.
const LONGEST_NAME: usize = 60;

/// A cheap, cloneable handle on the tournaments.
#[derive(Clone, Debug)]
pub(crate) struct Tournaments {
    /// Where directors run, and how they are reached.
    placement: Placement<Directors>,
    /// Where tournaments are kept.
    store: Store,
}

/// The code a client sees when a director could not be reached.
fn refused(e: PlaceError) -> ErrorCode {
    e.code::<Directors>()
}

/// Logs a storage failure; answers its code.
fn storage_failed(e: &StoreError) -> ErrorCode {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "database");
    ErrorCode::StorageFailed
}

impl Tournaments {
    /// The tournaments of the server's `services`, their games' rooms made in `rooms`;
    /// their games' ends are passed on to their directors from now on.
    pub(crate) fn new(config: &Config, services: &Services, rooms: Registry) -> Tournaments {
        let store = services.store.clone();
        let limits = Limits {
            max: config.max_rooms,
            queue: REQUEST_QUEUE,
            events: config.room_event_buffer,
            patience: config.cluster_lease * 3,
        };
        let ends = services.game_ends.subscribe();
        let nodes = services.nodes.clone();
        let directors = Directors {
            shared: Arc::new(Shared {
                store: store.clone(),
                registry: rooms,
            }),
        };
        let tournaments = Tournaments {
            placement: Placement::new(directors, nodes, limits, services.shutdown.clone()),
            store,
        };
        tokio::spawn(tournaments.clone().pass_on(ends));
        tournaments
    }

    /// Where tournament `id`'s director runs: the node holding its claim, and whether
    /// this node holds it. Asking loads nothing, so that an operator watching a failover
    /// does not cause it.
    pub(crate) async fn whereabouts(&self, id: &str) -> Result<Whereabouts, ErrorCode> {
        let known = self.store.tournament(id).await;
        if known.map_err(|e| storage_failed(&e))?.is_none() {
            return Err(ErrorCode::NoSuchTournament);
        }
        self.placement.whereabouts(id).await.map_err(refused)
    }

    /// Tells each director the ends of its games, as rooms run here report them.
    async fn pass_on(self, mut ends: broadcast::Receiver<GameEnded>) {
        loop {
            match ends.recv().await {
                Ok(GameEnded { room, tournament }) => {
                    match self.placement.enter(&tournament).await {
                        Ok(director) => director.tell(Request::GameEnded { room }),
                        // The director reads the result from the store when it runs.
                        Err(e) => tracing::warn!(tournament, room, ?e, "a game's end was not told"),
                    }
                }
                // Missed ends are read from the store at the director's next poll.
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "game ends missed");
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    /// Creates the tournament `request` describes, by `creator`; answers it.
    pub(crate) async fn create(
        &self,
        request: CreateTournament,
        creator: &Account,
    ) -> Result<TournamentView, Refused> {
        check(&request, now())?;
        let id = secret::uuid_v7();
        let new = NewTournament {
            id: id.clone(),
            name: request.name.trim().to_owned(),
            format: request.format,
            variant: request.variant,
            clock: request.clock,
            rated: request.rated,
            starts_at: request.starts_at,
            ends_at: request.ends_at,
            rounds: request.rounds,
            min_players: request.min_players,
            max_players: request.max_players,
            creator: creator.id.clone(),
        };
        self.store.create_tournament(new).await?;
        // Its director runs from now on, to start it on time.
        self.view(&id)
            .await
            .map_err(|code| Refused::new(code, errors::message(code, Lang::En).to_owned()))
    }

    /// Every tournament not over, and the latest over.
    pub(crate) async fn list(&self) -> Result<TournamentList, ErrorCode> {
        let store = &self.store;
        let read = async {
            let upcoming = store
                .tournaments_in(TournamentState::Upcoming, OPEN_LISTED)
                .await?;
            let running = store
                .tournaments_in(TournamentState::Running, OPEN_LISTED)
                .await?;
            let mut finished = store
                .tournaments_in(TournamentState::Finished, FINISHED_LISTED)
                .await?;
            finished.extend(
                store
                    .tournaments_in(TournamentState::Cancelled, FINISHED_LISTED)
                    .await?,
            );
            Ok::<_, StoreError>(TournamentList {
                upcoming,
                running,
                finished,
            })
        };
        read.await.map_err(|e| storage_failed(&e))
    }

    /// Tournament `id` as it stands: asked of its director, loaded if need be.
    pub(crate) async fn view(&self, id: &str) -> Result<TournamentView, ErrorCode> {
        Ok(self.follow(id).await?.0)
    }

    /// Tournament `id` as it stands, and its events from then on.
    pub(crate) async fn follow(
        &self,
        id: &str,
    ) -> Result<(TournamentView, broadcast::Receiver<Arc<Event>>), ErrorCode> {
        let (_, reply) = self
            .placement
            .ask(id, &Request::View)
            .await
            .map_err(refused)?;
        Ok((reply.answer.view()?, reply.events))
    }

    /// `account` joins tournament `id`.
    pub(crate) async fn join(&self, id: &str, account: Account) -> Result<(), ErrorCode> {
        self.done(id, Request::Join { account }).await
    }

    /// `account` withdraws from tournament `id`.
    pub(crate) async fn withdraw(&self, id: &str, account: AccountId) -> Result<(), ErrorCode> {
        self.done(id, Request::Withdraw { account }).await
    }

    async fn done(&self, id: &str, request: Request) -> Result<(), ErrorCode> {
        let (_, reply) = self.placement.ask(id, &request).await.map_err(refused)?;
        reply.answer.done()
    }

    /// Loads the directors of the tournaments running or about to start that no live
    /// node runs; answers how many.
    pub(crate) async fn restore(&self) -> Result<usize, Unavailable> {
        self.placement.restore().await
    }
}

/// Why `request`, made at `now`, cannot be a tournament, if it cannot.
fn check(request: &CreateTournament, now: i64) -> Result<(), Refused> {
    let bad = |why: &str| Err(Refused::new(ErrorCode::BadRequest, why.to_owned()));
    let name = request.name.trim();
    if name.is_empty() || name.chars().count() > LONGEST_NAME || name.chars().any(char::is_control)
    {
        return bad("a tournament's name has 1 to 60 characters, none of them control characters");
    }
    if let Some(why) = request.clock.and_then(|clock| clock.refusal()) {
        return Err(Refused::new(ErrorCode::BadRequest, why));
    }
    if request.starts_at < now {
        return bad("starts_at is in the past");
    }
    let most = match request.format {
        TournamentFormat::RoundRobin | TournamentFormat::DoubleRoundRobin => MOST_ROBIN_PLAYERS,
        TournamentFormat::Swiss | TournamentFormat::Arena => MOST_PLAYERS,
    };
    if request.min_players < 2
        || request.min_players > request.max_players
        || request.max_players > most
    {
        return Err(Refused::new(
            ErrorCode::BadRequest,
            format!(
                "min_players is at least 2, max_players at least min_players and at most {most}"
            ),
        ));
    }
    match request.format {
        TournamentFormat::Swiss => {
            if !request
                .rounds
                .is_some_and(|r| (1..=MOST_ROUNDS).contains(&r))
            {
                return bad("a Swiss has 1 to 20 rounds");
            }
            if request.ends_at.is_some() {
                return bad("only an arena has ends_at");
            }
        }
        TournamentFormat::RoundRobin | TournamentFormat::DoubleRoundRobin => {
            if request.rounds.is_some() || request.ends_at.is_some() {
                return bad(
                    "a round robin has neither rounds nor ends_at: its players make its rounds",
                );
            }
        }
        TournamentFormat::Arena => {
            if request.rounds.is_some() {
                return bad("an arena has no rounds: it lasts until ends_at");
            }
            if request.ends_at.is_none_or(|end| end <= request.starts_at) {
                return bad("an arena ends (ends_at) after it starts");
            }
            if request.clock.is_none_or(|clock| clock.days.is_some()) {
                return bad("an arena's games have a clock (not days per move): they must end");
            }
        }
    }
    Ok(())
}
