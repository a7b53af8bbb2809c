//! Scores and tie-breaks, computed by hand on two small tournaments.

use punct_pairing::{HalfPoints, Outcome, QuarterPoints, Standing, standings};

use crate::common::{game, round};
use Outcome::{BlackWins, Draw, WhiteWins};

fn line(player: char, score: u32, buchholz: u32, sonneborn_berger: u32) -> Standing<char> {
    Standing {
        player,
        score: HalfPoints(score),
        buchholz: HalfPoints(buchholz),
        sonneborn_berger: QuarterPoints(sonneborn_berger),
    }
}

/// Five players, three rounds, a bye each round (E, B, C).
///
/// Scores (half-points): A 4, B 3, C 5, D 3, E 3. As opponents, each round without a
/// game counts as a draw: A 4, B 1+1 = 2, C 3+1 = 4, D 3, E 1+1 = 2. Buchholz adds the
/// opponents' and, for the bye, a dummy with the player's own score:
/// A: B 2 + C 4 + D 3 = 9; B: A 4 + E 2 + own 3 = 9; C: D 3 + A 4 + own 5 = 12;
/// D: C 4 + E 2 + A 4 = 10; E: D 3 + B 2 + own 3 = 8.
/// Sonneborn-Berger (quarter-points: half-points scored × opponent's half-points), the
/// bye a win against the dummy: A: 2×2 (B) + 2×3 (D) = 10; B: 1×2 (E) + 2×3 = 8;
/// C: 1×3 (D) + 2×4 (A) + 2×5 = 21; D: 1×4 (C) + 2×2 (E) = 8; E: 1×2 (B) + 2×3 = 8.
#[test]
fn the_bye_scores_a_win_and_counts_as_a_dummy_opponent_with_the_players_own_score() {
    let rounds = [
        round(
            vec![game('A', 'B', WhiteWins), game('C', 'D', Draw)],
            Some('E'),
        ),
        round(
            vec![game('C', 'A', WhiteWins), game('D', 'E', WhiteWins)],
            Some('B'),
        ),
        round(
            vec![game('A', 'D', WhiteWins), game('B', 'E', Draw)],
            Some('C'),
        ),
    ];
    let table = standings(&['A', 'B', 'C', 'D', 'E'], &rounds);
    assert_eq!(
        table,
        [
            line('C', 5, 12, 21),
            line('A', 4, 9, 10),
            // B, D and E tie on 1½: Buchholz orders them.
            line('D', 3, 10, 8),
            line('B', 3, 9, 8),
            line('E', 3, 8, 8),
        ]
    );
    assert_eq!(table[0].sonneborn_berger.to_string(), "5.25");
    assert_eq!(table[2].buchholz.to_string(), "5");
    assert_eq!(table[3].score.to_string(), "1½");
}

/// A round robin of four: a and b tie on 2 points and, as always in a round robin, on
/// Buchholz (everyone else's points: 12 − 4 = 8). Sonneborn-Berger separates them:
/// a beat b (4) and d (1): 2×4 + 2×1 = 10; b beat c (3) and d: 2×3 + 2×1 = 8.
#[test]
fn sonneborn_berger_breaks_a_tie_in_score_and_buchholz() {
    let rounds = [
        round(vec![game('a', 'b', WhiteWins), game('c', 'd', Draw)], None),
        round(
            vec![game('c', 'a', WhiteWins), game('b', 'd', WhiteWins)],
            None,
        ),
        round(
            vec![game('a', 'd', WhiteWins), game('c', 'b', BlackWins)],
            None,
        ),
    ];
    // b is listed first: the order of the list must not be what ranks a above it.
    let table = standings(&['b', 'a', 'c', 'd'], &rounds);
    assert_eq!(
        table,
        [
            line('a', 4, 8, 10),
            line('b', 4, 8, 8),
            // c: beat a (4), drew d (1): 2×4 + 1×1.
            line('c', 3, 9, 9),
            // d: drew c (3).
            line('d', 1, 11, 3),
        ]
    );
}

/// A player who withdrew after round 1 keeps their place in the table; in their
/// opponents' Buchholz their missing round counts as a draw, and in their own it is a
/// game against a dummy with their own score.
#[test]
fn a_withdrawn_players_missing_rounds_count_as_draws_for_their_opponents() {
    let rounds = [
        round(vec![game('x', 'y', WhiteWins)], None),
        // y has withdrawn; x has nobody left and takes the bye.
        round(vec![], Some('x')),
    ];
    let table = standings(&['x', 'y'], &rounds);
    // x: 4; y as an opponent: 0 + 1 (the missed round as a draw) = 1; x's bye: own 4.
    // y: 0; x as an opponent: 2 + 1 (the bye as a draw) = 3; y's missed round: own 0.
    assert_eq!(table, [line('x', 4, 5, 2 + 2 * 4), line('y', 0, 3, 0)]);
}
