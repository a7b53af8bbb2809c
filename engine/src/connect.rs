//! Finding the drops that connect at once without playing them: the groups of a player's
//! visible dots are labelled once, and a drop connects exactly when its three cells, with
//! the groups they touch, reach both sides of a pair. A drop only fills empty cells, so
//! it changes nothing else. Moves, which may also uncover dots, are played instead.

use std::sync::LazyLock;

use punct_rules::{CELL_COUNT, Cell, Color, Direction, Position, Side, Turn};

use crate::node::landing_cells;

/// Marks a missing neighbour in [`NEIGHBOURS`], and a cell in no group.
const NONE: u8 = u8::MAX;

/// The six neighbours of each cell by index, [`NONE`] off the board: the inner loop of
/// labelling, so a flat table rather than an iterator.
const NEIGHBOURS: [[u8; 6]; CELL_COUNT] = {
    let mut table = [[NONE; 6]; CELL_COUNT];
    let mut i = 0;
    while i < CELL_COUNT {
        if let Some(cell) = Cell::from_index(i) {
            let mut d = 0;
            while d < 6 {
                if let Some(n) = cell.step(Direction::ALL[d]) {
                    table[i][d] = n.index() as u8;
                }
                d += 1;
            }
        }
        i += 1;
    }
    table
};

/// The groups of one player's connected visible dots.
pub(crate) struct Groups {
    /// Group of each cell, [`NONE`] if the player has no visible dot there.
    label: [u8; CELL_COUNT],
    /// The sides each group touches, one bit per `Side as usize`.
    sides: Vec<u8>,
}

/// The bits of the sides each cell lies on (0 off the rim), one per `Side as usize`.
static SIDE_BITS: LazyLock<[u8; CELL_COUNT]> = LazyLock::new(|| {
    let mut bits = [0; CELL_COUNT];
    for (i, side) in SIDES.iter().enumerate() {
        for cell in side.cells() {
            bits[cell.index()] |= 1 << i;
        }
    }
    bits
});

/// The six sides in `Side as usize` order.
const SIDES: [Side; 6] = [
    Side::West,
    Side::East,
    Side::SouthWest,
    Side::NorthEast,
    Side::SouthEast,
    Side::NorthWest,
];

impl Groups {
    /// Labels `color`'s visible dots in `position`.
    pub(crate) fn new(position: &Position, color: Color) -> Groups {
        let visible = position.visible(color);
        let mut label = [NONE; CELL_COUNT];
        let mut sides = Vec::new();
        let mut stack = Vec::with_capacity(CELL_COUNT);
        let side_bits = &*SIDE_BITS;
        for start in visible {
            if label[start.index()] != NONE {
                continue;
            }
            let id = sides.len() as u8;
            let mut bits = 0;
            label[start.index()] = id;
            stack.push(start.index());
            while let Some(i) = stack.pop() {
                bits |= side_bits[i];
                for &n in &NEIGHBOURS[i] {
                    if n != NONE
                        && label[n as usize] == NONE
                        && visible.contains(Cell::from_index(n as usize).expect("on the board"))
                    {
                        label[n as usize] = id;
                        stack.push(n as usize);
                    }
                }
            }
            sides.push(bits);
        }
        Groups { label, sides }
    }

    /// Whether putting dots on `cells` (empty now) links both sides of a pair.
    pub(crate) fn connects_with(&self, cells: [Cell; 3]) -> bool {
        let side_bits = &*SIDE_BITS;
        let mut bits = 0u8;
        for cell in cells {
            bits |= side_bits[cell.index()];
            for &n in &NEIGHBOURS[cell.index()] {
                if n != NONE && self.label[n as usize] != NONE {
                    bits |= self.sides[self.label[n as usize] as usize];
                }
            }
        }
        // Sides come in pairs: bits 0-1, 2-3 and 4-5.
        (0..3).any(|pair| bits >> (2 * pair) & 0b11 == 0b11)
    }
}

/// Whether a drop (of the mover, on empty cells) connects them, judged from `groups`.
pub(crate) fn drop_connects(groups: &Groups, turn: Turn) -> bool {
    turn.is_drop() && landing_cells(turn).is_some_and(|cells| groups.connects_with(cells))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;
    use crate::node::{End, play};
    use punct_rules::{Game, Variant};

    /// Every drop of the side to move: the labelled groups and playing it agree.
    fn check_all_drops(position: &Position) -> usize {
        let mover = position.to_move();
        let groups = Groups::new(position, mover);
        let mut wins = 0;
        for turn in position.legal_turns().into_iter().filter(|t| t.is_drop()) {
            let played = play(position, turn).1 == Some(End::Win(mover));
            assert_eq!(
                drop_connects(&groups, turn),
                played,
                "{turn} in {position:?}"
            );
            wins += usize::from(played);
        }
        wins
    }

    #[test]
    fn groups_find_exactly_the_connecting_drops() {
        // White's chain A8 … O16 needs one drop at the east end.
        let record = "A8:B9,C10\nC4:C5,D5\nD11:E12,F13\nE4:E5,F5\nG14:H15,I16\nC7:C8,D8\n\
                      J16:K16,L16\nE7:E8,F8\nN16:M16,O16\nG4:G5,H5\n";
        let game = Game::from_record(Variant::Standard, record).unwrap();
        assert!(check_all_drops(game.position()) > 0);
        // And random games, where connecting drops are rare but wrong answers would show.
        let mut rng = Rng::with_seed(11);
        for _ in 0..6 {
            let mut game = Game::new(Variant::Basic);
            while !game.is_over() {
                check_all_drops(game.position());
                let turns = game.legal_turns();
                game.play(*rng.choice(&turns).unwrap()).unwrap();
            }
        }
    }
}
