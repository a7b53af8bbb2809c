//! One tournament's director: the actor that owns its entries and pairings, starts it
//! at its start time, pairs each round (stored, with its rooms, before anyone hears of
//! it) once the round before has ended (an arena: its pool whenever players wait in
//! it, until its end), forfeits a withdrawn player's games, and ends it.
//!
//! Everything it knows is in the store, and it reads it again on every decision: a
//! director loaded after a restart, a `kill -9` or a failover carries on from the
//! pairings stored, and since a round's pairings are keyed by (tournament, round,
//! board), a round can be stored only once, whoever tries.

use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;

use punct_pairing::{Arena, Cycles, Pair, Status, berger, pair_round};
use punct_protocol::{ErrorCode, ServerMessage, TournamentFormat, TournamentState};
use tokio::time::Instant;

use super::kind::Directors;
use super::protocol::{Answer, Event, Request};
use super::state::Director;
use super::view::{self, rounds};
use crate::clock::now;
use crate::cluster::{Envelope, Inbox};
use crate::registry::Registry;
use crate::room::Moderate;
use crate::store::{Account, AccountId, NewPairing, Player, StoreError};

/// How often a running director reads its games' results from the store, in case a
/// game's end was not told (its room ran on a node that died, or the sweep ended it).
pub(super) const POLL: Duration = Duration::from_secs(10);

/// How long a director whose tournament is over lingers for late questions.
const LINGER: Duration = Duration::from_secs(60);

/// The least time between two views of the whole tournament told to its followers:
/// changes closer together are told at once, this long after the last. An arena of a
/// thousand players changes at every game's end, and each view goes to every follower.
pub(super) const TELL_EVERY: Duration = Duration::from_secs(1);

impl Director {
    /// Serves `inbox` until it closes, or a while after the tournament is over.
    pub(crate) async fn run(mut self, mut inbox: Inbox<Directors>) {
        // Loaded after a restart or a failover: carry on from what is stored.
        self.advance().await;
        loop {
            let look = self.look_at();
            let tell = self.untold.then(|| {
                self.told
                    .map_or_else(Instant::now, |told| told + TELL_EVERY)
            });
            let wake = tell.map_or(look, |tell| tell.min(look));
            tokio::select! {
                envelope = inbox.recv() => match envelope {
                    Some(envelope) => self.serve(envelope).await,
                    None => return,
                },
                () = tokio::time::sleep_until(wake) => {
                    self.tell();
                    if Instant::now() < look {
                        continue;
                    }
                    if self.over_since.is_some_and(|since| since.elapsed() >= LINGER) {
                        return;
                    }
                    self.advance().await;
                }
            }
        }
    }

    /// When the director must look again without being asked: its start, its next
    /// poll of the results, or its closing once over.
    fn look_at(&self) -> Instant {
        if let Some(since) = self.over_since {
            return since + LINGER;
        }
        let poll = self.polled + POLL;
        let due = match self.summary.state {
            TournamentState::Upcoming => Some(self.summary.starts_at),
            TournamentState::Running => self.summary.ends_at,
            _ => None,
        };
        match due {
            Some(due) => {
                let wait = u64::try_from(due - now()).unwrap_or(0);
                poll.min(Instant::now() + Duration::from_millis(wait))
            }
            None => poll,
        }
    }

    /// Serves one request.
    async fn serve(&mut self, envelope: Envelope<Directors>) {
        let (request, asker) = envelope.open();
        let answer = match request {
            Request::Join { account } => Answer::Done(self.join(account).await),
            Request::Withdraw { account } => Answer::Done(self.withdraw(&account).await),
            Request::View => Answer::View(Box::new(self.view())),
            Request::GameEnded { room } => {
                tracing::debug!(tournament = self.summary.id, room, "a game ended");
                self.advance().await;
                return;
            }
        };
        asker.answer(answer, &self.events);
    }

    /// The tournament as it stands.
    fn view(&self) -> punct_protocol::TournamentView {
        view::view(&self.summary, &self.entries, &self.pairings)
    }

    /// Lists the tournament as it stands, and tells its followers (now, or with the
    /// changes that follow within [`TELL_EVERY`]).
    fn changed(&mut self) {
        let _ = self.status.send(self.summary.clone());
        self.untold = true;
        self.tell();
    }

    /// Tells followers the tournament as it stands, if it changed since they were last
    /// told and that was [`TELL_EVERY`] ago.
    fn tell(&mut self) {
        if !self.untold || self.told.is_some_and(|told| told.elapsed() < TELL_EVERY) {
            return;
        }
        let view = self.view();
        let over = matches!(
            view.summary.state,
            TournamentState::Finished | TournamentState::Cancelled
        );
        let message = ServerMessage::Tournament {
            id: None,
            tournament: Box::new(view),
        };
        let json = serde_json::to_string(&message).expect("server messages serialise");
        let _ = self.events.send(Arc::new(Event::Changed {
            over,
            json: json.into(),
        }));
        self.told = Some(Instant::now());
        self.untold = false;
    }

