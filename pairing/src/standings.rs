//! Scores and tie-breaks of a Swiss or a round robin.
//!
//! A win scores 1, a draw ½, a loss 0, kept as half-points ([`HalfPoints`]); the bye
//! scores as a win. Ties are broken by Buchholz, then Sonneborn-Berger, then the order
//! the players were given in.
//!
//! # Rounds without a game
//!
//! A player may have rounds in which they played no game: the bye, a round after they
//! withdrew, a round robin's rest. After FIDE's tie-break regulations (C.07, article 16
//! on unplayed rounds), these count in two ways:
//!
//! - In the player's **own** tie-breaks, each such round is a game against a dummy
//!   opponent with the player's own final score. So the bye adds the player's score to
//!   their Buchholz, and, being a win, their score again to their Sonneborn-Berger; a
//!   round they sat out without the bye adds to Buchholz the same, and nothing to
//!   Sonneborn-Berger (it was not won).
//! - When the player's score is **an opponent's** in someone else's tie-breaks, each such
//!   round counts as a draw (½) rather than what it scored. A bye is not earned at the
//!   board, and a withdrawn player's missing rounds are not their opponents' fault.
//!
//! Buchholz is the sum of the opponents' scores (so adjusted); Sonneborn-Berger the sum
//! of the scores of the opponents beaten plus half those of the opponents drawn with, in
//! quarter-points ([`QuarterPoints`]).

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
    /// Rounds played at the board.
    games: u32,
    /// Each game's opponent and the half-points scored against them.
    results: Vec<(P, u32)>,
}

// By hand: a derived `Default` would ask it of the ids too.
impl<P> Default for Record<P> {
    fn default() -> Self {
        Record {
            from_games: 0,
            byes: 0,
            games: 0,
            results: Vec::new(),
        }
    }
}

/// The standings after `rounds`, best first: by score, then Buchholz, then
/// Sonneborn-Berger, then the order of `players` (everyone who entered, withdrawn or
/// not; others found in the rounds count as opponents but are not listed).
///
/// ```
/// use punct_pairing::{Game, HalfPoints, Outcome, Pair, Round, standings};
/// let round = Round {
///     games: vec![Game { pair: Pair { white: 'a', black: 'b' }, outcome: Outcome::Draw }],
///     bye: Some('c'),
/// };
/// let table = standings(&['a', 'b', 'c'], &[round]);
/// assert_eq!(table[0].player, 'c');
/// assert_eq!(table[0].score, HalfPoints(2));
/// // The bye's dummy opponent has c's own score.
/// assert_eq!(table[0].buchholz, HalfPoints(2));
/// ```
pub fn standings<P: Copy + Ord>(players: &[P], rounds: &[Round<P>]) -> Vec<Standing<P>> {
    let mut records: BTreeMap<P, Record<P>> = BTreeMap::new();
    for round in rounds {
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
                record.games += 1;
                record.results.push((opponent, points));
            }
        }
        if let Some(p) = round.bye {
            records.entry(p).or_default().byes += 1;
        }
    }
    let rounds = rounds.len() as u32;
    let empty = Record::default();
    let record = |p: &P| records.get(p).unwrap_or(&empty);
    let score = |r: &Record<P>| r.from_games + 2 * r.byes;
    // As an opponent: every round without a game is a draw.
    let as_opponent = |p: &P| {
        let r = record(p);
        r.from_games + rounds.saturating_sub(r.games)
    };
    let mut table: Vec<(usize, Standing<P>)> = players
        .iter()
        .enumerate()
        .map(|(i, &player)| {
            let r = record(&player);
            let own = score(r);
            let unplayed = rounds.saturating_sub(r.games);
            let buchholz =
                r.results.iter().map(|(o, _)| as_opponent(o)).sum::<u32>() + unplayed * own;
            let sonneborn_berger = r
                .results
                .iter()
                .map(|(o, points)| points * as_opponent(o))
                .sum::<u32>()
                + r.byes * 2 * own;
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
