//! The arena: a tournament that lasts a fixed time, where a player whose game ends goes
//! back into a pool and is paired again as soon as possible.
//!
//! # Scoring
//!
//! A win scores 2, a draw 1, a loss 0. A player is *on a streak* after two wins in a
//! row: each further win while on it counts double, 4, and the streak goes on; the first
//! game not won (a draw, 1, or a loss, 0) ends it, and two new wins are needed to be on
//! one again. Pausing does not end a streak: only a game does.
//!
//! # Pairing
//!
//! [`Arena::pair`] pairs everyone it can among the players waiting, each with a waiting
//! player of score as close as it can: a maximum matching of the pool, chosen from the
//! top score down (the same search as the Swiss, `matching`), ties in score broken by
//! who has waited longest. The director calls it whenever the pool changes (or on a
//! short tick, if it would rather gather a few players first).
//!
//! - Nobody is in two games at once: only waiting players are paired, and a paired
//!   player waits again only when their game has ended.
//! - Nobody meets the opponent they just played while anyone else is waiting. Two
//!   players who just played each other and are the only two waiting are paired again
//!   once both have waited [`Arena::rematch_after`]: better a rematch than no game, but
//!   not before a third player had a fair chance to come back. A third player kept
//!   apart from both does not count: they could not play either.
//! - Nobody meets a player they are kept apart from (the caller's `avoid`: one of them
//!   has blocked the other, say), however long they wait: a player whose only waiting
//!   partners are kept apart from them waits on.
//! - A paused player is out of the pool until they come back; a player who pauses
//!   during a game leaves the pool when it ends.
//! - White goes to the player who has had fewer whites (counted against blacks), or,
//!   when they have had as many, to the one first in the pool (higher score, then
//!   longer waiting).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use crate::game::{Color, Outcome, Pair};
use crate::matching::Matcher;

/// Where a player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status<P> {
    /// In the pool since the given time.
    Waiting(Duration),
    /// In a game.
    Playing {
        /// Who they play: the only game a result may be given for.
        opponent: P,
        /// Their colour in it.
        color: Color,
        /// Whether they leave the pool when the game ends.
        pausing: bool,
    },
    /// Out of the pool.
    Paused,
}

/// One player of the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaPlayer<P> {
    /// Points so far.
    pub score: u32,
    /// Wins in a row up to now (the streak is on from 2).
    pub wins_in_a_row: u32,
    /// Games played.
    pub games: u32,
    /// Whites minus blacks, for the next game's colours.
    pub balance: i32,
    /// The last game's opponent, not to be met again straight away.
    pub last_opponent: Option<P>,
    /// Where they are.
    pub status: Status<P>,
}

/// Why the arena refused a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArenaError<P> {
    /// The player has not joined.
    UnknownPlayer(P),
    /// A result was given for two players who are not playing each other.
    NotPlaying(Pair<P>),
}

impl<P: fmt::Debug> fmt::Display for ArenaError<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::UnknownPlayer(p) => write!(f, "player {p:?} has not joined"),
            ArenaError::NotPlaying(pair) => {
                write!(
                    f,
                    "{:?} and {:?} are not playing each other",
                    pair.white, pair.black
                )
            }
        }
    }
}

impl<P: fmt::Debug> std::error::Error for ArenaError<P> {}

/// An arena's players, their scores and the pool. Times are given by the caller (since
/// the arena's start, say), so that tests and a restarted director control them.
#[derive(Clone, Debug)]
pub struct Arena<P> {
    /// Every player who joined.
    players: BTreeMap<P, ArenaPlayer<P>>,
    /// How long two players who just met must both have waited, alone in the pool (but
    /// for players kept apart from both), before they are paired again.
    rematch_after: Duration,
}

