//! Playing a turn on a bare [`Position`] and judging the end of the game as
//! [`Game::play`](punct_rules::Game::play) does (RULES.md 4), without the history a
//! [`Game`](punct_rules::Game) keeps: the search plays thousands of turns and needs them
//! cheap. Repetition is left to the caller, who knows the history.

use punct_rules::{Cell, Color, PIECES_PER_PLAYER, Position, Turn, Variant};

/// How a game ended, as far as the search cares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum End {
    /// This player won.
    Win(Color),
    /// Nobody won.
    Draw,
}

/// `turn`, which must be legal, played on a copy of `position`, with the end of the game
/// it brings about, if any.
pub(crate) fn play(position: &Position, turn: Turn) -> (Position, Option<End>) {
    let mover = position.to_move();
    let mut next = position.clone();
    next.play(turn)
        .expect("the engine only plays turns the rules generated");
    let end = if next.is_connected(mover) {
        Some(End::Win(mover))
    } else if next.is_connected(mover.opponent()) {
        Some(End::Win(mover.opponent()))
    } else if (turn.is_drop() && next.pieces_in_play(mover) == PIECES_PER_PLAYER)
        || (turn == Turn::Pass && !next.has_legal_turn())
    {
        Some(final_count(&next))
    } else {
        None
    };
    (next, end)
}

/// The result of a game that ends without a connection (RULES.md 4.3).
pub(crate) fn final_count(position: &Position) -> End {
    count_result(
        position.variant(),
        Color::ALL.map(|color| position.centre_count(color)),
    )
}

/// How the game would end if the side to move dropped their last piece now, in the
/// standard game (`None` if they have more than one left, or `has_drop` says they have no
/// drop): a drop never lands in the central hexagon, so the count stands as it is.
/// `has_drop` is asked only for a last piece, so that a caller without the turns at hand
/// generates them only then.
pub(crate) fn last_drop_end(position: &Position, has_drop: impl FnOnce() -> bool) -> Option<End> {
    let last = position.variant() == Variant::Standard
        && position.pieces_in_play(position.to_move()) + 1 == PIECES_PER_PLAYER;
    (last && has_drop()).then(|| final_count(position))
}

/// The result of a game that ends without a connection when White and Black have
/// `centre` dots in the central hexagon.
pub(crate) fn count_result(variant: Variant, centre: [usize; 2]) -> End {
    match variant {
        Variant::Basic => End::Draw,
        Variant::Standard => match centre[0].cmp(&centre[1]) {
            std::cmp::Ordering::Greater => End::Win(Color::White),
            std::cmp::Ordering::Less => End::Win(Color::Black),
            std::cmp::Ordering::Equal => End::Draw,
        },
    }
}

/// The cells a turn puts the mover's dots on (none for a pass).
pub(crate) fn landing_cells(turn: Turn) -> Option<[Cell; 3]> {
    match turn {
        Turn::Drop { punct, minors } => Some([punct, minors[0], minors[1]]),
        Turn::Move { to, minors, .. } => Some([to, minors[0], minors[1]]),
        Turn::Pass => None,
    }
}

/// The cells a move lifts its piece from (none for a drop or a pass).
pub(crate) fn origin_cells(position: &Position, turn: Turn) -> Option<[Cell; 3]> {
    let Turn::Move { from, .. } = turn else {
        return None;
    };
    let dot = position.top(from)?;
    position.placed(dot.piece).map(|p| p.placement.cells())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;
    use punct_rules::Game;

    #[test]
    fn the_last_drop_ends_the_game_as_foretold() {
        let mut rng = Rng::with_seed(8);
        let mut foretold = 0;
        for variant in [Variant::Standard, Variant::Basic, Variant::Standard] {
            let mut game = Game::new(variant);
            while !game.is_over() {
                let position = game.position();
                let turns = game.legal_turns();
                let drops: Vec<Turn> = turns.iter().copied().filter(|t| t.is_drop()).collect();
                match last_drop_end(position, || !drops.is_empty()) {
                    Some(end) => {
                        foretold += 1;
                        for &drop in drops.iter().step_by(5) {
                            let (_, played) = play(position, drop);
                            // A connection made by the drop comes first.
                            if !matches!(played, Some(End::Win(w)) if w == position.to_move()) {
                                assert_eq!(played, Some(end), "{drop} after\n{}", game.record());
                            }
                        }
                    }
                    None => assert!(
                        variant == Variant::Basic
                            || drops.is_empty()
                            || position.reserve(position.to_move()).total() > 1,
                        "\n{}",
                        game.record()
                    ),
                }
                // Mostly drops, so that the reserves run out.
                let moves: Vec<_> = turns.iter().filter(|t| !t.is_drop()).collect();
                let turn = match rng.choice(&moves) {
                    Some(&&m) if rng.usize(..4) == 0 => m,
                    _ => *rng.choice(&turns).unwrap(),
                };
                game.play(turn).unwrap();
            }
        }
        assert!(foretold >= 2, "last drops came up: {foretold}");
    }
}
