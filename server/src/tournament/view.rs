//! A tournament as HTTP and followers see it, computed from what is stored: its
//! entries, its pairings with their results, and the standings with their tie-breaks.
//! Everything here is pure, so that the director and a reader of the store agree.

use std::collections::HashMap;

use punct_pairing::{
    Color as PairColor, Cycles, Game, Outcome as PairOutcome, Pair, Round, berger,
};
use punct_protocol::{
    StandingRow, TournamentEntry, TournamentFormat, TournamentGame, TournamentRound,
    TournamentSummary, TournamentView,
};
use punct_rules::{Color, Outcome};

use crate::store::{StoredEntry, StoredPairing};

/// A game's result as the pairing crate counts it.
pub(crate) fn pair_outcome(outcome: Outcome) -> PairOutcome {
    match outcome {
        Outcome::Win {
            winner: Color::White,
            ..
        } => PairOutcome::WhiteWins,
        Outcome::Win {
            winner: Color::Black,
            ..
        } => PairOutcome::BlackWins,
        Outcome::Draw { .. } => PairOutcome::Draw,
    }
}

/// The rounds of `pairings` as the pairing crate reads them, players named by their
/// place in `entries`: the games that have ended, those under way, and the byes.
pub(crate) fn rounds(entries: &[StoredEntry], pairings: &[StoredPairing]) -> Vec<Round<usize>> {
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| (entry.account.id.as_str(), i))
        .collect();
    let mut rounds: Vec<Round<usize>> = Vec::new();
    for pairing in pairings {
        let at = usize::try_from(pairing.round.saturating_sub(1)).unwrap_or(usize::MAX);
        while rounds.len() <= at {
            rounds.push(Round::default());
        }
        let Some(&white) = index.get(pairing.white.id.as_str()) else {
            continue;
        };
        let round = &mut rounds[at];
        match (&pairing.black, pairing.outcome) {
            (None, _) => round.bye = Some(white),
            (Some(black), outcome) => {
                if let Some(&black) = index.get(black.id.as_str()) {
                    let pair = Pair { white, black };
                    match outcome {
                        Some(outcome) => round.games.push(Game {
                            pair,
                            outcome: pair_outcome(outcome),
                        }),
                        None => round.unfinished.push(pair),
                    }
                }
            }
        }
    }
    rounds
}

/// The standings: in a Swiss or a round robin, score, then Buchholz, then
/// Sonneborn-Berger (the pairing crate's order, rounds without a game counted as FIDE's
/// C.07 counts them in a Swiss, and not at all in a round robin); in an arena, arena
/// points.
fn standings(
    format: TournamentFormat,
    entries: &[StoredEntry],
    pairings: &[StoredPairing],
) -> Vec<StandingRow> {
    // Games over, by account, counted in one pass: an arena of a thousand players has
    // thousands of games, and this runs at every game's end.
    let mut over: HashMap<&str, u32> = HashMap::new();
    for pairing in pairings.iter().filter(|p| p.outcome.is_some()) {
        *over.entry(pairing.white.id.as_str()).or_default() += 1;
        if let Some(black) = &pairing.black {
            *over.entry(black.id.as_str()).or_default() += 1;
        }
    }
    let games = |player: usize| {
        over.get(entries[player].account.id.as_str())
            .copied()
            .unwrap_or(0)
    };
    let players: Vec<usize> = (0..entries.len()).collect();
    if format == TournamentFormat::Arena {
        let mut scores = vec![(0u32, 0u32); entries.len()];
        let index: HashMap<&str, usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.account.id.as_str(), i))
            .collect();
        for pairing in pairings {
            let (Some(black), Some(outcome)) = (&pairing.black, pairing.outcome) else {
                continue;
            };
            let outcome = pair_outcome(outcome);
            for (id, color) in [
                (pairing.white.id.as_str(), PairColor::White),
                (black.id.as_str(), PairColor::Black),
            ] {
                if let Some(&i) = index.get(id) {
                    let (score, streak) = &mut scores[i];
                    let half = outcome.half_points(color);
                    *score += punct_pairing::arena_points(*streak, half);
                    *streak = if half == 2 { *streak + 1 } else { 0 };
                }
            }
        }
        let mut rows: Vec<(usize, u32)> = players.iter().map(|&i| (i, scores[i].0)).collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        return rows
            .into_iter()
            .map(|(i, score)| StandingRow {
                player: entries[i].account.username.clone(),
                score: f64::from(score),
                buchholz: None,
                sonneborn_berger: None,
                games: games(i),
            })
            .collect();
    }
    let rounds = rounds(entries, pairings);
    let table = match format {
        TournamentFormat::Swiss => punct_pairing::standings(&players, &rounds),
        _ => punct_pairing::robin_standings(&players, &rounds),
    };
    table
        .into_iter()
        .map(|standing| StandingRow {
            player: entries[standing.player].account.username.clone(),
            score: f64::from(standing.score.0) / 2.0,
            buchholz: Some(f64::from(standing.buchholz.0) / 2.0),
            sonneborn_berger: Some(f64::from(standing.sonneborn_berger.0) / 4.0),
            games: games(standing.player),
        })
        .collect()
}