/// What a game scores in the arena for a player who had won the `wins_in_a_row` games
/// before it, given its result in half-points (2 a win, 1 a draw, 0 a loss, as
/// [`Outcome::half_points`] gives it): the same, but 4 for a win on a streak.
pub fn arena_points(wins_in_a_row: u32, half_points: u32) -> u32 {
    match half_points {
        2 if wins_in_a_row >= 2 => 4,
        points => points,
    }
}

impl<P: Copy + Ord> Arena<P> {
    /// An empty arena; see [`Arena::rematch_after`].
    pub fn new(rematch_after: Duration) -> Arena<P> {
        Arena {
            players: BTreeMap::new(),
            rematch_after,
        }
    }

    /// How long two players who just played each other, alone in the pool (but for
    /// players kept apart from both), wait before a rematch.
    pub fn rematch_after(&self) -> Duration {
        self.rematch_after
    }

    /// A player's record, if they joined.
    pub fn player(&self, player: P) -> Option<&ArenaPlayer<P>> {
        self.players.get(&player)
    }

    /// Every player, by score (highest first), ties in the order of the ids.
    pub fn standings(&self) -> Vec<(P, u32)> {
        let mut table: Vec<(P, u32)> = self.players.iter().map(|(&p, r)| (p, r.score)).collect();
        table.sort_by_key(|&(p, score)| (std::cmp::Reverse(score), p));
        table
    }

    /// Puts a player into the pool: a new one, or one coming back from a pause. A player
    /// already waiting or playing is left as they are (but no longer pausing).
    pub fn join(&mut self, player: P, now: Duration) {
        let record = self.players.entry(player).or_insert(ArenaPlayer {
            score: 0,
            wins_in_a_row: 0,
            games: 0,
            balance: 0,
            last_opponent: None,
            status: Status::Paused,
        });
        match &mut record.status {
            Status::Paused => record.status = Status::Waiting(now),
            Status::Playing { pausing, .. } => *pausing = false,
            Status::Waiting(_) => {}
        }
    }

    /// Takes a player out of the pool: now if waiting, after their game if playing.
    pub fn pause(&mut self, player: P) -> Result<(), ArenaError<P>> {
        let record = self
            .players
            .get_mut(&player)
            .ok_or(ArenaError::UnknownPlayer(player))?;
        match &mut record.status {
            Status::Waiting(_) => record.status = Status::Paused,
            Status::Playing { pausing, .. } => *pausing = true,
            Status::Paused => {}
        }
        Ok(())
    }

    /// Scores a finished game and puts both players back into the pool (unless pausing).
    pub fn finish(
        &mut self,
        pair: Pair<P>,
        outcome: Outcome,
        now: Duration,
    ) -> Result<(), ArenaError<P>> {
        let in_game = |p: P, opponent: P, color: Color| {
            matches!(self.players.get(&p).map(|r| r.status),
                Some(Status::Playing { opponent: o, color: c, .. }) if o == opponent && c == color)
        };
        if !in_game(pair.white, pair.black, Color::White)
            || !in_game(pair.black, pair.white, Color::Black)
        {
            return Err(ArenaError::NotPlaying(pair));
        }
        for (me, opponent, color) in [
            (pair.white, pair.black, Color::White),
            (pair.black, pair.white, Color::Black),
        ] {
            let record = self
                .players
                .get_mut(&me)
                .expect("a player in a game has joined");
            let half_points = outcome.half_points(color);
            record.score += arena_points(record.wins_in_a_row, half_points);
            record.wins_in_a_row = if half_points == 2 {
                record.wins_in_a_row + 1
            } else {
                0
            };
            record.games += 1;
            record.last_opponent = Some(opponent);
            record.status = match record.status {
                Status::Playing { pausing: true, .. } => Status::Paused,
                _ => Status::Waiting(now),
            };
        }
        Ok(())
    }

