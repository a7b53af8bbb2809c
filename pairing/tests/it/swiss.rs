//! The Swiss pairing on small tournaments worked out by hand, one rule per test.

use punct_pairing::{Outcome, Pair, Round, SwissError, pair_round};

use crate::common::{game, round};
use Outcome::{BlackWins, Draw, WhiteWins};

fn pair<P>(white: P, black: P) -> Pair<P> {
    Pair { white, black }
}

#[test]
fn round_one_pairs_the_top_half_against_the_bottom_half_with_alternating_colours() {
    let pairing = pair_round(&[1, 2, 3, 4, 5, 6, 7, 8], &[], &[]).expect("a first round");
    assert_eq!(
        pairing.pairs,
        [pair(1, 5), pair(6, 2), pair(3, 7), pair(8, 4)]
    );
    assert_eq!(pairing.bye, None);
}

#[test]
fn players_are_paired_within_their_score_group_and_the_odd_one_floats_down() {
    // After round 1: 1, 6, 3 won (2), 8 and 4 drew (1), 5, 2, 7 lost (0) — with 9 the
    // bye (2). Groups: {1, 3, 6, 9} at 2, {4, 8} at 1, {2, 5, 7} at 0.
    let first = round(
        vec![
            game(1, 5, WhiteWins),
            game(6, 2, WhiteWins),
            game(3, 7, WhiteWins),
            game(8, 4, Draw),
        ],
        Some(9),
    );
    let pairing = pair_round(&[1, 2, 3, 4, 5, 6, 7, 8, 9], &[first], &[]).expect("a second round");
    // The lowest (7) has the bye. 2-point group, ranked 1, 3, 6, 9: 1, 3 and 6 had
    // White and 9 no game, so every pairing of the group denies one player their Black;
    // the Dutch order decides: 1 meets 6 (the first of the bottom half, and has the Black
    // as the higher-ranked), 3 meets 9. 4 and 8 have met: each floats to the 0-point
    // group, 4 (ranked first) to its top, 2.
    assert_eq!(pairing.bye, Some(7));
    assert_eq!(
        pairing.pairs,
        [pair(6, 1), pair(9, 3), pair(4, 2), pair(5, 8)]
    );
}

#[test]
fn nobody_floats_out_of_a_score_group_that_can_pair_within_itself() {
    // 1 to 4 drew in round 1 (2 with 4; the others with players since withdrawn); 5 and
    // 6 join in round 2. The Dutch order and the colours would have 1 meet 3, but then 2
    // and 4, who have met, would both float down: 1 meets 2 and 3 meets 4 instead.
    let rounds = [round(
        vec![game(11, 1, Draw), game(2, 4, Draw), game(3, 12, Draw)],
        None,
    )];
    let pairing = pair_round(&[1, 2, 3, 4, 5, 6], &rounds, &[]).expect("a second round");
    assert_eq!(pairing.pairs, [pair(1, 2), pair(4, 3), pair(5, 6)]);
}

#[test]
fn nobody_meets_the_same_opponent_twice() {
    // Four players who have all met: no fourth round.
    let rounds = [
        round(vec![game(1, 2, Draw), game(3, 4, Draw)], None),
        round(vec![game(3, 1, Draw), game(2, 4, Draw)], None),
        round(vec![game(1, 4, Draw), game(2, 3, Draw)], None),
    ];
    assert_eq!(
        pair_round(&[1, 2, 3, 4], &rounds, &[]),
        Err(SwissError::NoPairing)
    );
}