    /// Enters `account`: before the start only (an arena: also while it runs, and back
    /// after pausing), once, while there is room.
    async fn join(&mut self, account: Account) -> Result<(), ErrorCode> {
        let arena = self.summary.format == TournamentFormat::Arena;
        let open = match self.summary.state {
            TournamentState::Upcoming => arena || now() < self.summary.starts_at,
            TournamentState::Running => arena,
            TournamentState::Finished | TournamentState::Cancelled => false,
        };
        if !open {
            return Err(ErrorCode::TournamentStarted);
        }
        let entry = self.entries.iter().find(|e| e.account.id == account.id);
        match entry {
            Some(entry) if !(arena && entry.withdrawn_at.is_some()) => {
                return Err(ErrorCode::AlreadyEntered);
            }
            Some(_) => {}
            None if self.entries.len()
                >= usize::try_from(self.summary.max_players).unwrap_or(0) =>
            {
                return Err(ErrorCode::TournamentFull);
            }
            None => {}
        }
        let entered = self.shared.store.enter(&self.summary.id, &account.id).await;
        entered.map_err(|e| storage_failed(&e))?;
        self.reload().await.map_err(|e| storage_failed(&e))?;
        self.changed();
        // An arena pairs a player coming into its pool at once.
        self.advance().await;
        Ok(())
    }

    /// `account` leaves: before the start, its entry goes; after it, it is paired no
    /// more and its games not over are forfeited (in an arena it pauses: out of the pool
    /// once its game is over, back when it joins again).
    async fn withdraw(&mut self, account: &AccountId) -> Result<(), ErrorCode> {
        let store = &self.shared.store;
        let id = &self.summary.id;
        let entered = self
            .entries
            .iter()
            .any(|e| e.account.id == *account && e.withdrawn_at.is_none());
        match self.summary.state {
            _ if !entered => return Err(ErrorCode::NotEntered),
            TournamentState::Upcoming => {
                store
                    .leave(id, account)
                    .await
                    .map_err(|e| storage_failed(&e))?;
            }
            TournamentState::Running => {
                store
                    .withdraw(id, account)
                    .await
                    .map_err(|e| storage_failed(&e))?;
                // In an arena this is a pause: the game under way is played out.
                if self.summary.format != TournamentFormat::Arena {
                    self.forfeit(account).await;
                }
            }
            TournamentState::Finished | TournamentState::Cancelled => {
                return Err(ErrorCode::TournamentStarted);
            }
        }
        self.reload().await.map_err(|e| storage_failed(&e))?;
        self.changed();
        // A round that waited only for the withdrawn player's game may start now.
        self.advance().await;
        Ok(())
    }

    /// Forfeits `account`'s games not over: each room ends the game, stores it and
    /// tells this director.
    async fn forfeit(&self, account: &AccountId) {
        let rooms = self.pairings.iter().filter(|p| {
            p.outcome.is_none()
                && (p.white.id == *account || p.black.as_ref().is_some_and(|b| b.id == *account))
        });
        for room in rooms.filter_map(|p| p.room.as_deref()) {
            let forfeit = Moderate::Forfeit {
                account: account.clone(),
            };
            if let Err(refused) = self.shared.registry.moderate(room, forfeit).await {
                tracing::warn!(room, code = %refused.code, "a withdrawn player's game was not forfeited");
            }
        }
    }

    /// Reads the entries and the pairings (with their results) again.
    async fn reload(&mut self) -> Result<(), StoreError> {
        let store = &self.shared.store;
        self.entries = store.entries(&self.summary.id).await?;
        self.pairings = store.pairings(&self.summary.id).await?;
        self.summary.players = self.active().len().try_into().unwrap_or(u32::MAX);
        self.summary.round = self.pairings.last().map_or(0, |p| p.round);
        Ok(())
    }

