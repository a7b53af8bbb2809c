//! The hash kept turn by turn against the hash computed afresh, over random games in
//! which every turn tried is also taken back.

use proptest::prelude::*;

use crate::{Game, Position, Turn, Variant};

/// Checks `position`'s hash against one computed from its pieces.
fn check(position: &Position, after: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        position.hash(),
        position.hash_from_scratch(),
        "hash after {}",
        after
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Each turn of a random game, and a sample of the other turns of each position
    /// played then taken back (as perft and the engine do, by restoring a copy), leave
    /// the hash equal to the one computed afresh. Games lean towards moves and jumps
    /// (`move_bias` percent of turns, when there are any) to reach stacks and bridges.
    #[test]
    fn the_hash_kept_by_each_turn_equals_the_hash_from_scratch(
        seed in any::<u64>(),
        basic in any::<bool>(),
        move_bias in 0u8..=90,
        len in 0usize..=300,
    ) {
        let variant = if basic { Variant::Basic } else { Variant::Standard };
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut game = Game::new(variant);
        let mut turns = Vec::new();
        check(game.position(), "the start")?;
        while game.turns().len() < len && !game.is_over() {
            game.position().legal_turns_into(&mut turns);
            let mut tried = game.position().clone();
            for _ in 0..8 {
                let turn = turns[rng.usize(..turns.len())];
                tried.play(turn).expect("generated turns are legal");
                check(&tried, &turn.to_string())?;
                tried.clone_from(game.position());
                check(&tried, &format!("{turn} taken back"))?;
            }
            let moves: Vec<Turn> = turns.iter().copied().filter(|t| !t.is_drop()).collect();
            let turn = if !moves.is_empty() && rng.u8(..100) < move_bias {
                moves[rng.usize(..moves.len())]
            } else {
                turns[rng.usize(..turns.len())]
            };
            game.play(turn).expect("generated turns are legal");
            check(game.position(), &turn.to_string())?;
        }
    }
}
