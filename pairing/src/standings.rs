//! Scores and tie-breaks of a Swiss or a round robin.
//!
//! A win scores 1, a draw ½, a loss 0, kept as half-points ([`HalfPoints`]); the bye
//! scores as a win. Ties are broken by Buchholz (the sum of the opponents' scores), then
//! Sonneborn-Berger (the scores of the opponents beaten, and half those drawn with, in
//! quarter-points: [`QuarterPoints`]), then the order the players were given in.
//!
//! # Rounds without a game
//!
//! The articles are those of FIDE's tie-break regulations, C.07 of 2023 (in force
//! until 28 February 2026; the version of 1 March 2026 only adds caps to 16.4 that
//! change a bye's dummy when its player scores over half the points).
//!
//! In a **Swiss** ([`standings`]), a round in which a player played no game is either
//! the pairing bye (Art. 16.2.1) or a round they were not paired in, having withdrawn
//! (a zero-point bye, Art. 16.1.1). Article 16 counts such rounds twice over:
//!
//! - When the player is **someone else's opponent** (16.3), the bye counts as the win it
//!   scored, and so does any round without a game that a game or a bye follows; a
//!   round without a game followed only by rounds without a game (or in the last
//!   round), as after a withdrawal, counts as a draw (16.2.5, 16.3.2).
//! - In the player's **own** tie-breaks (16.4), each such round is a game against a
//!   dummy opponent whose score is the player's own final score, with the result the
//!   round scored: the bye adds the player's score to their Buchholz and, being a win,
//!   to their Sonneborn-Berger; a round missed adds it to Buchholz only.
//!
//! A game paired but not yet over ([`Round::unfinished`]) counts for nobody yet.
//!
//! In a **round robin** ([`robin_standings`]) every pairing is fixed in advance, so a
//! round a player rests in is no unplayed round (C.07 Art. 15.2: there, only forfeits
//! are, and they count as games): each player's tie-breaks are their opponents' real
//! scores, so that Buchholz is everyone else's points (C.07 advises against Buchholz in
//! round robins, Art. 8: when every game has ended it is the total less the player's
//! own, and never separates two players of one score; Sonneborn-Berger does).

use std::cmp::Reverse;
use std::collections::BTreeMap;

use crate::game::{Color, HalfPoints, QuarterPoints, Round};

/// One line of the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing<P> {
    /// Who.
    pub player: P,
    /// Points: games won and drawn, and the bye.
    pub score: HalfPoints,
    /// The first tie-break: the opponents' scores.
    pub buchholz: HalfPoints,
    /// The second tie-break: the scores of the opponents beaten, and half those drawn.
    pub sonneborn_berger: QuarterPoints,
}

/// One player's record, as the tie-breaks need it.
struct Record<P> {
    /// Half-points from games.
    from_games: u32,
    /// Byes had (a well-formed tournament gives at most one).
    byes: u32,
    /// Rounds without a game, bye or game under way: missed.
    missed: u32,
    /// Of those, the ones followed only by rounds missed, or in the last round.
    missed_at_the_end: u32,
    /// Each game's opponent and the half-points scored against them.
    results: Vec<(P, u32)>,
}

// By hand: a derived `Default` would ask it of the ids too.
impl<P> Default for Record<P> {
    fn default() -> Self {
        Record {
            from_games: 0,
            byes: 0,
            missed: 0,
            missed_at_the_end: 0,
            results: Vec::new(),
        }
    }
}

/// The standings of a Swiss after `rounds`, best first: by score, then Buchholz, then
/// Sonneborn-Berger, then the order of `players` (everyone who entered, withdrawn or
/// not; others found in the rounds count as opponents but are not listed). Rounds
/// without a game count as C.07 Art. 16 says (see the module's documentation).
///
/// ```
/// use punct_pairing::{Game, HalfPoints, Outcome, Pair, Round, standings};
/// let round = Round {
///     games: vec![Game { pair: Pair { white: 'a', black: 'b' }, outcome: Outcome::Draw }],
///     bye: Some('c'),
///     ..Round::default()
/// };
/// let table = standings(&['a', 'b', 'c'], &[round]);
/// assert_eq!(table[0].player, 'c');
/// assert_eq!(table[0].score, HalfPoints(2));
/// // The bye's dummy opponent has c's own score.
/// assert_eq!(table[0].buchholz, HalfPoints(2));
/// ```
pub fn standings<P: Copy + Ord>(players: &[P], rounds: &[Round<P>]) -> Vec<Standing<P>> {
    rank(players, rounds, true)
}

