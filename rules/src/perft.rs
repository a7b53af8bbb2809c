//! perft: counting sequences of legal turns, the standard check of a move generator.

use crate::{Game, Turn};

/// Number of sequences of exactly `depth` legal turns from `game` (RULES.md 6): a forced
/// `pass` is a turn, and no turn follows the end of a game.
///
/// ```
/// use punct_rules::{Game, Variant, perft};
/// assert_eq!(perft(&Game::new(Variant::Standard), 1), 4986);
/// ```
pub fn perft(game: &Game, depth: u32) -> u64 {
    count(&mut game.clone(), depth)
}

/// [`perft`] split by first turn: each legal turn with the count of sequences it starts.
pub fn perft_divide(game: &Game, depth: u32) -> Vec<(Turn, u64)> {
    if depth == 0 || game.is_over() {
        return Vec::new();
    }
    let mut game = game.clone();
    game.position()
        .legal_actions()
        .into_iter()
        .map(|action| (action.turn(), after(&mut game, action, depth - 1)))
        .collect()
}

fn count(game: &mut Game, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if game.is_over() {
        return 0;
    }
    if depth == 1 {
        // Bulk count: the last turn needs generating, not playing.
        return game.position().count_legal_turns() as u64;
    }
    game.position()
        .legal_actions()
        .into_iter()
        .map(|action| after(game, action, depth - 1))
        .sum()
}

/// Sequences of `depth` turns after `action`, leaving `game` as it was.
fn after(game: &mut Game, action: crate::position::Action, depth: u32) -> u64 {
    let saved = game.position().clone();
    let len = game.turns().len();
    game.apply(action);
    let n = count(game, depth);
    game.retract(saved, len);
    n
}