#[test]
fn nobody_has_the_same_colour_three_times_in_a_row() {
    // 1 had Black, White, White: one white more, which the balance allows, but not a
    // third White in a row. 2 had two whites more: Black only. So they cannot meet.
    // (11 to 14 have withdrawn.)
    let rounds = [
        round(vec![game(11, 1, Draw), game(2, 12, Draw)], None),
        round(vec![game(1, 12, Draw), game(2, 13, Draw)], None),
        round(vec![game(1, 13, Draw), game(14, 2, Draw)], None),
        round(vec![game(2, 11, Draw)], None),
    ];
    assert_eq!(
        pair_round(&[1, 2], &rounds, &[]),
        Err(SwissError::NoPairing)
    );
    // With a newcomer pair, 1 meets one of them with Black.
    let pairing = pair_round(&[1, 2, 7, 8], &rounds, &[]).expect("a fifth round");
    let game = pairing.pairs.iter().find(|p| p.has(1)).expect("paired");
    assert_eq!(game.black, 1, "{pairing:?}");
}

#[test]
fn two_players_who_both_must_have_white_never_meet() {
    // 1 and 2 are the only leaders, but both had Black twice: each must have White, so
    // they cannot meet, and each meets one of the others instead.
    let rounds = [
        round(vec![game(3, 1, BlackWins), game(4, 2, BlackWins)], None),
        round(vec![game(4, 1, BlackWins), game(3, 2, BlackWins)], None),
    ];
    // Everyone has met twice already: 1-3, 1-4, 2-4, 2-3. So 1-2 and 3-4 is the only
    // pairing left, and the colours forbid it.
    assert_eq!(
        pair_round(&[1, 2, 3, 4], &rounds, &[]),
        Err(SwissError::NoPairing)
    );
    // With four newcomers, the leaders float down to two of them, with White.
    let pairing = pair_round(&[1, 2, 3, 4, 5, 6, 7, 8], &rounds, &[]).expect("a third round");
    for leader in [1, 2] {
        let game = pairing
            .pairs
            .iter()
            .find(|p| p.has(leader))
            .expect("paired");
        assert_eq!(game.white, leader, "{pairing:?}");
        assert!(matches!(game.black, 5..=8), "{pairing:?}");
    }
}

#[test]
fn whites_and_blacks_never_differ_by_more_than_two() {
    // 1 had White, White, Black, White: two whites more, so not White again. 6 had
    // Black, White, White: not White a third time. So they cannot meet, though neither
    // colour rule alone would part them. (11 to 14 have withdrawn.)
    let rounds = [
        round(vec![game(1, 11, Draw), game(12, 6, Draw)], None),
        round(vec![game(1, 12, Draw), game(6, 11, Draw)], None),
        round(vec![game(13, 1, Draw), game(6, 14, Draw)], None),
        round(vec![game(1, 14, Draw)], None),
    ];
    assert_eq!(
        pair_round(&[1, 6], &rounds, &[]),
        Err(SwissError::NoPairing)
    );
    // With a newcomer pair, 1 meets one of them with Black, and 6 the other.
    let pairing = pair_round(&[1, 6, 7, 8], &rounds, &[]).expect("a fifth round");
    let game = pairing.pairs.iter().find(|p| p.has(1)).expect("paired");
    assert_eq!(game.black, 1, "{pairing:?}");
}

#[test]
fn the_bye_goes_to_the_lowest_ranked_player_who_has_not_had_one() {
    // 5 is last, but had the bye in round 1; 4 is next from the bottom.
    let rounds = [round(vec![game(1, 3, Draw), game(4, 2, Draw)], Some(5))];
    let pairing = pair_round(&[1, 2, 3, 4, 5], &rounds, &[]).expect("a second round");
    // Scores: 5 has 2 (the bye), the others 1; ranked 5, 1, 2, 3, 4.
    assert_eq!(pairing.bye, Some(4));
    assert!(pairing.pairs.iter().all(|p| !p.has(4)));
}

#[test]
fn when_everyone_has_had_the_bye_an_odd_round_cannot_be_paired() {
    let rounds = [
        round(vec![game(2, 3, Draw)], Some(1)),
        round(vec![game(1, 3, Draw)], Some(2)),
        round(vec![game(1, 2, Draw)], Some(3)),
    ];
    assert_eq!(
        pair_round(&[1, 2, 3], &rounds, &[]),
        Err(SwissError::NoPairing)
    );
}