/// The standings of a round robin after `rounds`: as [`standings`], but a round a
/// player rests in (or, withdrawn, is not paired in) counts for nothing: each player's
/// Buchholz and Sonneborn-Berger come from their opponents' real scores alone.
pub fn robin_standings<P: Copy + Ord>(players: &[P], rounds: &[Round<P>]) -> Vec<Standing<P>> {
    rank(players, rounds, false)
}

/// The standings, rounds without a game counted after C.07 Art. 16 (`swiss`) or not at
/// all.
fn rank<P: Copy + Ord>(players: &[P], rounds: &[Round<P>], swiss: bool) -> Vec<Standing<P>> {
    let mut records: BTreeMap<P, Record<P>> = BTreeMap::new();
    // Each player's rounds, as a list of whether they played (a game, over or not, or
    // the bye) in each: the rounds missed are the others.
    let mut present: BTreeMap<P, Vec<bool>> = BTreeMap::new();
    for &p in players {
        present
            .entry(p)
            .or_insert_with(|| vec![false; rounds.len()]);
    }
    let mut mark = |p: P, at: usize| {
        present
            .entry(p)
            .or_insert_with(|| vec![false; rounds.len()])[at] = true;
    };
    for (at, round) in rounds.iter().enumerate() {
        for game in &round.games {
            let pair = game.pair;
            for color in [Color::White, Color::Black] {
                let (me, opponent) = match color {
                    Color::White => (pair.white, pair.black),
                    Color::Black => (pair.black, pair.white),
                };
                let points = game.outcome.half_points(color);
                let record = records.entry(me).or_default();
                record.from_games += points;
                record.results.push((opponent, points));
                mark(me, at);
            }
        }
        for pair in &round.unfinished {
            mark(pair.white, at);
            mark(pair.black, at);
        }
        if let Some(p) = round.bye {
            records.entry(p).or_default().byes += 1;
            mark(p, at);
        }
    }
    for (p, rounds) in &present {
        let record = records.entry(*p).or_default();
        let last_played = rounds.iter().rposition(|&played| played);
        for (at, &played) in rounds.iter().enumerate() {
            if !played {
                record.missed += 1;
                if last_played.is_none_or(|last| at > last) {
                    record.missed_at_the_end += 1;
                }
            }
        }
    }
    let empty = Record::default();
    let record = |p: &P| records.get(p).unwrap_or(&empty);
    let score = |r: &Record<P>| r.from_games + 2 * r.byes;
    // As an opponent (16.3): what they scored, and a draw for each round missed at the
    // end. In a round robin, what they scored.
    let as_opponent = |p: &P| {
        let r = record(p);
        score(r) + if swiss { r.missed_at_the_end } else { 0 }
    };
    let mut table: Vec<(usize, Standing<P>)> = players
        .iter()
        .enumerate()
        .map(|(i, &player)| {
            let r = record(&player);
            let own = score(r);
            // 16.4: each round without a game is one against a dummy of the player's
            // own score, with the result it scored (the bye a win, a round missed a
            // loss).
            let (dummies, dummies_beaten) = if swiss {
                (r.byes + r.missed, r.byes)
            } else {
                (0, 0)
            };
            let buchholz =
                r.results.iter().map(|(o, _)| as_opponent(o)).sum::<u32>() + dummies * own;
            let sonneborn_berger = r
                .results
                .iter()
                .map(|(o, points)| points * as_opponent(o))
                .sum::<u32>()
                + dummies_beaten * 2 * own;
            let standing = Standing {
                player,
                score: HalfPoints(own),
                buchholz: HalfPoints(buchholz),
                sonneborn_berger: QuarterPoints(sonneborn_berger),
            };
            (i, standing)
        })
        .collect();
    table.sort_by_key(|&(i, s)| {
        (
            Reverse(s.score),
            Reverse(s.buchholz),
            Reverse(s.sonneborn_berger),
            i,
        )
    });
    table.into_iter().map(|(_, s)| s).collect()
}
