//! Berger tables, checked against FIDE's table for six players.

use punct_pairing::{Cycles, Pair, RobinRound, berger};

fn table(rounds: &[RobinRound<u32>]) -> Vec<Vec<(u32, u32)>> {
    rounds
        .iter()
        .map(|round| {
            let mut games: Vec<(u32, u32)> = round
                .pairs
                .iter()
                .map(|p: &Pair<u32>| (p.white, p.black))
                .collect();
            games.sort();
            games
        })
        .collect()
}

#[test]
fn six_players_follow_fides_berger_table() {
    // FIDE's Berger table for 5 or 6 players, each round's games sorted.
    let expected = vec![
        vec![(1, 6), (2, 5), (3, 4)],
        vec![(1, 2), (5, 3), (6, 4)],
        vec![(2, 6), (3, 1), (4, 5)],
        vec![(1, 4), (2, 3), (6, 5)],
        vec![(3, 6), (4, 2), (5, 1)],
    ];
    assert_eq!(
        table(&berger(&[1, 2, 3, 4, 5, 6], Cycles::Single)),
        expected
    );
}

#[test]
fn with_five_players_whoever_meets_the_dummy_rests() {
    let rounds = berger(&[1, 2, 3, 4, 5], Cycles::Single);
    let rests: Vec<Option<u32>> = rounds.iter().map(|r| r.resting).collect();
    // The dummy is player 6 of the six-player table: 1, 4, 2, 5, 3 meet it.
    assert_eq!(rests, [Some(1), Some(4), Some(2), Some(5), Some(3)]);
    assert_eq!(table(&rounds)[0], [(2, 5), (3, 4)]);
}

#[test]
fn a_double_round_robin_plays_the_table_again_with_colours_swapped() {
    let rounds = berger(&[1, 2, 3, 4], Cycles::Double);
    assert_eq!(rounds.len(), 6);
    for (first, second) in rounds[..3].iter().zip(&rounds[3..]) {
        let swapped: Vec<Pair<u32>> = first
            .pairs
            .iter()
            .map(|p| Pair {
                white: p.black,
                black: p.white,
            })
            .collect();
        assert_eq!(second.pairs, swapped);
    }
}

#[test]
fn fewer_than_two_players_have_no_rounds() {
    assert!(berger(&[1], Cycles::Double).is_empty());
    assert!(berger::<u32>(&[], Cycles::Single).is_empty());
}