    /// Pairs the waiting players (see the module's rules) and returns the new games;
    /// those players are now playing. `avoid` lists the pairs who must never meet, each
    /// in either order; it is given at each call rather than kept, so that a block made
    /// during the arena counts from the next pairing on.
    pub fn pair(&mut self, now: Duration, avoid: &[(P, P)]) -> Vec<Pair<P>> {
        // The pool, highest score first, then longest waiting.
        let mut pool: Vec<(P, u32, Duration)> = self
            .players
            .iter()
            .filter_map(|(&p, r)| match r.status {
                Status::Waiting(since) => Some((p, r.score, since)),
                _ => None,
            })
            .collect();
        pool.sort_by_key(|&(p, score, since)| (std::cmp::Reverse(score), since, p));
        let just_met = |a: usize, b: usize| {
            let (a, b) = (pool[a].0, pool[b].0);
            self.players[&a].last_opponent == Some(b) || self.players[&b].last_opponent == Some(a)
        };
        // The pairs kept apart, as places in the pool, lower first; those not both
        // waiting do not matter now.
        let place: BTreeMap<P, usize> = pool
            .iter()
            .enumerate()
            .map(|(i, &(p, ..))| (p, i))
            .collect();
        let apart: BTreeSet<(usize, usize)> = avoid
            .iter()
            .filter_map(|(a, b)| Some((*place.get(a)?, *place.get(b)?)))
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        let kept_apart = |a: usize, b: usize| apart.contains(&(a.min(b), a.max(b)));
        let waited = |a: usize| now.saturating_sub(pool[a].2) >= self.rematch_after;
        // Two who just met, both waited long enough, and nobody else waiting who may
        // play either of them.
        let rematch = |a: usize, b: usize| {
            waited(a)
                && waited(b)
                && (0..pool.len())
                    .all(|c| c == a || c == b || (kept_apart(a, c) && kept_apart(b, c)))
        };
        let edges = (0..pool.len())
            .flat_map(|a| (a + 1..pool.len()).map(move |b| (a, b)))
            .filter(|&(a, b)| !kept_apart(a, b) && (!just_met(a, b) || rematch(a, b)));
        let mut matcher = Matcher::new(pool.len(), edges);
        let mut games = Vec::new();
        for a in 0..pool.len() {
            if matcher.is_fixed(a) {
                continue;
            }
            let score = pool[a].1;
            let mut candidates: Vec<usize> = (a + 1..pool.len())
                .filter(|&b| !matcher.is_fixed(b))
                .collect();
            candidates.sort_by_key(|&b| (pool[b].1.abs_diff(score), b));
            if let Some(b) = matcher.fix(a, candidates) {
                games.push(self.start(pool[a].0, pool[b].0));
            }
        }
        games
    }

    /// Puts the two players of `pair` into that game, with its colours, as if the arena
    /// had paired them: for a director that rebuilds its arena from the games it stored
    /// (each given here, then to [`Arena::finish`] once over, in the order played).
    pub fn resume(&mut self, pair: Pair<P>) -> Result<(), ArenaError<P>> {
        for p in [pair.white, pair.black] {
            if !self.players.contains_key(&p) {
                return Err(ArenaError::UnknownPlayer(p));
            }
        }
        self.seat(pair);
        Ok(())
    }

    /// Starts a game between `a` (the higher in the pool) and `b`.
    fn start(&mut self, a: P, b: P) -> Pair<P> {
        let pair = if self.players[&b].balance < self.players[&a].balance {
            Pair { white: b, black: a }
        } else {
            Pair { white: a, black: b }
        };
        self.seat(pair);
        pair
    }

    /// Both players of `pair` are in that game from now on.
    fn seat(&mut self, pair: Pair<P>) {
        for (p, opponent, color) in [
            (pair.white, pair.black, Color::White),
            (pair.black, pair.white, Color::Black),
        ] {
            let record = self
                .players
                .get_mut(&p)
                .expect("paired players have joined");
            record.balance += if color == Color::White { 1 } else { -1 };
            record.status = Status::Playing {
                opponent,
                color,
                pausing: false,
            };
        }
    }
}
