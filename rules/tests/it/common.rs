//! Building positions for rule tests from short scripts of turns.

use punct_rules::{Cell, CellSet, Game, Kind, Placement, Side, Turn, Variant};

/// Plays `script` from the start: turns in notation separated by white space, where `_`
/// stands for a filler drop by the side to move, placed well away (two cells or more)
/// from every cell the script or `later` names, so fillers never touch the scene.
pub(crate) fn setup(variant: Variant, script: &str, later: &[&str]) -> Game {
    let zone = filler_zone(script, later);
    let mut game = Game::new(variant);
    for (i, word) in script.split_whitespace().enumerate() {
        let turn = if word == "_" {
            filler(&game, zone)
        } else {
            word.parse()
                .unwrap_or_else(|e| panic!("turn {} '{word}': {e}", i + 1))
        };
        game.play(turn)
            .unwrap_or_else(|e| panic!("turn {} '{turn}' refused: {e}", i + 1));
    }
    game
}

/// Plays filler drops until the game ends (at most 40 of them).
pub(crate) fn play_fillers_to_end(game: &mut Game, script: &str) {
    let zone = filler_zone(script, &[]);
    for _ in 0..40 {
        if game.is_over() {
            return;
        }
        let turn = filler(game, zone);
        game.play(turn).expect("fillers are legal");
    }
    panic!("the game did not end");
}

/// Plays `turn` on a copy of `game`, which must accept it.
pub(crate) fn after(game: &Game, turn: &str) -> Game {
    let mut next = game.clone();
    next.play(turn.parse().expect("test turns are well-formed"))
        .unwrap_or_else(|e| panic!("'{turn}' refused: {e}"));
    next
}

/// Tries `turn`, which must be refused without changing the game; returns the reason.
pub(crate) fn refused(game: &Game, turn: &str) -> punct_rules::IllegalTurn {
    let mut copy = game.clone();
    let err = copy
        .play(turn.parse().expect("test turns are well-formed"))
        .expect_err(&format!("'{turn}' should be refused"));
    assert_eq!(
        copy.position(),
        game.position(),
        "a refused turn changed the position"
    );
    assert_eq!(copy.turns(), game.turns());
    assert_eq!(copy.outcome(), game.outcome());
    assert!(
        !game.legal_turns().contains(&turn.parse().unwrap()),
        "'{turn}' is refused but generated"
    );
    err
}

/// Parses a cell name.
pub(crate) fn cell(name: &str) -> Cell {
    name.parse().expect("test cells are on the board")
}

/// Level of the piece whose PÜNCT is on `name` and whose dot is on top there.
pub(crate) fn level_at(game: &Game, name: &str) -> u8 {
    let top = game.position().top(cell(name)).expect("a dot on that cell");
    top.level
}

fn mentioned_cells(text: &str) -> Vec<Cell> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| w.parse::<Cell>().ok())
        .collect()
}

fn filler_zone(script: &str, later: &[&str]) -> CellSet {
    let mut named = mentioned_cells(script);
    for turn in later {
        named.extend(mentioned_cells(turn));
    }
    let sides: CellSet = [Side::West, Side::East, Side::SouthWest]
        .into_iter()
        .chain([Side::NorthEast, Side::SouthEast, Side::NorthWest])
        .fold(CellSet::EMPTY, |set, side| set.union(side.cells()));
    Cell::all()
        .filter(|c| !sides.contains(*c) && named.iter().all(|n| n.distance(*c) >= 2))
        .collect()
}

/// The filler drop for the side to move: a legal drop inside `zone`, of the kind the
/// mover has most of in reserve, so that fillers leave the rarer kinds to the script.
fn filler(game: &Game, zone: CellSet) -> Turn {
    let reserve = game.position().reserve(game.to_move());
    let kind_of = |t: &Turn| match *t {
        Turn::Drop { punct, minors } => Placement::from_cells(punct, minors).map(|p| p.kind()),
        _ => None,
    };
    game.legal_turns()
        .into_iter()
        .filter(|t| match *t {
            Turn::Drop { punct, minors } => {
                zone.contains(punct) && minors.iter().all(|m| zone.contains(*m))
            }
            _ => false,
        })
        .min_by_key(|t| {
            let kind: Kind = kind_of(t).expect("drops form pieces");
            // Most plentiful kind first; among equals the earliest generated turn.
            (std::cmp::Reverse(reserve.count(kind)), kind)
        })
        .expect("room for a filler drop")
}