    /// The players not withdrawn, by their place in the entries.
    fn active(&self) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].withdrawn_at.is_none())
            .collect()
    }

    /// Does what is due: starts the tournament at its start time; pairs the next round
    /// once the last has ended; ends it after its last round. Failures of the store
    /// are tried again at the next poll.
    async fn advance(&mut self) {
        self.polled = Instant::now();
        if let Err(e) = self.step().await {
            let error: &dyn std::error::Error = &e;
            tracing::error!(
                tournament = self.summary.id,
                error,
                "the director could not go on"
            );
        }
        if matches!(
            self.summary.state,
            TournamentState::Finished | TournamentState::Cancelled
        ) && self.over_since.is_none()
        {
            self.over_since = Some(Instant::now());
        }
    }

    async fn step(&mut self) -> Result<(), StoreError> {
        match self.summary.state {
            TournamentState::Upcoming if now() >= self.summary.starts_at => self.start().await,
            TournamentState::Running => {
                self.refresh().await?;
                self.next().await
            }
            // An arena's games paired before its end are played out after it, and
            // count when they end.
            TournamentState::Finished
                if self
                    .pairings
                    .iter()
                    .any(|p| p.black.is_some() && p.outcome.is_none()) =>
            {
                self.refresh().await
            }
            _ => Ok(()),
        }
    }

    /// Reads the results again, and tells followers if any came.
    async fn refresh(&mut self) -> Result<(), StoreError> {
        let before = self.pairings.clone();
        self.reload().await?;
        if self.pairings != before {
            self.changed();
        }
        Ok(())
    }

    /// Starts the tournament, or cancels it if too few players joined.
    async fn start(&mut self) -> Result<(), StoreError> {
        self.reload().await?;
        let enough = self.entries.len() >= usize::try_from(self.summary.min_players).unwrap_or(0);
        let state = if enough {
            TournamentState::Running
        } else {
            TournamentState::Cancelled
        };
        self.set_state(state).await?;
        if enough {
            tracing::info!(
                tournament = self.summary.id,
                players = self.entries.len(),
                "started"
            );
            self.next().await?;
        }
        Ok(())
    }

    /// Moves the tournament to `state`, stored first.
    async fn set_state(&mut self, state: TournamentState) -> Result<(), StoreError> {
        self.shared
            .store
            .set_tournament_state(&self.summary.id, state)
            .await?;
        self.summary.state = state;
        self.changed();
        Ok(())
    }

    /// Whether every game of the last round paired has ended (true before the first).
    fn round_over(&self) -> bool {
        let last = self.summary.round;
        self.pairings
            .iter()
            .filter(|p| p.round == last && p.black.is_some())
            .all(|p| p.outcome.is_some())
    }

    /// Pairs what is due next, or ends the tournament.
    async fn next(&mut self) -> Result<(), StoreError> {
        match self.summary.format {
            TournamentFormat::Swiss => self.next_swiss().await,
            TournamentFormat::RoundRobin => self.next_robin(Cycles::Single).await,
            TournamentFormat::DoubleRoundRobin => self.next_robin(Cycles::Double).await,
            TournamentFormat::Arena => self.next_arena().await,
        }
    }

    /// A Swiss: the next round once the last has ended, until its number of rounds.
    async fn next_swiss(&mut self) -> Result<(), StoreError> {
        if !self.round_over() {
            return Ok(());
        }
        let rounds_due = self.summary.rounds.unwrap_or(0);
        if self.summary.round >= rounds_due {
            return self.set_state(TournamentState::Finished).await;
        }
        let active = self.active();
        let avoid = self.avoid(&active).await?;
        let played = rounds(&self.entries, &self.pairings);
        match pair_round(&active, &played, &avoid) {
            Ok(pairing) => {
                let round = self.summary.round + 1;
                self.store_round(round, &pairing.pairs, pairing.bye).await
            }
            Err(e) => {
                // Too few players are left to pair by the rules: the tournament ends.
                tracing::warn!(
                    tournament = self.summary.id,
                    ?e,
                    "no pairing is possible: ended early"
                );
                self.set_state(TournamentState::Finished).await
            }
        }
    }

    /// A round robin on the Berger table of the players it started with: live, the next
    /// round once the last has ended; by correspondence, every round at once. A withdrawn
    /// player's games not yet paired are not paired, and a round left with no game is
    /// passed over (it is never stored, so its number is skipped), so that withdrawals
    /// can never leave the tournament waiting for a round nobody plays.
    async fn next_robin(&mut self, cycles: Cycles) -> Result<(), StoreError> {
        let players: Vec<usize> = (0..self.entries.len()).collect();
        let table = berger(&players, cycles);
        let total = u32::try_from(table.len()).unwrap_or(u32::MAX);
        let correspondence = self.summary.clock.is_some_and(|c| c.days.is_some());
        let mut round = self.summary.round + 1;
        while round <= total && (correspondence || self.round_over()) {
            let at = usize::try_from(round - 1).unwrap_or(usize::MAX);
            let pairs: Vec<Pair<usize>> = table[at]
                .pairs
                .iter()
                .copied()
                .filter(|pair| {
                    [pair.white, pair.black]
                        .iter()
                        .all(|&p| self.entries[p].withdrawn_at.is_none())
                })
                .collect();
            if pairs.is_empty() {
                round += 1;
                continue;
            }
            self.store_round(round, &pairs, None).await?;
            if self.summary.round < round {
                // Not stored: tried again at the next poll.
                return Ok(());
            }
            round = self.summary.round + 1;
        }
        let all_over = self
            .pairings
            .iter()
            .all(|p| p.black.is_none() || p.outcome.is_some());
        if round > total && all_over {
            return self.set_state(TournamentState::Finished).await;
        }
        Ok(())
    }

    /// An arena: until its end, pairs the players waiting in the pool (those not in a
    /// game, not withdrawn) as soon as they are there. The pool is rebuilt from the
    /// stored games each time, in the order they were played, so a director loaded
    /// again pairs as the one before would have.
    async fn next_arena(&mut self) -> Result<(), StoreError> {
        let at = now();
        if at >= self.summary.ends_at.unwrap_or(i64::MAX) {
            return self.set_state(TournamentState::Finished).await;
        }
        let starts_at = self.summary.starts_at;
        let since = |ms: i64| Duration::from_millis(u64::try_from(ms - starts_at).unwrap_or(0));
        let index: HashMap<&str, usize> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.account.id.as_str(), i))
            .collect();
        let mut arena = Arena::new(POLL);
        for i in 0..self.entries.len() {
            arena.join(i, Duration::ZERO);
        }
        for pairing in &self.pairings {
            let Some(black) = &pairing.black else {
                continue;
            };
            let (Some(&white), Some(&black)) = (
                index.get(pairing.white.id.as_str()),
                index.get(black.id.as_str()),
            ) else {
                continue;
            };
            let pair = Pair { white, black };
            let resumed = arena.resume(pair);
            if let (Ok(()), Some(outcome)) = (resumed, pairing.outcome) {
                let ended = since(pairing.finished_at.unwrap_or(at));
                let _ = arena.finish(pair, view::pair_outcome(outcome), ended);
            }
        }
        for i in 0..self.entries.len() {
            if self.entries[i].withdrawn_at.is_some() {
                let _ = arena.pause(i);
            }
        }
        // Only the players waiting can be paired: their blocks are all that matter (one
        // read each, not one for each of the thousand players of a large arena).
        let waiting: Vec<usize> = self
            .active()
            .into_iter()
            .filter(|&i| {
                arena
                    .player(i)
                    .is_some_and(|p| matches!(p.status, Status::Waiting(_)))
            })
            .collect();
        let avoid = self.avoid(&waiting).await?;
        let pairs = arena.pair(since(at), &avoid);
        if pairs.is_empty() {
            return Ok(());
        }
        let round = self.summary.round + 1;
        self.store_round(round, &pairs, None).await
    }

    /// The pairs of `players` kept apart: one blocks the other.
    async fn avoid(&self, players: &[usize]) -> Result<Vec<(usize, usize)>, StoreError> {
        let mut avoid = Vec::new();
        for &player in players {
            let blockers = self
                .shared
                .store
                .blockers_of(&self.entries[player].account.id)
                .await?;
            for &other in players {
                if blockers.contains(&self.entries[other].account.id) {
                    avoid.push((player, other));
                }
            }
        }
        Ok(avoid)
    }

    /// Stores round `round`, each game with its room, then tells followers: a round is
    /// announced only once stored. If the store refuses it (another director stored it
    /// first), what is stored stands.
    async fn store_round(
        &mut self,
        round: u32,
        pairs: &[Pair<usize>],
        bye: Option<usize>,
    ) -> Result<(), StoreError> {
        let account = |p: usize| &self.entries[p].account;
        let summary = &self.summary;
        let mut pairings: Vec<NewPairing> = pairs
            .iter()
            .map(|pair| {
                let players = [pair.white, pair.black].map(|p| Player::of(account(p).clone()));
                NewPairing {
                    room: Some(Registry::tournament_room(
                        summary.variant,
                        summary.clock,
                        summary.rated,
                        players,
                    )),
                    white: account(pair.white).id.clone(),
                    black: Some(account(pair.black).id.clone()),
                }
            })
            .collect();
        pairings.extend(bye.map(|p| NewPairing {
            room: None,
            white: account(p).id.clone(),
            black: None,
        }));
        if pairings.is_empty() {
            return Ok(());
        }
        let stored = self
            .shared
            .store
            .pair_round(&self.summary.id, round, pairings)
            .await;
        self.reload().await?;
        if let Err(e) = stored {
            let error: &dyn std::error::Error = &e;
            tracing::warn!(
                tournament = self.summary.id,
                round,
                error,
                "the round was not stored"
            );
            return Ok(());
        }
        tracing::info!(tournament = self.summary.id, round, "paired");
        let _ = self.events.send(Arc::new(Event::Paired(view::round(
            self.summary.format,
            &self.entries,
            &self.pairings,
            round,
        ))));
        self.changed();
        Ok(())
    }
}

/// Logs a storage failure; answers its code.
fn storage_failed(e: &StoreError) -> ErrorCode {
    let error: &dyn std::error::Error = e;
    tracing::error!(error, "database");
    ErrorCode::StorageFailed
}
