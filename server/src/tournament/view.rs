//! A tournament as HTTP and followers see it, computed from what is stored: its
//! entries, its pairings with their results, and the standings with their tie-breaks.
//! Everything here is pure, so that the director and a reader of the store agree.

use std::collections::HashMap;

use punct_pairing::{Color as PairColor, Game, Outcome as PairOutcome, Pair, Round};
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
/// place in `entries`: only the games that have ended (a round under way counts its
/// ended games), and the byes.
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
            rounds.push(Round {
                games: Vec::new(),
                bye: None,
            });
        }
        let Some(&white) = index.get(pairing.white.id.as_str()) else {
            continue;
        };
        let round = &mut rounds[at];
        match (&pairing.black, pairing.outcome) {
            (None, _) => round.bye = Some(white),
            (Some(black), Some(outcome)) => {
                if let Some(&black) = index.get(black.id.as_str()) {
                    round.games.push(Game {
                        pair: Pair { white, black },
                        outcome: pair_outcome(outcome),
                    });
                }
            }
            (Some(_), None) => {}
        }
    }
    rounds
}

/// The standings: in a Swiss or a round robin, score, then Buchholz, then
/// Sonneborn-Berger (the pairing crate's order); in an arena, arena points.
fn standings(
    format: TournamentFormat,
    entries: &[StoredEntry],
    pairings: &[StoredPairing],
) -> Vec<StandingRow> {
    let games = |player: usize| {
        let id = &entries[player].account.id;
        let played = pairings.iter().filter(|p| {
            p.outcome.is_some()
                && (p.white.id == *id || p.black.as_ref().is_some_and(|b| b.id == *id))
        });
        u32::try_from(played.count()).unwrap_or(u32::MAX)
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
    punct_pairing::standings(&players, &rounds(entries, pairings))
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
pub(crate) fn round(pairings: &[StoredPairing], round: u32) -> TournamentRound {
    TournamentRound {
        round,
        games: pairings
            .iter()
            .filter(|p| p.round == round)
            .map(|p| TournamentGame {
                room: p.room.clone(),
                white: p.white.username.clone(),
                black: p.black.as_ref().map(|b| b.username.clone()),
                outcome: p.outcome,
            })
            .collect(),
    }
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
        pairings: (1..=last).map(|r| round(pairings, r)).collect(),
    }
}
