//! Scores and tie-breaks, computed by hand on two small tournaments.

use punct_pairing::{
    Cycles, HalfPoints, Outcome, Pair, QuarterPoints, Standing, berger, robin_standings, standings,
};

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
/// Scores (half-points): A 4, B 3, C 5, D 3, E 3. As opponents (C.07 Art. 16.3.1), a
/// bye counts as the win it scored, so these are their scores. Buchholz adds the
/// opponents' scores and, for the bye, a dummy with the player's own score (16.4):
/// A: B 3 + C 5 + D 3 = 11; B: A 4 + E 3 + own 3 = 10; C: D 3 + A 4 + own 5 = 12;
/// D: C 5 + E 3 + A 4 = 12; E: D 3 + B 3 + own 3 = 9.
/// Sonneborn-Berger (quarter-points: half-points scored × opponent's half-points), the
/// bye a win against the dummy: A: 2×3 (B) + 2×3 (D) = 12; B: 1×3 (E) + 2×3 = 9;
/// C: 1×3 (D) + 2×4 (A) + 2×5 = 21; D: 1×5 (C) + 2×3 (E) = 11; E: 1×3 (B) + 2×3 = 9.
#[test]
fn the_bye_scores_a_win_for_opponents_and_is_a_dummy_of_the_players_own_score() {
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
            line('A', 4, 11, 12),
            // B, D and E tie on 1½: Buchholz orders them.
            line('D', 3, 12, 11),
            line('B', 3, 10, 9),
            line('E', 3, 9, 9),
        ]
    );
    assert_eq!(table[0].sonneborn_berger.to_string(), "5.25");
    assert_eq!(table[2].buchholz.to_string(), "6");
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

/// A player who withdrew after round 1 keeps their place in the table. In their
/// opponents' tie-breaks, their rounds missed at the end count as draws (C.07 Art.
/// 16.2.5, 16.3.2); in their own, each is a game lost to a dummy with their own score
/// (16.4).
#[test]
fn a_withdrawn_players_missing_rounds_count_as_draws_for_their_opponents() {
    let rounds = [
        round(vec![game('x', 'y', WhiteWins)], None),
        // y has withdrawn; x has nobody left and takes the bye.
        round(vec![], Some('x')),
    ];
    let table = standings(&['x', 'y'], &rounds);
    // x: 4; y as an opponent: 0 + 1 (the missed round as a draw) = 1; x's bye: own 4.
    // y: 0; x as an opponent: 4 (the bye as the win it scored); y's missed round: own 0.
    assert_eq!(table, [line('x', 4, 5, 2 + 2 * 4), line('y', 0, 4, 0)]);
}

/// A round missed that a game follows is not at the end: for opponents it counts as
/// the nothing it scored (16.2.3, 16.3.1), not as a draw.
#[test]
fn a_round_missed_before_a_game_counts_as_what_it_scored() {
    let rounds = [
        round(vec![game('a', 'b', WhiteWins)], None),
        // c joins late: a and b have met, so a has the bye.
        round(vec![game('b', 'c', Draw)], Some('a')),
    ];
    let table = standings(&['a', 'b', 'c'], &rounds);
    // a: 4, b: 1, c: 1 (missed round 1, which a game follows: worth 0 to opponents).
    // a: b 1 + own 4 (bye) = 5; SB 2×1 + 2×4 = 10.
    // b: a 4 + c 1 = 5; SB 1×1 = 1. c: b 1 + own 1 (round 1 missed) = 2; SB 1×1 = 1.
    assert_eq!(
        table,
        [line('a', 4, 5, 10), line('b', 1, 5, 1), line('c', 1, 2, 1)]
    );
}

/// A game under way counts for nobody: its players have no round missed, so no dummy.
#[test]
fn a_game_not_yet_over_is_not_a_round_missed() {
    let mut second = round(vec![game('a', 'c', Draw)], None);
    second.unfinished.push(Pair {
        white: 'b',
        black: 'd',
    });
    let rounds = [
        round(
            vec![game('a', 'b', WhiteWins), game('c', 'd', WhiteWins)],
            None,
        ),
        second,
    ];
    let table = standings(&['a', 'b', 'c', 'd'], &rounds);
    // a 3 (b 0 + c 3), c 3 (d 0 + a 3); b and d, still playing, have only their first
    // game's opponent: b: a 3, d: c 3.
    assert_eq!(
        table,
        [
            line('a', 3, 3, 3),
            line('c', 3, 3, 3),
            line('b', 0, 3, 0),
            line('d', 0, 3, 0),
        ]
    );
}

/// Two players, one round: the winner's opponent scored nothing, the loser's a win. So
/// the loser has the higher Buchholz: Buchholz is the opponents' scores (C.07 Art. 8.1),
/// and breaks ties in score only.
#[test]
fn in_a_two_player_swiss_the_loser_has_the_higher_buchholz() {
    let table = standings(&['w', 'l'], &[round(vec![game('l', 'w', BlackWins)], None)]);
    assert_eq!(table, [line('w', 2, 0, 0), line('l', 0, 2, 0)]);
}

/// Issue 42's five-player round robin: everyone rests once, and a rest is no unplayed
/// round (C.07 Art. 15.2), so each player's Buchholz is their opponents' real scores:
/// the 10 points of the event less their own.
#[test]
fn in_a_round_robin_of_five_buchholz_is_the_ten_points_less_ones_own() {
    let players = ['a', 'b', 'c', 'd', 'e'];
    let outcomes = [WhiteWins, Draw, BlackWins, WhiteWins, WhiteWins];
    let rounds: Vec<_> = berger(&players, Cycles::Single)
        .into_iter()
        .enumerate()
        .map(|(r, robin)| {
            let games = robin
                .pairs
                .iter()
                .enumerate()
                .map(|(g, p)| game(p.white, p.black, outcomes[(r + g) % outcomes.len()]))
                .collect();
            round(games, None)
        })
        .collect();
    let table = robin_standings(&players, &rounds);
    assert_eq!(table.iter().map(|s| s.score.0).sum::<u32>(), 20);
    for line in &table {
        assert_eq!(line.buchholz.0, 20 - line.score.0, "{line:?}");
    }
    // The Swiss rules would give each rest a dummy and count others' rests as draws.
    assert_ne!(standings(&players, &rounds), table);
}