#[test]
fn a_withdrawn_player_is_not_paired_but_their_games_still_count() {
    // 4 withdrew after round 1. 1 beat 4, so 1 and 2 (who beat 3) lead; 1 and 2 meet.
    let rounds = [round(
        vec![game(1, 4, WhiteWins), game(2, 3, WhiteWins)],
        None,
    )];
    let pairing = pair_round(&[1, 2, 3], &rounds, &[]).expect("a second round");
    assert_eq!(pairing.bye, Some(3));
    assert_eq!(pairing.pairs.len(), 1);
    assert!(
        pairing.pairs[0].has(1) && pairing.pairs[0].has(2),
        "{pairing:?}"
    );
}

#[test]
fn players_kept_apart_are_never_paired_as_if_they_had_met() {
    // Round 1 would pair 1 with 3 (the Dutch order); kept apart, 1 meets 4 and 2 meets 3.
    let pairing = pair_round(&[1, 2, 3, 4], &[], &[(3, 1)]).expect("a first round");
    assert_eq!(pairing.pairs, [pair(1, 4), pair(3, 2)]);
    // A block with a player not in the list (one who withdrew) changes nothing.
    assert_eq!(
        pair_round(&[1, 2, 3, 4], &[], &[(9, 1)]),
        pair_round(&[1, 2, 3, 4], &[], &[])
    );
}

#[test]
fn the_bye_goes_to_whoever_keeps_the_pairs_kept_apart_apart() {
    // 3, the lowest, would have the bye; but 1 may meet neither 2 nor 3, so 1 has it.
    let pairing = pair_round(&[1, 2, 3], &[], &[(1, 2), (3, 1)]).expect("a first round");
    assert_eq!(pairing.bye, Some(1));
    assert_eq!(pairing.pairs, [pair(2, 3)]);
}

#[test]
fn a_round_that_cannot_be_paired_without_a_pair_kept_apart_is_refused() {
    assert_eq!(
        pair_round(&[1, 2], &[], &[(2, 1)]),
        Err(SwissError::NoPairing)
    );
    // 1 has met 2 and is kept apart from 3 and 4: nobody is left for 1 to meet.
    let rounds = [round(vec![game(1, 2, Draw), game(3, 4, Draw)], None)];
    assert_eq!(
        pair_round(&[1, 2, 3, 4], &rounds, &[(1, 3), (1, 4)]),
        Err(SwissError::NoPairing)
    );
}

#[test]
fn a_player_listed_twice_is_refused() {
    assert_eq!(
        pair_round(&[1, 2, 1], &[], &[]),
        Err(SwissError::DuplicatePlayer(1))
    );
}

#[test]
fn an_empty_history_of_rounds_with_no_games_is_a_first_round() {
    let empty: Round<u8> = Round::default();
    assert_eq!(
        pair_round(&[7, 8], &[empty], &[]).map(|p| p.pairs),
        Ok(vec![pair(7, 8)])
    );
}

/// A whole event, as the server will run it: 64 players over 7 rounds and 1,000 over 11,
/// random results. Every round pairs everyone, and the points handed out add up.
#[test]
fn large_events_pair_every_round() {
    use punct_pairing::{Game, standings};
    let mut rng = fastrand::Rng::with_seed(64);
    for (players, rounds) in [(64u32, 7), (1000, 11)] {
        let ids: Vec<u32> = (0..players).collect();
        let mut history: Vec<Round<u32>> = Vec::new();
        for _ in 0..rounds {
            let pairing = pair_round(&ids, &history, &[]).expect("a round");
            assert_eq!(pairing.pairs.len(), ids.len() / 2);
            let games = pairing.pairs.iter().map(|&pair| Game {
                pair,
                outcome: [WhiteWins, Draw, BlackWins][rng.usize(..3)],
            });
            history.push(round(games.collect(), pairing.bye));
        }
        let total: u32 = standings(&ids, &history).iter().map(|s| s.score.0).sum();
        // Each game hands out 2 half-points, 1 per player: as many as there are players.
        assert_eq!(total, players * rounds);
    }
}