/// Round `round` of `pairings`, as followers see it.
pub(crate) fn round(
    format: TournamentFormat,
    entries: &[StoredEntry],
    pairings: &[StoredPairing],
    round: u32,
) -> TournamentRound {
    TournamentRound {
        round,
        games: pairings
            .iter()
            .filter(|p| p.round == round)
            .map(game)
            .collect(),
        resting: rest_in(&resting(format, entries), round),
    }
}

/// Who rests in round `round` (from 1), of those listed by [`resting`].
fn rest_in(resting: &[Option<String>], round: u32) -> Option<String> {
    let at = usize::try_from(round).ok()?.checked_sub(1)?;
    resting.get(at).cloned().flatten()
}

/// Who rests in each round of a round robin of an odd number of players, first round
/// first: the player the Berger table pairs with its dummy, as the director pairs it.
/// Empty for any other tournament.
fn resting(format: TournamentFormat, entries: &[StoredEntry]) -> Vec<Option<String>> {
    let cycles = match format {
        TournamentFormat::RoundRobin => Cycles::Single,
        TournamentFormat::DoubleRoundRobin => Cycles::Double,
        TournamentFormat::Swiss | TournamentFormat::Arena => return Vec::new(),
    };
    let players: Vec<usize> = (0..entries.len()).collect();
    berger(&players, cycles)
        .into_iter()
        .map(|r| r.resting.map(|p| entries[p].account.username.clone()))
        .collect()
}

/// The whole tournament.
pub(crate) fn view(
    summary: &TournamentSummary,
    entries: &[StoredEntry],
    pairings: &[StoredPairing],
) -> TournamentView {
    let last = pairings.last().map_or(0, |p| p.round);
    TournamentView {
        summary: summary.clone(),
        entries: entries
            .iter()
            .map(|e| TournamentEntry {
                player: e.account.username.clone(),
                withdrawn: e.withdrawn_at.is_some(),
            })
            .collect(),
        standings: standings(summary.format, entries, pairings),
        pairings: by_round(&resting(summary.format, entries), pairings, last),
    }
}

/// Rounds 1 to `last` of `pairings`, as followers see them, in one pass over them;
/// `resting` says who rests in each (a round robin's).
fn by_round(
    resting: &[Option<String>],
    pairings: &[StoredPairing],
    last: u32,
) -> Vec<TournamentRound> {
    let mut rounds: Vec<TournamentRound> = (1..=last)
        .map(|round| TournamentRound {
            round,
            games: Vec::new(),
            resting: rest_in(resting, round),
        })
        .collect();
    for p in pairings {
        let at = usize::try_from(p.round).unwrap_or(usize::MAX);
        if let Some(round) = at.checked_sub(1).and_then(|at| rounds.get_mut(at)) {
            round.games.push(game(p));
        }
    }
    rounds
}

/// A stored game as followers see it.
fn game(p: &StoredPairing) -> TournamentGame {
    TournamentGame {
        room: p.room.clone(),
        white: p.white.username.clone(),
        black: p.black.as_ref().map(|b| b.username.clone()),
        outcome: p.outcome,
    }
}
