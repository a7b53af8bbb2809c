//! What the tests share: rounds written briefly.

use punct_pairing::{Game, Outcome, Pair, Round};

/// A game: `white` against `black`, ending as `outcome`.
pub(crate) fn game<P>(white: P, black: P, outcome: Outcome) -> Game<P> {
    Game {
        pair: Pair { white, black },
        outcome,
    }
}

/// A round of `games`, with `bye` sitting out.
pub(crate) fn round<P>(games: Vec<Game<P>>, bye: Option<P>) -> Round<P> {
    Round {
        games,
        bye,
        unfinished: Vec::new(),
    }
}
